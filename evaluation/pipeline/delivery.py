"""One delivery at a time works on a run, and one result is stored per scoring round.

A run's scoring task can be delivered more than once: Redis hands an unacknowledged
message back when a worker dies or when the visibility timeout passes while the
task still runs, and the outbox and the recovery sweep (:mod:`evaluation.pipeline.recovery`)
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

A run has two steps, each its own task on its own queue (:mod:`config.queues`):
validation (``uploaded``, ``validating``) and, for a test run, scoring (``queued``,
``scoring``). Each delivery claims only a run in its own step (:data:`VALIDATION`,
:data:`SCORING`); a development check is validated and scored by one delivery.

**Fencing.** While it works, a thread beats the heartbeat. A delivery paused past its
lease (a stopped process, a long garbage collection, a frozen virtual machine) may be
taken over without knowing it, and then resume. So every write it makes to the run
goes through :func:`write` (status, reason, progress, report, attempts), which compares
the claim token under the row lock and raises :class:`LostClaim` when another delivery
holds the run now: the stale holder writes nothing and stops. A file kept beside the run
(a CoNLL-U run's converted XML) is replaced under the same check (:func:`locked_run`).
The result is stored only under the same check (:func:`may_store`, in
:func:`evaluation.pipeline.services.store_result`),
and the database allows one result per run, round and scorer version. A run that holds a
result of its current round is scored, whatever asks to fail it (:func:`_claim` repairs
such a run instead of failing it).
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
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from parseval.annotations.errors import N_
from campaign.models import Run, RunStatus
from evaluation.models import Result

logger = logging.getLogger(__name__)

WORKING = (RunStatus.UPLOADED, RunStatus.VALIDATING, RunStatus.QUEUED, RunStatus.SCORING)
# The statuses each step's task may claim a run in.
VALIDATION = (RunStatus.UPLOADED, RunStatus.VALIDATING)
SCORING = (RunStatus.QUEUED, RunStatus.SCORING)
DUPLICATE = "duplicate delivery ignored"


def lease() -> timedelta:
    return timedelta(seconds=settings.PARSEVAL_SCORING_LEASE_SECONDS)


class NotClaimed(Exception):
    """This delivery must not score the run; the message says why (it is the task's return value)."""


class LostClaim(Exception):
    """Another delivery took the run over while this one worked (it was paused past its lease): stop, write nothing."""


class HandedOver(Exception):
    """This delivery handed the run to other tasks that hold its claim (the shards of a run scored across
    workers, :mod:`evaluation.pipeline.sharding`): it leaves without releasing the claim; the message says what became of
    the run (the task's return value)."""


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


def claim(run_id: int, token: str, step=WORKING) -> Claim:
    """Take the run for this delivery of ``step`` (the statuses it may start from, or a function of the run
    giving them), or raise :class:`NotClaimed`."""
    outcome = _claim(run_id, token, step)
    if isinstance(outcome, NotClaimed):
        raise outcome  # out of the transaction, so that what it wrote (a failed run) is committed
    return outcome


def _claim(run_id: int, token: str, step) -> Claim | NotClaimed:
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return NotClaimed("missing")
        if run.withdrawn_at is not None:
            return NotClaimed("withdrawn")
        if run.status not in WORKING:
            return NotClaimed(f"already {run.status}: {DUPLICATE}")
        if _has_result_of_round(run):
            # A stale writer left a run that holds this round's result in a working status: it is scored.
            run.claimed_by, run.heartbeat_at, run.dispatch_pending, run.progress = "", None, False, 100
            run.save(update_fields=["claimed_by", "heartbeat_at", "dispatch_pending", "progress"])
            run.set_status(RunStatus.SCORED)
            logger.warning("run %s: held a result of round %s in status %s; marked scored", run_id,
                           run.scoring_round, run.status)
            return NotClaimed(f"already scored: {DUPLICATE}")
        if run.status not in (step(run) if callable(step) else step):
            return NotClaimed(f"{run.status}: not this step's run: {DUPLICATE}")
        now = timezone.now()
        if run.claimed_by and run.heartbeat_at and now - run.heartbeat_at < lease():
            # Alive, or killed moments ago (a pool process killed hands its message straight back).
            remaining = (run.heartbeat_at + lease() - now).total_seconds()
            return HeldElsewhere(f"being scored by {run.claimed_by}: {DUPLICATE}", retry_in=remaining + 1)
        if run.scoring_attempts >= settings.PARSEVAL_MAX_SCORING_ATTEMPTS:
            run.claimed_by, run.heartbeat_at, run.dispatch_pending, run.progress = "", None, False, 0
            run.save(update_fields=["claimed_by", "heartbeat_at", "dispatch_pending", "progress"])
            run.set_status(RunStatus.FAILED, reason=N_(
                "scoring was interrupted %(count)s times (a worker stopped or the time limit of %(limit)s s was "
                "reached); the organisers can re-score the run") % {"count": run.scoring_attempts,
                                                                     "limit": settings.CELERY_TASK_TIME_LIMIT})
            return NotClaimed("failed")
        if run.claimed_by:
            logger.warning("run %s: taking over from %s, silent since %s", run_id, run.claimed_by, run.heartbeat_at)
        run.claimed_by, run.heartbeat_at, run.dispatch_pending = token, now, False
        run.scoring_attempts += 1
        run.save(update_fields=["claimed_by", "heartbeat_at", "dispatch_pending", "scoring_attempts"])
        return Claim(run.pk, token, run.scoring_round)


def _has_result_of_round(run: Run) -> bool:
    return Result.objects.filter(run_id=run.pk, scoring_round=run.scoring_round).exists()


def release(held: Claim, *, attempt_used: bool = True) -> None:
    """Let the next delivery (a retry) claim the run at once. Best effort: the lease runs out anyway.

    ``attempt_used=False``: this delivery left in good order (a transient fault, retried), so it does not
    count among the interrupted attempts of the round."""
    fields = {"claimed_by": "", "heartbeat_at": None}
    if not attempt_used:
        fields["scoring_attempts"] = Greatest(F("scoring_attempts") - 1, 0)
    try:
        Run.objects.filter(pk=held.run_id, claimed_by=held.token).update(**fields)
    except Exception:  # the database may be the reason we are leaving
        logger.warning("run %s: could not release the claim; it lapses after the lease", held.run_id, exc_info=True)


def holds(run: Run, held: Claim) -> bool:
    """Under the run's row lock: whether ``held`` is still the claim on the run."""
    return run.claimed_by == held.token and run.scoring_round == held.round and run.status in WORKING


def write(held: Claim, *, status: str | None = None, reason: str = "", **fields) -> Run:
    """Write ``fields`` (and ``status`` with its ``reason``) to the run if ``held`` still holds it, else raise
    :class:`LostClaim`. Compared under the row lock, so nobody takes the run over between check and write."""
    with transaction.atomic():
        run = _held_row(held)
        for name, value in fields.items():
            setattr(run, name, value)
        update = list(fields)
        if status is not None:
            run.status, run.status_reason, run.status_changed_at = status, reason, timezone.now()
            update += ["status", "status_reason", "status_changed_at"]
        run.save(update_fields=update)
        return run


def _held_row(held: Claim) -> Run:
    """Inside a transaction: the run's row, locked, if ``held`` still holds it; else :class:`LostClaim`."""
    run = Run.objects.select_for_update().filter(pk=held.run_id).first()
    if run is None or not holds(run, held):
        raise LostClaim(f"run {held.run_id}: taken over by {run.claimed_by if run else 'nobody'!r} "
                        f"({run.status if run else 'deleted'}); this delivery writes nothing more")
    return run


@contextlib.contextmanager
def locked_run(run_id: int):
    """The run's row under its lock, for a write that is more than fields: a file kept beside the run (the
    converted XML of a CoNLL-U run), whose old version is replaced. Fenced as :func:`write` is: raises
    :class:`LostClaim` before the body runs when the current delivery no longer holds the run, so a stale holder
    neither deletes nor replaces what the current one wrote. Outside a delivery, the row under its lock."""
    held = _current.get()
    with transaction.atomic():
        yield Run.objects.select_for_update().get(pk=run_id) if held is None else _held_row(held)


def current() -> Claim | None:
    """The claim of the delivery running in this context, if any."""
    return _current.get()


def fenced(queryset):
    """``queryset`` narrowed to rows the current delivery still holds (a single conditional UPDATE is fenced)."""
    held = _current.get()
    return queryset if held is None else queryset.filter(claimed_by=held.token)


@contextlib.contextmanager
def holding(held: Claim, *, beat: bool = True, retried: tuple[type[BaseException], ...] = ()):
    """Beat the heartbeat while the body runs (not in process: nobody else could take over), then release.

    An exception of ``retried`` (the task retries it) does not use up one of the round's attempts; after
    :class:`HandedOver` the claim is kept, for the tasks the run was handed to."""
    token = _current.set(held)
    stop = threading.Event()
    beater = threading.Thread(target=_beat, args=(held, stop), name=f"heartbeat-run-{held.run_id}", daemon=True)
    if beat:
        beater.start()
    attempt_used, kept = True, False
    try:
        yield held
    except retried:
        attempt_used = False
        raise
    except HandedOver:
        kept = True
        raise
    finally:
        stop.set()
        if beat:
            beater.join(timeout=10)
        _current.reset(token)
        if not kept:
            release(held, attempt_used=attempt_used)


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


