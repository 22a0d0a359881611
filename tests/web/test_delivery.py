"""Exactly-once scoring in effect, the outbox and the recovery sweep, in process (the worker faults are in
tests/integration/test_faults.py)."""
from __future__ import annotations

import os
import time
from datetime import timedelta
from unittest import mock

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaign.models import Run, RunStatus
from campaign.services.runs import staging_dir
from evaluation.pipeline import delivery, recovery, services
from evaluation.models import Result
from evaluation.pipeline.tasks import score_run, validate_run
from tests.web.helpers import deliver, stored_run


@pytest.fixture
def uploaded(campaign, team_a, alice):
    return stored_run(campaign, team_a, alice)  # committed in the test's transaction only: never queued


def held_by_another(run: Run, *, silent_for: float) -> None:
    Run.objects.filter(pk=run.pk).update(claimed_by="other-host:1:task:abcd",
                                         heartbeat_at=timezone.now() - timedelta(seconds=silent_for))


def test_the_upload_commits_the_outbox_mark_with_the_run(uploaded):
    assert uploaded.dispatch_pending is True and uploaded.dispatched_at is None


def test_a_second_delivery_is_a_no_op_that_says_so(uploaded):
    assert deliver(uploaded.pk) == "scored"
    assert deliver(uploaded.pk) == "already scored: duplicate delivery ignored"
    assert Result.objects.filter(run=uploaded).count() == 1


def test_a_delivery_finding_a_live_holder_leaves_the_run_alone(uploaded, settings):
    settings.PARSEVAL_SCORING_LEASE_SECONDS = 60
    held_by_another(uploaded, silent_for=5)
    with pytest.raises(delivery.HeldElsewhere) as refused:
        delivery.claim(uploaded.pk, "me")
    # heartbeat 5 s old, lease 60 s: the holder may still be alive for 55 s more; look again just after
    assert 55 < refused.value.retry_in <= 56
    assert "duplicate delivery ignored" in str(refused.value)
    # in process there is nobody to wait for: the task says so and does nothing
    assert "being scored by other-host" in deliver(uploaded.pk)
    assert not Result.objects.exists()


def test_a_silent_holder_is_taken_over(uploaded, settings):
    settings.PARSEVAL_SCORING_LEASE_SECONDS = 60
    held_by_another(uploaded, silent_for=61)
    held = delivery.claim(uploaded.pk, "me")
    uploaded.refresh_from_db()
    assert (held.token, uploaded.claimed_by, uploaded.scoring_attempts) == ("me", "me", 1)
    assert uploaded.dispatch_pending is False


def test_after_too_many_interrupted_deliveries_the_run_fails(uploaded, settings):
    settings.PARSEVAL_MAX_SCORING_ATTEMPTS = 3
    Run.objects.filter(pk=uploaded.pk).update(scoring_attempts=3, status=RunStatus.SCORING)
    assert score_run.apply(args=[uploaded.pk]).get() == "failed"
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.FAILED and "interrupted 3 times" in uploaded.status_reason


def test_a_delivery_that_lost_its_claim_stores_nothing(uploaded):
    """The claim is lost mid-scoring (another delivery took over): the late result is refused."""
    real_score = services.score_run_files

    def score_then_lose_the_claim(*args, **kwargs):
        document = real_score(*args, **kwargs)
        Run.objects.filter(pk=uploaded.pk).update(claimed_by="the-new-holder", heartbeat_at=timezone.now())
        return document

    with mock.patch.object(services, "score_run_files", score_then_lose_the_claim):
        assert deliver(uploaded.pk) == delivery.DUPLICATE
    assert not Result.objects.exists()
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.SCORING and uploaded.claimed_by == "the-new-holder"


def test_the_database_allows_one_result_per_run_round_and_scorer_version(uploaded):
    deliver(uploaded.pk)
    first = Result.objects.get(run=uploaded)
    with pytest.raises(IntegrityError), transaction.atomic():
        Result.objects.create(run=uploaded, metric=first.metric, signature="x", scorer_version=first.scorer_version,
                              gold_sha256="", document={}, scoring_round=first.scoring_round)
    # another scorer version in the same round is a different result
    Result.objects.create(run=uploaded, metric=first.metric, signature="x", scorer_version="other",
                          gold_sha256="", document={}, scoring_round=first.scoring_round)


