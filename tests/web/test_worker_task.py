"""The scoring task in process: states, failures, retries, re-scoring."""
from __future__ import annotations

from unittest import mock

import pytest
from django.db import OperationalError

from campaign.models import AuditEntry, RunStatus
from evaluation import services
from evaluation.models import Result
from evaluation.tasks import score_run
from tests.web.helpers import stored_run


@pytest.fixture
def uploaded(campaign, team_a, alice):
    return stored_run(campaign, team_a, alice)  # not committed, so not queued


def test_states_and_progress(uploaded):
    seen = []
    real = type(uploaded).set_status

    def spy(self, status, *args, **kwargs):
        seen.append(status)
        return real(self, status, *args, **kwargs)

    with mock.patch.object(type(uploaded), "set_status", spy):
        assert score_run.apply(args=[uploaded.pk]).get() == "scored"
    assert seen == ["validating", "queued", "scoring", "scored"]
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.SCORED and uploaded.progress == 100
    assert uploaded.results.count() == 1


def test_a_second_delivery_of_a_scored_run_does_nothing(uploaded):
    score_run.apply(args=[uploaded.pk])
    assert score_run.apply(args=[uploaded.pk]).get() == "already scored: duplicate delivery ignored"
    assert Result.objects.filter(run=uploaded).count() == 1


def test_withdrawn_run_is_not_scored(uploaded):
    from django.utils import timezone

    uploaded.withdrawn_at = timezone.now()
    uploaded.save(update_fields=["withdrawn_at"])
    assert score_run.apply(args=[uploaded.pk]).get() == "withdrawn"
    assert not Result.objects.exists()


def test_permanent_error_marks_the_run_failed_with_a_reason(uploaded):
    with mock.patch.object(services, "score_run_files", side_effect=KeyError("boom")):
        assert score_run.apply(args=[uploaded.pk]).get() == "failed"
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED and "KeyError" in uploaded.status_reason
    assert not Result.objects.exists()


def test_failure_while_storing_leaves_no_half_result(uploaded):
    with mock.patch("evaluation.services.ResultCell.objects.bulk_create", side_effect=ValueError("disk full")):
        assert score_run.apply(args=[uploaded.pk]).get() == "failed"
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED
    assert not Result.objects.exists()


def test_task_options_for_lost_workers_and_retries():
    assert score_run.acks_late is True and score_run.reject_on_worker_lost is True
    assert OperationalError in score_run.autoretry_for and ConnectionError in score_run.autoretry_for
    assert score_run.max_retries == 3 and score_run.retry_backoff
    assert score_run.time_limit and score_run.soft_time_limit < score_run.time_limit


def test_transient_error_asks_for_a_retry(uploaded):
    from celery.exceptions import Retry

    with mock.patch.object(services, "validate_run_files", side_effect=OperationalError("connection lost")), \
            mock.patch.object(score_run, "retry", side_effect=Retry("later")) as retry:
        outcome = score_run.apply(args=[uploaded.pk], throw=False)
    assert outcome.state == "RETRY"
    assert isinstance(retry.call_args.kwargs["exc"], OperationalError)
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.VALIDATING  # not failed: the next attempt starts again
    assert not Result.objects.exists()


def test_last_retry_marks_the_run_failed(uploaded):
    with mock.patch.object(services, "validate_run_files", side_effect=OperationalError("connection lost")):
        outcome = score_run.apply(args=[uploaded.pk], retries=3, throw=False)
    assert outcome.failed()
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED and "unavailable" in uploaded.status_reason


def test_eager_failure_does_not_break_the_upload(campaign, team_a, alice, django_capture_on_commit_callbacks):
    with mock.patch("evaluation.tasks.score_run.delay", side_effect=ConnectionError("broker away")):
        run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)
    assert run.status == RunStatus.UPLOADED and "waiting for the scoring queue" in run.status_reason


def test_no_gold_for_a_dev_run(campaign, team_a, alice):
    run = stored_run(campaign, team_a, alice, scope="dev")
    assert score_run.apply(args=[run.pk]).get() == "failed"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "development sample is empty" in run.status_reason


def test_dev_run_scored_against_the_dev_sample(campaign, team_a, alice):
    from annotations.models import GoldSentence

    dev = GoldSentence.objects.filter(sentence__document__name="mail_10").order_by("sentence__position")[:20]
    GoldSentence.objects.filter(pk__in=[g.pk for g in dev]).update(subset="dev")
    run = stored_run(campaign, team_a, alice, scope="dev")
    assert score_run.apply(args=[run.pk]).get() == "scored"
    result = run.results.get()
    assert result.document["counts"]["gold_sentences"] == 20
    assert result.parameters["bootstrap"] == 1000


def test_rescore_adds_a_result(campaign, uploaded, django_capture_on_commit_callbacks):
    score_run.apply(args=[uploaded.pk])
    organiser = campaign.organisers.create(username="orga")
    with django_capture_on_commit_callbacks(execute=True):
        services.rescore(uploaded, organiser)
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.SCORED
    results = list(uploaded.results.order_by("pk"))
    assert len(results) == 2 and results[0].document == results[1].document
    assert services.latest_result(uploaded) == results[1]
    assert AuditEntry.objects.filter(action="run.rescore", actor=organiser).exists()


def test_malformed_guide_schema_fails_clearly(campaign, uploaded):
    from annotations.models import AnnotationGuide, GuideVersion

    guide = AnnotationGuide.objects.create(campaign=campaign, title="Guide")
    GuideVersion.objects.create(guide=guide, version="1", schema={"group_types": "oops"})
    assert score_run.apply(args=[uploaded.pk]).get() == "failed"
    uploaded.refresh_from_db()
    assert "schema" in uploaded.status_reason


def test_guide_schema_is_used_for_validation(campaign, uploaded):
    from annotations.easy import DEFAULT_SCHEMA
    from annotations.models import AnnotationGuide, GuideVersion

    schema = DEFAULT_SCHEMA.to_dict()
    schema["group_types"] = [t for t in schema["group_types"] if t != "GN"]
    guide = AnnotationGuide.objects.create(campaign=campaign, title="Guide")
    GuideVersion.objects.create(guide=guide, version="2", schema=schema)
    assert score_run.apply(args=[uploaded.pk]).get() == "invalid"
    uploaded.refresh_from_db()
    assert any("GN" in p["message"] for p in uploaded.validation_report["problems"])
