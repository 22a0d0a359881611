"""Small constituency and dependency campaigns built from slices of the real treebanks."""
from __future__ import annotations

import pytest

from campaign.models import CampaignKind
from tests import factories
from tests.conftest import DATA, PTB  # noqa: F401  (PTB re-exported for the tests)

UD = DATA / "ud-french"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def conllu_slice(path, count: int) -> str:
    """The first ``count`` sentences of a CoNLL-U file."""
    blocks = path.read_text(encoding="utf-8").strip("\n").split("\n\n")
    return "\n\n".join(blocks[:count]) + "\n\n"


@pytest.fixture
def tree_gold(ptb_sample, tmp_path):
    """Two PTB documents as gold files (genres wsj-00a and wsj-00b)."""
    out = tmp_path / "gold-trees"
    out.mkdir()
    for name in ("wsj_0001", "wsj_0003"):
        (out / f"{name}.mrg").write_bytes((PTB / f"{name}.mrg").read_bytes())
    return sorted(out.iterdir())


@pytest.fixture
def dep_gold(shared_data, tmp_path):
    out = tmp_path / "gold-deps"
    out.mkdir()
    (out / "sequoia.conllu").write_text(conllu_slice(UD / "fr_sequoia-ud-test.conllu", 12), encoding="utf-8")
    (out / "gsd.conllu").write_text(conllu_slice(UD / "fr_gsd-ud-test.conllu", 10), encoding="utf-8")
    return sorted(out.iterdir())


@pytest.fixture
def organiser(db):
    return factories.make_user("org")


@pytest.fixture
def tree_campaign(db, storage, tree_gold, organiser):
    from evaluation.kinds import get

    campaign = factories.make_campaign(slug="trees", kind=CampaignKind.CONSTITUENCY, organisers=[organiser],
                                       metrics={"tree_metrics": ["evalb", "leaf-ancestor"],
                                                "dependency_via_head_rules": True})
    get("constituency").import_corpus(campaign, tree_gold, genres={"wsj_0001": "wsj-00a", "wsj_0003": "wsj-00b"})
    return campaign


@pytest.fixture
def dep_campaign(db, storage, dep_gold, organiser):
    from evaluation.kinds import get

    campaign = factories.make_campaign(slug="deps", kind=CampaignKind.DEPENDENCY, organisers=[organiser])
    get("dependency").import_corpus(campaign, dep_gold, genres={"sequoia": "sequoia", "gsd": "gsd"})
    return campaign