def test_rescoring_opens_a_new_round(campaign, uploaded, django_capture_on_commit_callbacks):
    from tests import factories

    deliver(uploaded.pk)
    with django_capture_on_commit_callbacks(execute=True):
        services.rescore(uploaded, factories.make_user("organiser"))
    rounds = sorted(Result.objects.filter(run=uploaded).values_list("scoring_round", flat=True))
    assert rounds == [1, 2]
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.SCORED and uploaded.scoring_round == 2 and not uploaded.dispatch_pending


def test_an_upload_while_the_broker_is_down_is_kept_and_queued_by_the_sweep(campaign, team_a, alice,
                                                                             django_capture_on_commit_callbacks):
    with mock.patch.object(validate_run, "delay", side_effect=OSError("broker away")):
        run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)
    assert run.status == RunStatus.UPLOADED and run.dispatch_pending
    assert "waiting for the scoring queue" in run.status_reason
    # Not yet: the upload's own dispatch has its grace period.
    assert run not in recovery.runs_to_dispatch()
    later = timezone.now() + timedelta(seconds=60)
    assert run in recovery.runs_to_dispatch(now=later)
    with mock.patch.object(recovery, "timezone") as clock:
        clock.now.return_value = later
        outcome = recovery.dispatch_due()
    assert outcome == {"queued": 1, "not_queued": 0}
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED and not run.dispatch_pending and run.results.count() == 1


def test_the_sweep_requeues_silent_holders_and_lost_messages_only(campaign, team_a, alice, settings):
    settings.PARSEVAL_SCORING_LEASE_SECONDS = 60
    settings.PARSEVAL_REQUEUE_UPLOADED_AFTER_SECONDS = 360
    campaign.runs_per_team = 10
    campaign.save(update_fields=["runs_per_team"])
    now = timezone.now()
    runs = {name: stored_run(campaign, team_a, alice, name=name) for name in
            ("silent", "beating", "lost", "waiting", "scored")}
    Run.objects.filter(pk__in=[r.pk for r in runs.values()]).update(dispatch_pending=False, dispatched_at=now)
    Run.objects.filter(pk=runs["silent"].pk).update(status=RunStatus.SCORING, claimed_by="a",
                                                    heartbeat_at=now - timedelta(seconds=61))
    Run.objects.filter(pk=runs["beating"].pk).update(status=RunStatus.SCORING, claimed_by="b",
                                                     heartbeat_at=now - timedelta(seconds=10))
    Run.objects.filter(pk=runs["lost"].pk).update(dispatched_at=now - timedelta(seconds=361))
    Run.objects.filter(pk=runs["waiting"].pk).update(dispatched_at=now - timedelta(seconds=300))
    Run.objects.filter(pk=runs["scored"].pk).update(status=RunStatus.SCORED, claimed_by="c",
                                                    heartbeat_at=now - timedelta(seconds=600))
    due = set(recovery.runs_to_dispatch(now=now).values_list("name", flat=True))
    assert due == {"silent", "lost"}


def test_the_sweep_requeues_a_run_past_the_hard_time_limit(uploaded, settings):
    settings.CELERY_TASK_TIME_LIMIT = 3600
    settings.PARSEVAL_SCORING_LEASE_SECONDS = 60
    now = timezone.now()
    Run.objects.filter(pk=uploaded.pk).update(status=RunStatus.SCORING, claimed_by="stuck", heartbeat_at=now,
                                              dispatch_pending=False,
                                              status_changed_at=now - timedelta(seconds=3600 + 61))
    assert list(recovery.runs_to_dispatch(now=now)) == [uploaded]


def test_staging_cleanup_removes_what_dead_workers_left_only(storage):
    root = staging_dir()
    dead = root / "run-unpack-dead"
    dead.mkdir()
    (dead / "a.xml").write_text("<x/>")
    old = time.time() - 4000
    os.utime(dead, (old, old))
    stale_upload = root / "run-old.upload"
    stale_upload.write_bytes(b"zip")
    os.utime(stale_upload, (old, old))
    live = root / "run-unpack-live"
    live.mkdir()
    assert recovery.clean_staging(max_age_seconds=3900) == 2
    assert sorted(p.name for p in root.iterdir()) == ["run-unpack-live"]


