"""The open demo campaign, for ``load_demo``: where a visitor can try what a team does.

Every other demo campaign is published, so none takes uploads. "French UD practice (open demo)"
stays open: a small dependency campaign on UD French (the first sentences of the Sequoia dev file
and of the GSD test file, shipped in ``data/ud-french``), with a hidden test subset (the
sentences scored are not told), a public development sample, and a team for each demo user. A
member can upload a run, read its validation report, check a run on the development sample and
see its figures at once, and withdraw a run; the published campaigns are not touched.

The files to try are shipped in ``data/demo-runs/<slug>/`` (:func:`practice_files` makes them;
a test checks the shipped copies are what it makes, so they cannot drift from the campaign):

* ``run.zip``: the whole corpus with heads moved on purpose (valid; accepted for scoring, its
  figures come with the results release, as in a real campaign);
* ``invalid-run.zip``: the same with a sentence missing and a word changed (the validation
  report says where);
* ``dev-check.zip``: the development sentences only, heads moved; uploaded as a development
  check it is scored at once and its figures are shown to the team.
"""
from __future__ import annotations

import io
import random
import re
import zipfile
from pathlib import Path

from django.conf import settings

from annotations.models import GoldSentence
from campaign.demo_kinds import DepRecipe, conllu_head, damage_heads
from campaign.kinds import get
from campaign.lifecycle import transition
from campaign.models import Campaign, CampaignKind, CampaignState, Publication, TeamAdmission
from campaign.practice import DRAW_KEY, OPEN_SLUG
from campaign.services.teams import create_team
from campaign.subsets import sample_test_subset

NAME = "French UD practice (open demo)"
# document (= genre) -> (file of data/ud-french, first sentences)
SLICES = {"sequoia": ("fr_sequoia-ud-dev.conllu", 40), "gsd": ("fr_gsd-ud-test.conllu", 40)}
GENRE_NAMES = {"sequoia": "Sequoia (press, Europarl, medical, Wikipedia)", "gsd": "GSD (news, blogs, Wikipedia)"}
TEST_RATIO, DEV_RATIO = 0.6, 0.2  # the other 20 % are unused: a team cannot tell which
RUN = DepRecipe("practice-heads-15", "Demo file: the gold with 15% of heads moved to the root word.", 0.15, 401)
DEV = DepRecipe("practice-dev-check", "Demo file: the development sentences with 20% of heads moved.", 0.20, 402)
RUNS_DIR = "demo-runs"
ZIP_DATE = (2026, 1, 1, 0, 0, 0)  # fixed member dates: the same files give the same archive


def corpus_texts(data: Path | None = None) -> dict[str, str]:
    data = Path(data or settings.DATA_DIR)
    return {name: conllu_head(data / "ud-french" / filename, count) for name, (filename, count) in SLICES.items()}


def _zip(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in members.items():
            zf.writestr(zipfile.ZipInfo(name, ZIP_DATE), text.encode("utf-8"), zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def _blocks(text: str) -> list[str]:
    return text.strip("\n").split("\n\n")


def _sid(block: str) -> str:
    return re.search(r"^# sent_id = (\S+)", block, re.M).group(1)


def practice_files(dev_sids: set[str], data: Path | None = None) -> dict[str, bytes]:
    """The three files of ``data/demo-runs/<slug>/``, given the development sample's sentence ids."""
    texts = corpus_texts(data)
    rng = random.Random(RUN.seed)
    run = {f"{name}.conllu": damage_heads(text, RUN, rng) for name, text in texts.items()}
    broken = dict(run)
    gsd = _blocks(broken["gsd.conllu"])
    del gsd[4]  # the fifth sentence is missing
    broken["gsd.conllu"] = "\n\n".join(gsd) + "\n\n"
    sequoia = _blocks(broken["sequoia.conllu"])
    rows = sequoia[1].split("\n")
    word = next(i for i, r in enumerate(rows) if r.split("\t")[0] == "2")
    cells = rows[word].split("\t")
    cells[1] = cells[1].upper() + "X"  # a word that is not the corpus text's
    rows[word] = "\t".join(cells)
    sequoia[1] = "\n".join(rows)
    broken["sequoia.conllu"] = "\n\n".join(sequoia) + "\n\n"
    rng = random.Random(DEV.seed)
    dev = {}
    for name, text in texts.items():
        kept = [b for b in _blocks(text) if _sid(b) in dev_sids]
        if kept:
            dev[f"dev/{name}.conllu"] = damage_heads("\n\n".join(kept) + "\n\n", DEV, rng)
    return {"run.zip": _zip(run), "invalid-run.zip": _zip(broken), "dev-check.zip": _zip(dev)}


def dev_sids(campaign: Campaign) -> set[str]:
    return set(GoldSentence.objects.filter(sentence__document__campaign=campaign, subset="dev")
               .values_list("sentence__sid", flat=True))


def load_open_demo(organiser, users: dict, team_names: dict[str, str], out) -> Campaign:
    """Build (or complete) the open campaign; ``users`` maps demo user names to users, ``team_names``
    user names to their team's name. Idempotent; an existing campaign's teams and runs are left alone."""
    import tempfile

    campaign, created = Campaign.objects.get_or_create(slug=OPEN_SLUG, defaults={
        "name": NAME, "kind": CampaignKind.DEPENDENCY, "language": "fr", "publication": Publication.CODED,
        "description": (
            "An open campaign to try the platform as a team: upload a run, read its validation report, check "
            "a run on the development sample and see its figures, withdraw a run. Ready-made files are in the "
            f"repository's data/{RUNS_DIR}/{OPEN_SLUG}/. The corpus is the first 40 sentences of the UD "
            "French-Sequoia dev file (LGPL-LR) and of the UD French-GSD test file (CC BY-SA 4.0); only some of "
            "its sentences are scored (a hidden test subset), and a public development sample is marked apart."),
        "corpus_public": True, "dev_sample_public": True, "runs_per_team": 5,
        # open, unlike a real campaign's default: its draw key is public, so there is no test set to probe,
        # and any visitor who signs up may try a team of their own
        "team_admission": TeamAdmission.OPEN,
        "metrics": {"punct": "upos"}})
    campaign.organisers.add(organiser)
    out(f"{'Created' if created else 'Found'} campaign {campaign.name!r} ({campaign.state}).")
    if not campaign.documents.exists():
        with tempfile.TemporaryDirectory(prefix="demo-open-") as tmp:
            paths = []
            for name, text in corpus_texts().items():
                paths.append(Path(tmp) / f"{name}.conllu")
                paths[-1].write_text(text, encoding="utf-8")
            get("dependency").import_corpus(campaign, paths, genres={n: n for n in SLICES}, actor=organiser)
        for genre in campaign.genres.all():
            genre.name = GENRE_NAMES.get(genre.code, genre.name)
            genre.save(update_fields=["name"])
    if campaign.state == CampaignState.DRAFT:
        summary = sample_test_subset(campaign, ratio=TEST_RATIO, dev_ratio=DEV_RATIO, key=DRAW_KEY,
                                     actor=organiser)
        out(f"{campaign.name}: hidden test subset of {summary.totals['test']} sentences, development sample of "
            f"{summary.totals['dev']}.")
        transition(campaign, CampaignState.OPEN, actor=organiser)
        out(f"{campaign.name}: moved to {campaign.state}.")
    if campaign.state == CampaignState.OPEN:
        for username, user in users.items():
            name = team_names.get(username, username)
            if not campaign.teams.filter(members=user).exists() and not campaign.teams.filter(name=name).exists():
                create_team(campaign, user, name=name, affiliation="Demo (try it yourself)")
    return campaign
