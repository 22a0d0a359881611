"""EASY's stored gold index: built by the first scoring, beside the gold, loaded by every later one instead of the
XML; the same checksum and result as reading the XML; a new gold gets a new index; two writers or a half-written
file never corrupt what is read."""
from __future__ import annotations

import io
from unittest import mock

import pytest

from annotations.models import GoldDocument
from campaign.models import CampaignState, Sentence
from campaign.subsets import mark_subset
from parseval.evaluation.easy.gold_index import index_key
from parseval.evaluation.easy.scoring import score_corpus
from evaluation.kinds.easy import gold as easy_gold
from evaluation.kinds.easy.options import campaign_schema
from parseval.evaluation.version import SCORER_VERSION
from tests import factories
from tests.web.helpers import stored_run


@pytest.fixture
def campaign(db, storage):
    return factories.make_easy_campaign(metrics={"bootstrap": 20})


def _run(campaign, user, scope="test"):
    team = factories.make_team(campaign, user)
    return stored_run(campaign, team, user, factories.gold_run_zip(), "run.zip", scope=scope)


def _index_files(campaign):
    storage = GoldDocument.objects.filter(document__campaign=campaign).first().file.storage
    _, files = storage.listdir(f"{campaign.slug}/index")
    return sorted(files)


def _score(gold_docs, genres, checksum):
    runs = {name.removesuffix(".xml"): io.BytesIO(factories.gold_bytes(name)) for name in factories.SMALL_EASY_FILES}
    return score_corpus(gold_docs, {k: v for k, v in runs.items() if k in gold_docs}, genres, bootstrap=20,
                        gold_sha256=checksum)


def test_first_scoring_stores_the_index_and_the_next_reads_no_xml(campaign, alice):
    run = _run(campaign, alice)
    schema = campaign_schema(campaign)
    parse = mock.patch.object(easy_gold, "read_document", wraps=easy_gold.read_document)
    with parse as first:
        loaders, genres, checksum, count = easy_gold.scoring_gold(run, schema)
        result = _score(loaders, genres, checksum)
    assert first.call_count == len(factories.SMALL_EASY_FILES)  # each gold file parsed once, then stored
    assert len(_index_files(campaign)) == len(factories.SMALL_EASY_FILES)
    with parse as again:
        loaders, genres2, checksum2, count2 = easy_gold.scoring_gold(run, schema)
        assert _score(loaders, genres2, checksum2) == result
    assert again.call_count == 0
    # the same checksum, count and document as reading the XML of the run's subset
    docs, genres3, checksum3, count3 = easy_gold.load_gold(run, schema)
    assert (checksum2, count2, genres2) == (checksum3, count3, genres3) == (checksum, count, genres)
    assert _score(docs, genres3, checksum3) == result
    assert result["counts"]["gold_sentences"] == count > 0 and result["warnings"]


def test_a_partial_subset_has_the_checksum_of_its_sentences(campaign, alice):
    chosen = list(Sentence.objects.filter(document__campaign=campaign).order_by("document__name", "position")[::4])
    campaign.state = CampaignState.DRAFT
    campaign.save()
    mark_subset(campaign, "dev", sentences=chosen)
    campaign.state = CampaignState.OPEN
    campaign.dev_sample_public = True
    campaign.save()
    run = _run(campaign, alice, scope="dev")
    schema = campaign_schema(campaign)
    loaders, genres, checksum, count = easy_gold.scoring_gold(run, schema)
    docs, _, xml_checksum, xml_count = easy_gold.load_gold(run, schema)
    assert (checksum, count) == (xml_checksum, xml_count) and count == len(chosen)
    assert _score(loaders, genres, checksum) == _score(docs, genres, xml_checksum)


def test_a_new_gold_gets_a_new_index(campaign, alice):
    run = _run(campaign, alice)
    schema = campaign_schema(campaign)
    easy_gold.scoring_gold(run, schema)
    before = _index_files(campaign)
    gold = GoldDocument.objects.filter(document__campaign=campaign).order_by("document__name").first()
    gold.sha256 = "f" * 64  # what a new import of that document records
    gold.save()
    with mock.patch.object(easy_gold, "read_document", wraps=easy_gold.read_document) as parse:
        easy_gold.scoring_gold(run, schema)
    assert parse.call_count == 1
    after = _index_files(campaign)
    assert len(after) == len(before) + 1
    assert easy_gold.index_name(gold, index_key(gold.sha256, schema, SCORER_VERSION)).rsplit("/", 1)[1] in after


def test_two_writers_and_a_half_written_index(campaign, alice):
    run = _run(campaign, alice)
    schema = campaign_schema(campaign)
    gold = GoldDocument.objects.filter(document__campaign=campaign).order_by("document__name").first()
    key = index_key(gold.sha256, schema, SCORER_VERSION)
    name = easy_gold.index_name(gold, key)
    data = easy_gold._build(gold, schema, key).to_bytes()
    easy_gold._store(gold.file.storage, name, data)
    easy_gold._store(gold.file.storage, name, data)  # a second worker that built it at the same time
    assert _index_files(campaign) == [name.rsplit("/", 1)[1]]
    expected = _score(*easy_gold.scoring_gold(run, schema)[:3])
    gold.file.storage.delete(name)
    gold.file.storage.save(name, io.BytesIO(data[:len(data) // 2]))  # caught while another worker writes it
    with mock.patch.object(easy_gold, "read_document", wraps=easy_gold.read_document) as parse:
        assert _score(*easy_gold.scoring_gold(run, schema)[:3]) == expected
    assert parse.call_count == 2  # read from the XML (checksum pass and scoring), the partial file left alone
    with gold.file.storage.open(name, "rb") as fh:
        assert len(fh.read()) == len(data) // 2


def test_a_scored_run_through_the_worker_stores_the_index(campaign, alice):
    from tests.web.helpers import deliver

    run = _run(campaign, alice)
    assert deliver(run.pk) == "scored"
    assert len(_index_files(campaign)) == len(factories.SMALL_EASY_FILES)
