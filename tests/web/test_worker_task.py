"""The scoring task in process: states, failures, retries, re-scoring."""
from __future__ import annotations

from unittest import mock

import pytest
from django.db import OperationalError

from campaign.models import AuditEntry, RunStatus
from evaluation.pipeline import services
from evaluation.models import Result
from evaluation.pipeline.tasks import score_run, validate_run
from tests.web.helpers import deliver, stored_run


@pytest.fixture
def uploaded(campaign, team_a, alice):
    return stored_run(campaign, team_a, alice)  # not committed, so not queued


def test_states_and_progress(uploaded):
    from evaluation.pipeline import delivery

    seen = []
    real_write, real_set = delivery.write, type(uploaded).set_status

    def spy_write(held, *, status=None, **kwargs):
        if status:
            seen.append(status)
        return real_write(held, status=status, **kwargs)

    def spy_set(self, status, *args, **kwargs):  # the scored status is written with the result
        seen.append(status)
        return real_set(self, status, *args, **kwargs)

    with mock.patch.object(delivery, "write", spy_write), mock.patch.object(type(uploaded), "set_status", spy_set):
        assert deliver(uploaded.pk) == "scored"
    assert seen == ["validating", "queued", "scoring", "scored"]
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.SCORED and uploaded.progress == 100
    assert uploaded.results.count() == 1


def test_a_second_delivery_of_a_scored_run_does_nothing(uploaded):
    deliver(uploaded.pk)
    assert deliver(uploaded.pk) == "already scored: duplicate delivery ignored"
    assert Result.objects.filter(run=uploaded).count() == 1


def test_withdrawn_run_is_not_scored(uploaded):
    from django.utils import timezone

    uploaded.withdrawn_at = timezone.now()
    uploaded.save(update_fields=["withdrawn_at"])
    assert deliver(uploaded.pk) == "withdrawn"
    assert not Result.objects.exists()


def test_permanent_error_marks_the_run_failed_with_a_reason(uploaded):
    with mock.patch.object(services, "score_run_files", side_effect=KeyError("boom")):
        assert deliver(uploaded.pk) == "failed"
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED and "KeyError" in uploaded.status_reason
    assert not Result.objects.exists()


def test_failure_while_storing_leaves_no_half_result(uploaded):
    with mock.patch("evaluation.pipeline.services.ResultCell.objects.bulk_create", side_effect=ValueError("disk full")):
        assert deliver(uploaded.pk) == "failed"
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED
    assert not Result.objects.exists()


def test_task_options_for_lost_workers_and_retries():
    for task in (validate_run, score_run):
        assert task.acks_late is True and task.reject_on_worker_lost is True
        assert OperationalError in task.autoretry_for and OSError in task.autoretry_for  # database, broker, files
        assert task.max_retries == 6 and task.retry_backoff == 5 and task.retry_backoff_max == 120
        assert task.time_limit and task.soft_time_limit < task.time_limit


def test_transient_error_asks_for_a_retry(uploaded):
    from celery.exceptions import Retry

    with mock.patch.object(services, "validate_run_files", side_effect=OperationalError("connection lost")), \
            mock.patch.object(validate_run, "retry", side_effect=Retry("later")) as retry:
        outcome = validate_run.apply(args=[uploaded.pk], throw=False)
    assert outcome.state == "RETRY"
    assert isinstance(retry.call_args.kwargs["exc"], OperationalError)
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.VALIDATING  # not failed: the next attempt starts again
    assert not Result.objects.exists()


def test_last_retry_marks_the_run_failed_as_a_fault_of_the_system(uploaded):
    with mock.patch.object(services, "validate_run_files", side_effect=OperationalError("connection lost")):
        outcome = validate_run.apply(args=[uploaded.pk], retries=6, throw=False)
    assert outcome.failed()
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED
    # 5 + 10 + 20 + 40 + 80 + 120 s of back-off at most, and not the run's fault
    assert uploaded.status_reason.startswith("not caused by the run: a system fault (OperationalError)")
    assert "6 retries over about 275 s" in uploaded.status_reason


def test_a_retried_fault_does_not_count_as_an_interrupted_attempt(uploaded):
    from celery.exceptions import Retry

    with mock.patch.object(services, "validate_run_files", side_effect=PermissionError(13, "Permission denied")), \
            mock.patch.object(validate_run, "retry", side_effect=Retry("later")):
        assert validate_run.apply(args=[uploaded.pk], throw=False).state == "RETRY"
    uploaded.refresh_from_db()
    assert uploaded.scoring_attempts == 0 and uploaded.claimed_by == ""


def test_a_run_that_breaks_the_scorer_is_named_as_the_cause_only_when_it_is(uploaded, settings):
    from celery.exceptions import SoftTimeLimitExceeded

    with mock.patch.object(services, "score_run_files", side_effect=SoftTimeLimitExceeded()):
        assert deliver(uploaded.pk) == "failed"
    uploaded.refresh_from_db()
    assert uploaded.status_reason.startswith("caused by the run: it took longer than")


def test_eager_failure_does_not_break_the_upload(campaign, team_a, alice, django_capture_on_commit_callbacks):
    with mock.patch("evaluation.pipeline.tasks.validate_run.delay", side_effect=ConnectionError("broker away")):
        run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)
    assert run.status == RunStatus.UPLOADED and "waiting for the scoring queue" in run.status_reason


def test_no_gold_for_a_dev_run(campaign, team_a, alice):
    run = stored_run(campaign, team_a, alice, scope="dev")
    assert deliver(run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "development sample is empty" in run.status_reason


def test_dev_run_scored_against_the_dev_sample(campaign, team_a, alice):
    from annotations.models import GoldSentence

    dev = GoldSentence.objects.filter(sentence__document__name="mail_10").order_by("sentence__position")[:20]
    GoldSentence.objects.filter(pk__in=[g.pk for g in dev]).update(subset="dev")
    run = stored_run(campaign, team_a, alice, scope="dev")
    assert deliver(run.pk) == "scored"
    result = run.results.get()
    assert result.document["counts"]["gold_sentences"] == 20
    assert result.parameters["bootstrap"] == 1000


def test_rescore_adds_a_result(campaign, uploaded, django_capture_on_commit_callbacks):
    deliver(uploaded.pk)
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
    assert deliver(uploaded.pk) == "failed"
    uploaded.refresh_from_db()
    assert "schema" in uploaded.status_reason


def test_guide_schema_is_used_for_validation(campaign, uploaded):
    from parseval.annotations.easy import DEFAULT_SCHEMA
    from annotations.models import AnnotationGuide, GuideVersion

    schema = DEFAULT_SCHEMA.to_dict()
    schema["group_types"] = [t for t in schema["group_types"] if t != "GN"]
    guide = AnnotationGuide.objects.create(campaign=campaign, title="Guide")
    GuideVersion.objects.create(guide=guide, version="2", schema=schema)
    assert deliver(uploaded.pk) == "invalid"
    uploaded.refresh_from_db()
    assert any("GN" in p["message"] for p in uploaded.validation_report["problems"])
