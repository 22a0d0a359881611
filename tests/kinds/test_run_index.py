"""The run index through the pipeline: validation stores it beside the run's file, scoring and the paired tests'
rows read it instead of the run's files, with the same result and rows as a run scored without it; a
damaged index is not used."""
from __future__ import annotations

import io
import json
from unittest import mock

import numpy as np
import pytest

from campaign.models import RunStatus
from evaluation.kinds.easy import run_index
from evaluation.kinds.easy.options import campaign_schema
from evaluation.kinds.easy.rows import easy_rows
from evaluation.pipeline.services import latest_result
from parseval.evaluation.easy import scoring as easy_scoring
from tests import factories
from tests.web.helpers import deliver, stored_run


@pytest.fixture
def campaign(db, storage):
    return factories.make_easy_campaign(metrics={"bootstrap": 20}, runs_per_team=10)


def _index_name(run):
    return run_index.index_name(run, run_index.key_of(run, campaign_schema(run.campaign)))


def _delivered(campaign, team, user, name, *, drop_index=False, damage_index=False):
    run = stored_run(campaign, team, user, factories.gold_run_zip(), "run.zip", name=name)
    with mock.patch("evaluation.pipeline.tasks.enqueue_scoring"):
        from evaluation.pipeline.tasks import validate_run
        assert validate_run.apply(args=[run.pk]).get() == "queued"
    storage = run.file.storage
    name = _index_name(run)
    assert storage.exists(name)
    if drop_index:
        storage.delete(name)
    if damage_index:
        with storage.open(name, "rb") as fh:
            data = fh.read()
        storage.delete(name)
        storage.save(name, io.BytesIO(data[: len(data) // 3]))
    from evaluation.pipeline.tasks import score_run
    assert score_run.apply(args=[run.pk]).get() == "scored"
    run.refresh_from_db()
    return run


def _same(a, b) -> None:
    da, db = (json.loads(json.dumps(latest_result(r).document, sort_keys=True)) for r in (a, b))
    assert da == db
    (ka, ga, ra), (kb, gb, rb) = easy_rows(latest_result(a), campaign_schema(a.campaign)), \
        easy_rows(latest_result(b), campaign_schema(b.campaign))
    assert ka == kb and ga == gb and np.array_equal(ra, rb)


def test_validation_stores_the_index_and_scoring_reads_it_not_the_run(campaign, alice):
    team = factories.make_team(campaign, alice)
    # in a campaign of its own: its rows, computed for the paired tests of its campaign, are read from its file
    other = factories.make_easy_campaign(metrics={"bootstrap": 20})
    without = _delivered(other, factories.make_team(other, alice), alice, "without the index", drop_index=True)
    real_iter = easy_scoring.iter_sentences
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return real_iter(*args, **kwargs)

    with mock.patch.object(easy_scoring, "iter_sentences", side_effect=counted):
        indexed = _delivered(campaign, team, alice, "with the index")
        assert calls == []  # scoring read the index, not the run's files
        rows = easy_rows(latest_result(indexed), campaign_schema(campaign))
        assert calls == [] and len(rows[0]) > 0  # and so did the paired tests' rows
    assert indexed.status == without.status == RunStatus.SCORED
    _same(indexed, without)


def test_a_damaged_index_is_not_used(campaign, alice):
    team = factories.make_team(campaign, alice)
    damaged = _delivered(campaign, team, alice, "damaged index", damage_index=True)
    plain = _delivered(campaign, team, alice, "no index", drop_index=True)
    assert damaged.status == RunStatus.SCORED
    _same(damaged, plain)


def test_an_invalid_run_gets_no_index_and_its_report_is_unchanged(campaign, alice):
    from tests.web.helpers import with_wrong_form

    team = factories.make_team(campaign, alice)
    data = factories.zip_of({"general_elda.xml": with_wrong_form("general_elda.xml", "E1", "E1F1", "Xx"),
                             **{n: factories.gold_bytes(n) for n in factories.SMALL_EASY_FILES[1:]}})
    run = stored_run(campaign, team, alice, data, "run.zip")
    assert deliver(run.pk) == "invalid"
    run.refresh_from_db()
    problems = run.validation_report["problems"]
    assert [(p["file"], p["sentence"], p["element"]) for p in problems] == [("general_elda.xml", "E1", "E1F1")]
    assert not run.file.storage.exists(_index_name(run))


def test_the_corpus_text_is_read_once_per_process_for_every_run(campaign, alice):
    from evaluation.kinds.easy import validation

    validation._corpus_forms.clear()
    team = factories.make_team(campaign, alice)
    with mock.patch.object(validation, "read_document", wraps=validation.read_document) as read:
        for name in ("first", "second"):
            run = stored_run(campaign, team, alice, factories.gold_run_zip(), "run.zip", name=name)
            with mock.patch("evaluation.pipeline.tasks.enqueue_scoring"):
                from evaluation.pipeline.tasks import validate_run
                assert validate_run.apply(args=[run.pk]).get() == "queued"
    assert read.call_count == len(factories.SMALL_EASY_FILES)  # the second run's validation read none
    run.refresh_from_db()
    assert run.validation_report["valid"] and run.validation_report["sentences"] > 0
