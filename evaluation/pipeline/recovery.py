"""The periodic recovery sweep (Celery beat): no run waits forever, no unpack folder stays behind.

Each sweep

1. queues the runs whose outbox mark is still set (the upload, or the validation
   that found a test run valid, committed but the broker was away, or the process
   died between commit and dispatch);
2. queues again the runs a delivery holds without a heartbeat for the lease (its
   worker died) or that have sat in validating/scoring past the task's hard time
   limit, and the runs still ``uploaded`` or ``queued`` whose message was queued
   longer ago than the visibility timeout (a Redis that lost its data, a message
   dropped);
3. removes the unpack folders and staged uploads under ``media/.staging/`` older
   than the task's hard time limit: no live task or upload can still use them;
4. asks again for the campaign-wide computations (the paired significance tests, the
   consensus) that the database says are owed, when their queue holds nothing: a request
   counted (``requested``) more than the outbox grace ago and not covered by a finished
   computation (``computed``), whose message went with a broker that lost its data or was
   never sent. It sends the request's own number again, not a new one, so coalescing
   (:class:`~evaluation.models.CoalescedRequest`) makes it a no-op if the first message
   turns up after all, or if a computation already running covers it.

Each run goes to the queue of its next step (:func:`campaign.services.runs.next_task`):
validation for ``uploaded``/``validating`` runs and development checks, scoring for
``queued``/``scoring`` test runs. Queuing twice is safe: a second delivery is a no-op
(:mod:`evaluation.pipeline.delivery`). The sweep never writes a run's status itself; a run that
holds a result of its current round is marked scored by the next claim, never failed.
"""
from __future__ import annotations

import logging
import shutil
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from campaign import kinds
from campaign.models import Run, RunStatus
from campaign.services.runs import enqueue_scoring, staging_dir
from config import queues
from evaluation.pipeline.delivery import WORKING, lease
from evaluation.models import ConsensusSetting, SignificanceRequest

logger = logging.getLogger(__name__)

# A delivery works on these; ``queued`` is a valid test run waiting for the scoring queue, like ``uploaded``
# waits for the validation queue (how long it waits is no sign of a dead worker).
IN_PROGRESS = (RunStatus.VALIDATING, RunStatus.SCORING)
WAITING = (RunStatus.UPLOADED, RunStatus.QUEUED)


def outbox_grace() -> timedelta:
    # The upload's own after-commit dispatch normally clears the mark within a second.
    return timedelta(seconds=settings.PARSEVAL_OUTBOX_GRACE_SECONDS)


def runs_to_dispatch(now=None):
    now = now or timezone.now()
    active = Run.objects.filter(status__in=WORKING, withdrawn_at__isnull=True)
    pending = Q(dispatch_pending=True, status_changed_at__lt=now - outbox_grace())
    silent_holder = Q(claimed_by__gt="", heartbeat_at__lt=now - lease())  # its worker died
    lapsed = Q(status__in=IN_PROGRESS) & (
        Q(claimed_by="", status_changed_at__lt=now - lease())  # released by a delivery that then vanished
        | Q(status_changed_at__lt=now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT) - lease()))
    lost = Q(status__in=WAITING, dispatch_pending=False, claimed_by="",
             dispatched_at__lt=now - timedelta(seconds=settings.PARSEVAL_REQUEUE_UPLOADED_AFTER_SECONDS))
    return active.filter(pending | silent_holder | lapsed | lost).order_by("uploaded_at")


def dispatch_due(limit: int = 500) -> dict:
    queued = failed = 0
    for run_id in list(runs_to_dispatch().values_list("pk", flat=True)[:limit]):
        # Mark first: if queuing fails, the next sweep tries again.
        Run.objects.filter(pk=run_id).update(dispatch_pending=True)
        if enqueue_scoring(run_id):
            queued += 1
        else:
            failed += 1
            break  # the broker is away: the next sweep tries the rest
    return {"queued": queued, "not_queued": failed}


def clean_staging(max_age_seconds: float | None = None) -> int:
    """Remove staging entries older than the bound; returns how many."""
    if max_age_seconds is None:
        max_age_seconds = settings.PARSEVAL_STAGING_MAX_AGE_SECONDS
    root = staging_dir()
    cutoff = time.time() - max_age_seconds
    removed = 0
    for entry in root.iterdir():
        try:
            if entry.lstat().st_mtime >= cutoff:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed += 1
        except FileNotFoundError:  # removed by its owner meanwhile
            continue
    return removed


# The campaign-wide computations whose requests are counted in the database: marker model, task.
COALESCED = ((SignificanceRequest, kinds.SIGNIFICANCE_TASK), (ConsensusSetting, kinds.CONSENSUS_TASK))


def uncovered(model, now=None):
    """The markers of ``model`` whose newest request no finished computation covers, asked before the grace."""
    now = now or timezone.now()
    markers = model.objects.filter(computed__lt=F("requested"), requested_at__lt=now - outbox_grace())
    if model is ConsensusSetting:
        markers = markers.filter(enabled=True)
    return markers.order_by("requested_at")


def waiting_messages(queue: str) -> int | None:
    """How many messages wait in the broker's ``queue``; ``None`` if the broker cannot say (it is away)."""
    from celery import current_app
    from kombu.exceptions import ChannelError

    if current_app.conf.task_always_eager:
        return 0  # tasks run in process: nothing ever waits
    try:
        with current_app.connection_for_write() as connection:
            channel = connection.default_channel
            try:
                return channel.queue_declare(queue=queue, passive=True).message_count
            except ChannelError:  # not declared (a broker that lost its data): nothing in it
                return 0
    except Exception:
        return None


def reask_uncovered() -> int:
    """Send again each owed campaign-wide request whose queue is empty; how many were sent."""
    sent = 0
    for model, task in COALESCED:
        markers = list(uncovered(model).values_list("campaign_id", "requested"))
        if not markers:
            continue
        if waiting_messages(queues.queue_name(queues.ROUTES[task])) != 0:
            continue  # queued work (or a broker that cannot say): what waits will run, or the next sweep looks again
        for campaign_id, requested in markers:
            try:
                kinds.enqueue(task, campaign_id, requested=requested)
            except Exception:
                logger.warning("could not ask again for %s of campaign %s", task, campaign_id, exc_info=True)
                return sent
            sent += 1
    return sent


# The sweep has the periodic worker to itself (config/queues.py); a sweep that hung (a database that stopped
# answering mid-query) is ended well before it could hold up many of the next ones.
SWEEP_TIME_LIMIT = 300


@shared_task(name="evaluation.recover_runs", ignore_result=True, time_limit=SWEEP_TIME_LIMIT,
             soft_time_limit=SWEEP_TIME_LIMIT - 30)
def recover_runs() -> dict:
    outcome = dispatch_due()
    outcome["staging_removed"] = clean_staging()
    outcome["asked_again"] = reask_uncovered()
    if outcome["queued"] or outcome["not_queued"] or outcome["staging_removed"] or outcome["asked_again"]:
        logger.warning("recovery sweep: %s", outcome)
    return outcome