def test_a_holder_that_lost_its_claim_writes_nothing(uploaded):
    """Paused past its lease and taken over: every later write of the old holder is refused under the lock."""
    old = delivery.claim(uploaded.pk, "old-holder")
    delivery.write(old, status=RunStatus.VALIDATING, progress=10)
    Run.objects.filter(pk=uploaded.pk).update(claimed_by="new-holder", scoring_attempts=2)  # the takeover
    for write in ({"status": RunStatus.FAILED, "reason": "interrupted"}, {"progress": 90},
                  {"validation_report": {"valid": True}}, {"status": RunStatus.QUEUED, "scoring_attempts": 0}):
        with pytest.raises(delivery.LostClaim):
            delivery.write(old, **write)
    token = delivery._current.set(old)
    try:
        services.ThrottledProgress(uploaded.pk)(1, 1)  # progress goes through the same fence
        assert services.store_result(uploaded, {"signature": "s", "scorer_version": "v"}, metric="easy") is None
    finally:
        delivery._current.reset(token)
    delivery.release(old, attempt_used=False)  # nor does its release touch the new holder's claim or attempts
    uploaded.refresh_from_db()
    assert (uploaded.status, uploaded.progress, uploaded.validation_report) == (RunStatus.VALIDATING, 10, {})
    assert (uploaded.claimed_by, uploaded.scoring_attempts) == ("new-holder", 2)
    assert not Result.objects.exists()


def test_a_run_holding_its_rounds_result_is_scored_never_failed(uploaded, settings):
    """What a stale writer used to leave: a result of the current round under a working status, attempts used up.
    The next claim (a sweep's re-queue) marks it scored instead of failing it."""
    settings.PARSEVAL_MAX_SCORING_ATTEMPTS = 3
    assert deliver(uploaded.pk) == "scored"
    Run.objects.filter(pk=uploaded.pk).update(status=RunStatus.SCORING, scoring_attempts=3, claimed_by="",
                                              status_changed_at=timezone.now() - timedelta(hours=2))
    assert uploaded in recovery.runs_to_dispatch()
    assert score_run.apply(args=[uploaded.pk]).get() == "already scored: duplicate delivery ignored"
    uploaded.refresh_from_db()
    assert uploaded.status == RunStatus.SCORED and Result.objects.filter(run=uploaded).count() == 1


def test_validation_hands_a_test_run_to_the_scoring_queue_and_a_dev_check_is_scored_on_its_own(
        campaign, team_a, alice, django_capture_on_commit_callbacks):
    from annotations.models import GoldSentence
    from config.celery import app

    dev = GoldSentence.objects.filter(sentence__document__name="mail_10").order_by("sentence__position")[:20]
    GoldSentence.objects.filter(pk__in=[g.pk for g in dev]).update(subset="dev")
    campaign.runs_per_team = 10
    campaign.save(update_fields=["runs_per_team"])
    sent = []
    with mock.patch.object(type(app.tasks["evaluation.tasks.score_run"]), "delay",
                           side_effect=lambda *a: sent.append(("score_run", a)) or mock.Mock(id="t")):
        test_run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)
        dev_run = stored_run(campaign, team_a, alice, scope="dev", capture=django_capture_on_commit_callbacks)
    test_run.refresh_from_db()
    dev_run.refresh_from_db()
    # the test run waits, valid, for the scoring queue; its outbox mark is cleared once the task is sent
    assert test_run.status == RunStatus.QUEUED and test_run.validation_report["valid"]
    assert not test_run.dispatch_pending and test_run.scoring_attempts == 0 and test_run.claimed_by == ""
    assert sent == [("score_run", (test_run.pk,))]
    # the development check never went to the scoring queue
    assert dev_run.status == RunStatus.SCORED and dev_run.results.count() == 1
    from campaign import kinds
    from config import queues

    assert queues.route(kinds.VALIDATE_RUN_TASK, (), {}, {}) == {"queue": "validation"}
    assert queues.route(kinds.SCORE_RUN_TASK, (), {}, {}) == {"queue": "scoring"}
    assert queues.route(kinds.SIGNIFICANCE_TASK, (), {}, {}) == {"queue": "significance"}
