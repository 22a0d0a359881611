"""Small constituency and dependency campaigns built from slices of the real treebanks."""
from __future__ import annotations

import pytest

from campaign.models import CampaignKind
from tests import factories
from tests.conftest import DATA, sequoia_trees

UD = DATA / "ud-french"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def conllu_slice(path, count: int) -> str:
    """The first ``count`` sentences of a CoNLL-U file."""
    blocks = path.read_text(encoding="utf-8").strip("\n").split("\n\n")
    return "\n\n".join(blocks[:count]) + "\n\n"


@pytest.fixture
def tree_gold(shared_data, tmp_path):
    """Two documents of Sequoia trees as gold files: annodis.mrg (6 newspaper sentences, genre news)
    and frwiki.mrg (30 Wikipedia sentences, genre wiki)."""
    out = tmp_path / "gold-trees"
    out.mkdir()
    for name, count in GOLD_TREES.items():
        (out / f"{name}.mrg").write_text(sequoia_trees(name, count), encoding="utf-8")
    return sorted(out.iterdir())


GOLD_TREES = {"annodis": 6, "frwiki": 30}
TREE_GENRES = {"annodis": "news", "frwiki": "wiki"}


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
    get("constituency").import_corpus(campaign, tree_gold, genres=TREE_GENRES)
    return campaign


@pytest.fixture
def dep_campaign(db, storage, dep_gold, organiser):
    from evaluation.kinds import get

    campaign = factories.make_campaign(slug="deps", kind=CampaignKind.DEPENDENCY, organisers=[organiser])
    get("dependency").import_corpus(campaign, dep_gold, genres={"sequoia": "sequoia", "gsd": "gsd"})
    return campaign


def gold_bytes(name: str) -> bytes:
    """The bytes of one ``tree_gold`` file, for tests that upload it."""
    return sequoia_trees(name, GOLD_TREES[name]).encode("utf-8")
