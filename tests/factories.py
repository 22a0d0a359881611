"""Small builders for tests: users, campaigns built from the real EASY gold, teams.

Other areas reuse these, so each helper does one thing and takes keywords
for what a test may want to change.
"""
from __future__ import annotations

import io
import itertools
from pathlib import Path

from django.contrib.auth import get_user_model

from campaign.models import Campaign, CampaignState, Membership, Team
from tests.conftest import DATA

EASY_REF = DATA / "easy-ref" / "ref"
# Three small files of three genres keep a campaign quick to build and score. They are
# also valid as runs (oral_delic_1 repeats relation ids, tolerated in gold only).
SMALL_EASY_FILES = ("general_elda.xml", "mail_10.xml", "oral_delic_2.xml")

_counter = itertools.count(1)


def easy_gold_paths(names=SMALL_EASY_FILES) -> list[Path]:
    return [EASY_REF / n for n in names]


def make_user(username: str | None = None, password: str = "pw-for-tests-1", **fields):
    username = username or f"user{next(_counter)}"
    return get_user_model().objects.create_user(username=username, password=password, **fields)


def make_campaign(*, slug: str | None = None, state: str = CampaignState.OPEN, organisers=(), **fields) -> Campaign:
    n = next(_counter)
    slug = slug or f"campaign-{n}"
    fields.setdefault("name", f"Campaign {slug}")
    campaign = Campaign.objects.create(slug=slug, state=state, **fields)
    if organisers:
        campaign.organisers.add(*organisers)
    return campaign


def make_easy_campaign(files=SMALL_EASY_FILES, *, subset: str = "test", **fields) -> Campaign:
    """A campaign whose corpus is imported from real gold files of ``easy-ref/ref``."""
    from campaign.services.corpus import import_corpus

    campaign = make_campaign(**fields)
    import_corpus(campaign, easy_gold_paths(files), subset=subset)
    return campaign


def make_team(campaign: Campaign, *members, name: str | None = None, leader=None) -> Team:
    name = name or f"Team {next(_counter)}"
    from django.utils.text import slugify

    team = Team.objects.create(campaign=campaign, name=name, slug=slugify(name))
    for i, user in enumerate(members):
        role = Membership.Role.LEADER if (user == leader or (leader is None and i == 0)) else Membership.Role.MEMBER
        Membership.objects.create(team=team, user=user, campaign=campaign, role=role)
    return team


def small_easy_corpus(out: Path, sentences: int) -> Path:
    """The first ``sentences`` sentences of one document per genre of the shipped EASY reference corpus, as gold
    files in ``out`` (a demo campaign small enough to load in a test)."""
    from parseval.annotations.easy import read_document, write_document

    out.mkdir()
    seen = set()
    for path in sorted(EASY_REF.glob("*.xml")):
        genre = path.stem.split("_")[0]
        if genre in seen:
            continue
        seen.add(genre)
        doc = read_document(path, gold=True, strict=True, name=path.name)
        doc.sentences = doc.sentences[:sentences]
        write_document(doc, out / path.name)
    assert len(seen) == 6
    return out


def gold_bytes(name: str) -> bytes:
    return (EASY_REF / name).read_bytes()


def zip_of(files: dict[str, bytes]) -> bytes:
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def tar_gz_of(files: dict[str, bytes]) -> bytes:
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gold_run_zip(files=SMALL_EASY_FILES) -> bytes:
    """A run that is the gold itself: every document, as a zip."""
    return zip_of({n: gold_bytes(n) for n in files})


def use_storage(settings, root: Path) -> None:
    """Point media and gold storage at ``root`` (e.g. a test's tmp_path) for one test."""
    from django.utils.functional import empty

    from annotations.models import gold_storage

    settings.MEDIA_ROOT = str(root / "media")
    settings.GOLD_ROOT = str(root / "gold")
    gold_storage._wrapped = empty  # built lazily from GOLD_ROOT; rebuild it for the new root


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []
