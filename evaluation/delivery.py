"""One delivery at a time scores a run, and one result is stored per scoring round.

A run's scoring task can be delivered more than once: Redis hands an unacknowledged
message back when a worker dies or when the visibility timeout passes while the
task still runs, and the outbox and the recovery sweep (:mod:`evaluation.recovery`)
queue a run again when its message may be lost. So every delivery first *claims*
the run, under a row lock:

* a run no longer working (scored, invalid, failed) or withdrawn: the delivery is a
  duplicate and returns at once, saying so;
* a run held by another delivery whose heartbeat is fresh (younger than the lease):
  the delivery comes back once that lease could have run out (a retry): by then
  the holder has finished (the retry is a no-op), or is still beating (again), or
  has died (the retry takes over, without waiting for the recovery sweep);
* otherwise (a new run, or a holder that stopped beating: its worker died) the
  delivery takes the run over and starts it again from validation. After
  ``PARSEVAL_MAX_SCORING_ATTEMPTS`` such starts in one round the run fails, so a run
  that kills its worker every time (time limit, memory) does not loop forever.

While it works, a thread beats the heartbeat. The result is stored only if the
delivery still holds the run (re-checked under the lock in
:func:`evaluation.services.store_result`), and the database allows one result per
run, round and scorer version, so even a delivery that lost its claim without
knowing it cannot add a second one.
"""
from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from campaign.models import Run, RunStatus

logger = logging.getLogger(__name__)

WORKING = (RunStatus.UPLOADED, RunStatus.VALIDATING, RunStatus.QUEUED, RunStatus.SCORING)
DUPLICATE = "duplicate delivery ignored"


def lease() -> timedelta:
    return timedelta(seconds=settings.PARSEVAL_SCORING_LEASE_SECONDS)


class NotClaimed(Exception):
    """This delivery must not score the run; the message says why (it is the task's return value)."""


class HeldElsewhere(NotClaimed):
    """Another delivery holds the run and beat lately: look again once its lease could have run out."""

    def __init__(self, message: str, retry_in: float):
        super().__init__(message)
        self.retry_in = retry_in


@dataclass(frozen=True)
class Claim:
    run_id: int
    token: str
    round: int


_current: contextvars.ContextVar[Claim | None] = contextvars.ContextVar("scoring_claim", default=None)


def new_token(task_id: str | None) -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{task_id or 'eager'}:{uuid.uuid4().hex[:8]}"[:200]


def claim(run_id: int, token: str) -> Claim:
    """Take the run for this delivery, or raise :class:`NotClaimed`."""
    outcome = _claim(run_id, token)
    if isinstance(outcome, NotClaimed):
        raise outcome  # out of the transaction, so that what it wrote (a failed run) is committed
    return outcome


def _claim(run_id: int, token: str) -> Claim | NotClaimed:
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return NotClaimed("missing")
        if run.withdrawn_at is not None:
            return NotClaimed("withdrawn")
        if run.status not in WORKING:
            return NotClaimed(f"already {run.status}: {DUPLICATE}")
        now = timezone.now()
        if run.claimed_by and run.heartbeat_at and now - run.heartbeat_at < lease():
            # Alive, or killed moments ago (a pool process killed hands its message straight back).
            remaining = (run.heartbeat_at + lease() - now).total_seconds()
            return HeldElsewhere(f"being scored by {run.claimed_by}: {DUPLICATE}", retry_in=remaining + 1)
        if run.scoring_attempts >= settings.PARSEVAL_MAX_SCORING_ATTEMPTS:
            run.claimed_by, run.heartbeat_at, run.dispatch_pending, run.progress = "", None, False, 0
            run.save(update_fields=["claimed_by", "heartbeat_at", "dispatch_pending", "progress"])
            run.set_status(RunStatus.FAILED, reason=(
                f"scoring was interrupted {run.scoring_attempts} times (a worker stopped or the time limit of "
                f"{settings.CELERY_TASK_TIME_LIMIT} s was reached); the organisers can re-score the run"))
            return NotClaimed("failed")
        if run.claimed_by:
            logger.warning("run %s: taking over from %s, silent since %s", run_id, run.claimed_by, run.heartbeat_at)
        run.claimed_by, run.heartbeat_at, run.dispatch_pending = token, now, False
        run.scoring_attempts += 1
        run.save(update_fields=["claimed_by", "heartbeat_at", "dispatch_pending", "scoring_attempts"])
        return Claim(run.pk, token, run.scoring_round)


def release(held: Claim) -> None:
    """Let the next delivery (a retry) claim the run at once. Best effort: the lease runs out anyway."""
    try:
        Run.objects.filter(pk=held.run_id, claimed_by=held.token).update(claimed_by="", heartbeat_at=None)
    except Exception:  # the database may be the reason we are leaving
        logger.warning("run %s: could not release the claim; it lapses after the lease", held.run_id, exc_info=True)


@contextlib.contextmanager
def holding(held: Claim, *, beat: bool = True):
    """Beat the heartbeat while the body runs (not in process: nobody else could take over), then release."""
    token = _current.set(held)
    stop = threading.Event()
    beater = threading.Thread(target=_beat, args=(held, stop), name=f"heartbeat-run-{held.run_id}", daemon=True)
    if beat:
        beater.start()
    try:
        yield held
    finally:
        stop.set()
        if beat:
            beater.join(timeout=10)
        _current.reset(token)
        release(held)


def _beat(held: Claim, stop: threading.Event) -> None:
    interval = settings.PARSEVAL_SCORING_HEARTBEAT_SECONDS
    try:
        while not stop.wait(interval):
            try:
                Run.objects.filter(pk=held.run_id, claimed_by=held.token).update(heartbeat_at=timezone.now())
            except Exception:
                logger.warning("run %s: heartbeat not written", held.run_id, exc_info=True)
    finally:
        connection.close()  # this thread's own connection


def may_store(locked: Run) -> bool:
    """Under the run's row lock: may the current delivery (if any) store its result?"""
    held = _current.get()
    if held is None:  # stored outside a task delivery (tests, shell): only the constraint applies
        return locked.status in WORKING
    return locked.claimed_by == held.token and locked.status in WORKING and locked.scoring_round == held.round


def still_held(run_id: int) -> bool:
    """Whether the current delivery still holds the run (so may write a final status)."""
    held = _current.get()
    return held is None or Run.objects.filter(pk=run_id, claimed_by=held.token).exists()
