"""One large run scored across workers: shards of documents counted in parallel, merged and stored once.

When a test run's gold holds more than ``PARSEVAL_SHARD_SENTENCES`` sentences (0: never) and its kind can
cut it (:meth:`Kind.shard_documents`; by default a kind cannot, and every run is one task), the scoring
delivery that holds the run's claim (:mod:`evaluation.pipeline.delivery`) becomes the run's coordinator:

1. it records the shards (:class:`~evaluation.models.ScoringShard`: consecutive corpus documents, under
   its claim token) and sends one :func:`score_shard` task per shard to the scoring queue, the message
   carrying the run id, the claim token, the shard's index and its documents, at the lowest priority: a
   shard takes a scoring process that no other run waits for, so other runs do not queue behind a large
   one (with a single scoring process, the shards follow the runs queued before them);
2. it counts the shards whose message the broker refused, itself, taking them as the workers do (a row
   lock, ``skip_locked``), so a run goes on without a broker;
3. then it does **not wait** for the shards: it leaves, keeping the run's claim for them
   (:class:`~evaluation.pipeline.delivery.HandedOver`), and its scoring process takes the next run or shard.
   Whoever writes the last shard's counts (under the run's row lock, so exactly one) merges them
   (:meth:`Kind.merge_shards`: the rows laid end to end in corpus order, the intervals computed once on the
   merged rows, the signature and the gold checksum those of the whole run) and stores the result as a
   single task does (:func:`evaluation.pipeline.tasks.finish_sharded`, under the same claim); the shards' rows are
   then deleted. A shard that fails fails the run at once, by whoever counted it.

**Why a callback counted in the database, not a Celery chord.** A chord's counter lives in the result
backend (Redis, which this deployment does not use for results) and counts task *ends*: a shard message
delivered twice (a killed worker's message comes back) would be counted twice, a message lost with Redis
never, and a worker killed mid-shard stalls the chord until Redis's visibility timeout. The shard rows are
already the truth of what is counted, fenced by the run's claim: the last write among them is the callback,
with no other moving part. Nor does the coordinator wait or poll, not even off a process (a retry with a
countdown): its process is the scarce thing, and other runs queue behind it.

**Liveness, within a short lease.** A shard's worker beats the shard's ``beat_at`` every
``PARSEVAL_SHARD_HEARTBEAT_SECONDS``, and the run's heartbeat too. :func:`watch_shards` (beat, every
``PARSEVAL_SHARD_WATCH_SECONDS``, on the default queue beside the recovery sweep) takes back a running shard
silent for ``PARSEVAL_SHARD_LEASE_SECONDS`` (its worker died: back to pending and sent again; the
``PARSEVAL_MAX_SCORING_ATTEMPTS``-th time for one shard fails the run, as repeated deaths of a run's
deliveries do, so that a shard that kills every worker ends), sends again a pending shard whose message may be
lost (pending longer than the visibility timeout; a pending shard's ``beat_at`` is when its message was sent),
beats the heartbeat of a run handed to shards still to count, so that the run-level sweep
(:mod:`evaluation.pipeline.recovery`, a whole run lease) leaves it alone, and drops the rows of deliveries that no
longer hold their run. A task that dies while merging leaves every shard counted and nothing vouching for the
run: the run lease then brings the run back, as any delivery's death.

**Fencing.** A shard's counts are written only while its token is still the run's claim and its row still
the shard its worker took, compared under the run's row lock: a shard of a delivery that lost the run (a
stale or duplicated message, a worker paused past its lease and taken back) writes nothing, and the merge
reads only the shards of its own token, so nothing its coordinator did not plan can enter its result.

**Failure.** A shard that fails (its reason located by shard and documents) fails the run, which stores no
result. Faults of the system are retried as every task's are (:mod:`evaluation.pipeline.worker`): the shard goes back
to pending and its task is retried.

The stored result is byte for byte the single task's (``tests/kinds/test_sharded_scoring.py``).
"""
from __future__ import annotations

import contextlib
import logging
import threading
from datetime import timedelta

from celery import current_task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from parseval.annotations.errors import InputError
from campaign import kinds
from campaign.models import Run, RunStatus
from campaign.rules import UploadRefused
from campaign.services.runs import unpacked
from campaign.stored_files import local_copy
from evaluation.pipeline import delivery
from evaluation.models import ScoringShard
from evaluation.pipeline.worker import TASK_OPTIONS, TRANSIENT, out_of_retries, system_fault

logger = logging.getLogger(__name__)

TASK = "evaluation.sharding.score_shard"
Status = ScoringShard.Status
WRITTEN, LAST = "written", "last"  # what writing a shard's counts came to (:func:`_finish`)
# Redis serves a queue's priority 0 (every other message) before 9: a shard takes a scoring process only when no
# run waits for one. A shard taken back from a dead worker goes at 0, in line with the runs.
SHARD_PRIORITY, TAKEN_BACK_PRIORITY = 9, 0


class ShardFailed(Exception):
    """A shard of the run failed: the run fails with this reason (it says which shard and documents)."""


def plan(run, setup, files) -> list[list[str]]:
    """The run's shards (documents each, in corpus order), or ``[]``: scored by one task."""
    per_shard = settings.PARSEVAL_SHARD_SENTENCES
    if per_shard <= 0:
        return []
    shards = setup.kind.shard_documents(run, files, setup, per_shard)
    return shards if len(shards) > 1 else []


def score(run, setup, held: delivery.Claim, files, shards: list[list[str]]) -> dict:
    """The result document of ``run``, if the delivery holding ``held`` counts the last of ``shards``;
    otherwise :class:`~evaluation.pipeline.delivery.HandedOver` once it has counted the shards it could not send
    (see the module)."""
    _record(held, shards)
    handed = False
    try:
        unsent = _send(held, shards)
        beat = _in_worker()
        for index in unsent:
            shard = _take(held.token, held.token, index)
            if shard is None:  # taken meanwhile (a message sent again by the watch)
                continue
            outcome = _count(run, setup, shard, held.token, files=files, beat=beat)
            if outcome == LAST:
                return merged(run, setup, held)
            if outcome == Status.FAILED:
                raise ShardFailed(ScoringShard.objects.values_list("reason", flat=True).get(pk=shard.pk))
            if outcome is None:
                _still_held(held)  # its counts were refused: the run was taken over
        handed = True
        status = Run.objects.filter(pk=held.run_id).values_list("status", flat=True).first()
        if status not in delivery.SCORING:  # its last shard, counted by another task, ended the run
            raise delivery.HandedOver(status or "deleted")
        left = ScoringShard.objects.filter(token=held.token).exclude(status=Status.DONE).count()
        raise delivery.HandedOver(f"run {held.run_id}: {left} of {len(shards)} shards left to other scoring "
                                  f"processes; the last to finish stores the result")
    finally:
        if not handed:
            _drop(held.token, held.run_id)


def merged(run, setup, held: delivery.Claim) -> dict:
    """The result document of the shards of ``held``, every one counted; their rows are deleted."""
    try:
        total = ScoringShard.objects.filter(token=held.token).count()
        return setup.kind.merge_shards(run, setup, _counts(held.token, total))
    finally:
        _drop(held.token, held.run_id)


def _counts(token: str, total: int):
    """Each shard's counts in index order, read from the database when the merge asks for it: the counts of
    every shard together are the whole run's rows (672 bytes a sentence for EASY), too much to hold at once."""
    for index in range(total):
        yield bytes(ScoringShard.objects.filter(token=token, index=index).values_list("counts", flat=True).get())


def _drop(token: str, run_id: int) -> None:
    try:
        ScoringShard.objects.filter(token=token).delete()
    except Exception:  # the database may be why we leave; the watch drops them later
        logger.warning("run %s: shard rows not deleted", run_id, exc_info=True)


def _in_worker() -> bool:
    """Whether this runs in a worker's task, not in process: only there is a heartbeat needed (and beaten)."""
    return current_task is not None and not current_task.request.is_eager


def _record(held: delivery.Claim, shards: list[list[str]]) -> None:
    """The shards of this delivery, written only while it holds the run; earlier deliveries' are dropped."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().filter(pk=held.run_id).first()
        if locked is None or not delivery.holds(locked, held):
            raise delivery.LostClaim(f"run {held.run_id}: taken over before its shards were recorded; this delivery "
                                     f"writes nothing more")
        ScoringShard.objects.filter(run_id=held.run_id).delete()
        now = timezone.now()  # a pending shard's beat_at: when its message was sent
        ScoringShard.objects.bulk_create([ScoringShard(run_id=held.run_id, token=held.token, index=i, documents=docs,
                                                       beat_at=now) for i, docs in enumerate(shards)])


def _send(held: delivery.Claim, shards: list[list[str]]) -> list[int]:
    """Send a task for each shard; the indexes of those not sent (this delivery counts them)."""
    task, unsent = score_shard, []
    for index, documents in enumerate(shards):
        try:
            task.delay(held.run_id, held.token, index, documents)
        except delivery.LostClaim:
            raise
        except Exception:  # the broker is away: this delivery counts what no worker can take
            logger.warning("run %s: shard %s not sent; counted here", held.run_id, index, exc_info=True)
            unsent.append(index)
    return unsent


def _take(token: str, taker: str, index: int | None = None) -> ScoringShard | None:
    """A pending shard of ``token`` (the one at ``index`` if given), marked as counted by ``taker``."""
    with transaction.atomic():
        rows = ScoringShard.objects.select_for_update(skip_locked=True).filter(token=token, status=Status.PENDING)
        if index is not None:
            rows = rows.filter(index=index)
        shard = rows.order_by("index").first()
        if shard is None:
            return None
        shard.status, shard.taken_by, shard.beat_at = Status.RUNNING, taker, timezone.now()
        shard.save(update_fields=["status", "taken_by", "beat_at"])
        return shard


def _still_held(held: delivery.Claim) -> None:
    if not Run.objects.filter(pk=held.run_id, claimed_by=held.token, scoring_round=held.round).exists():
        raise delivery.LostClaim(f"run {held.run_id}: taken over, or ended by a failing shard, while its shards "
                                 f"were counted; this delivery writes nothing more")


def _finish(shard: ScoringShard, taker: str, **fields) -> str | None:
    """Write the shard's outcome if its token still holds the run and its row is still ``taker``'s: ``None``
    (refused), ``Status.FAILED``, :data:`WRITTEN`, or :data:`LAST` when these were the last counts of the
    run, which the caller then merges (the run's row lock makes exactly one writer the last)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=shard.run_id).first()
        if run is None or run.claimed_by != shard.token or run.status not in delivery.SCORING:
            return None
        if not ScoringShard.objects.filter(pk=shard.pk, token=shard.token, taken_by=taker,
                                           status=Status.RUNNING).update(**fields):
            return None
        if fields["status"] != Status.DONE:
            return fields["status"]
        statuses = list(ScoringShard.objects.filter(token=shard.token).values_list("status", flat=True))
        done = statuses.count(Status.DONE)
        if done == len(statuses):
            return LAST
        Run.objects.filter(pk=run.pk).update(progress=100 * done // (len(statuses) + 1))  # the merge is one more
        return WRITTEN


def _fail_run(shard: ScoringShard) -> None:
    """A shard counted by a shard task failed: the run fails with its reason (if its token still holds it)."""
    reason = ScoringShard.objects.values_list("reason", flat=True).get(pk=shard.pk)
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=shard.run_id).first()
        if run is None or run.claimed_by != shard.token or run.status not in delivery.SCORING:
            return
        run.claimed_by, run.heartbeat_at = "", None
        run.save(update_fields=["claimed_by", "heartbeat_at"])
        run.set_status(RunStatus.FAILED, reason=reason, progress=0)
    _drop(shard.token, shard.run_id)


def _where(shard: ScoringShard) -> str:
    docs = shard.documents
    span = docs[0] if len(docs) == 1 else f"{docs[0]} to {docs[-1]}"
    return f"shard {shard.index + 1} (documents {span})"


def _reason(exc: BaseException, shard: ScoringShard) -> str:
    """What the run's failure says of a shard that failed (as a single task words it, located)."""
    where = _where(shard)
    if isinstance(exc, SoftTimeLimitExceeded):
        return (f"caused by the run: {where} took longer than {settings.CELERY_TASK_SOFT_TIME_LIMIT} seconds and "
                f"was stopped")
    if isinstance(exc, InputError):
        logger.error("run %s, %s: the stored corpus or gold could not be read: %s", shard.run_id, where, exc)
        return (f"not caused by the run: the campaign's reference files could not be read ({where}); the "
                f"organisers have been told")
    if isinstance(exc, UploadRefused):
        return f"caused by the run: {where}: {exc}"
    logger.error("run %s: %s failed", shard.run_id, where, exc_info=exc)
    return f"not caused by the run: internal error ({type(exc).__name__}) in {where}; the organisers can re-score " \
           f"the run"


def _count(run, setup, shard: ScoringShard, taker: str, *, files=None, beat: bool = False) -> str | None:
    """Count ``shard`` (taken by ``taker``; its heartbeat beaten if ``beat``) and write its counts, or its
    failure; what :func:`_finish` says of the write. Faults of the system are raised (the caller retries)."""
    try:
        with _beating(shard, taker, beat):
            return _counted(run, setup, shard, taker, files)
    except (*TRANSIENT, delivery.LostClaim):
        raise
    except Exception as exc:
        return _finish(shard, taker, status=Status.FAILED, reason=_reason(exc, shard), counts=None)


def _counted(run, setup, shard: ScoringShard, taker: str, files) -> str | None:
    if files is None:
        with local_copy(run.file, sha256=run.sha256) as path, \
                unpacked(run.campaign, path, run.original_filename, stored=True, suffixes=setup.suffixes,
                         kind=setup.kind, documents=set(shard.documents)) as unpacked_files:
            counts = setup.kind.score_shard(run, unpacked_files, setup, shard.documents)
    else:
        counts = setup.kind.score_shard(run, files, setup, shard.documents)
    return _finish(shard, taker, status=Status.DONE, counts=counts, beat_at=timezone.now())


@contextlib.contextmanager
def _beating(shard: ScoringShard, taker: str, beat: bool):
    """Beat the shard's ``beat_at`` while ``taker`` counts it (:func:`watch_shards` takes back a silent shard),
    and the run's heartbeat while its token holds the run: a run handed to its shards is alive while they count."""
    stop = threading.Event()

    def loop():
        try:
            while not stop.wait(settings.PARSEVAL_SHARD_HEARTBEAT_SECONDS):
                try:
                    now = timezone.now()
                    if ScoringShard.objects.filter(pk=shard.pk, taken_by=taker).update(beat_at=now):
                        Run.objects.filter(pk=shard.run_id, claimed_by=shard.token).update(heartbeat_at=now)
                except Exception:
                    logger.warning("run %s shard %s: heartbeat not written", shard.run_id, shard.index, exc_info=True)
        finally:
            connection.close()

    beater = threading.Thread(target=loop, name=f"heartbeat-shard-{shard.pk}", daemon=True)
    if beat:
        beater.start()
    try:
        yield
    finally:
        stop.set()
        if beat:
            beater.join(timeout=10)


@shared_task(name="evaluation.sharding.score_shard", **TASK_OPTIONS, priority=SHARD_PRIORITY)
def score_shard(self, run_id: int, token: str, index: int, documents: list[str]) -> str:
    """Count one shard of a run scored across workers (queue ``scoring``), if it is still pending; the task
    that writes the run's last counts merges and stores the result."""
    taker = delivery.new_token(self.request.id)
    shard = _take(token, taker, index)
    if shard is None:  # counted already, by the coordinator or another delivery, or of a delivery that lost the run
        return f"run {run_id} shard {index}: not pending: nothing to do"
    if shard.documents != documents:
        ScoringShard.objects.filter(pk=shard.pk, taken_by=taker).update(status=Status.PENDING, taken_by="")
        return f"run {run_id} shard {index}: planned with other documents: nothing to do"
    try:
        with _beating(shard, taker, beat=not self.request.is_eager):
            run = Run.objects.select_related("campaign", "team").get(pk=run_id)
            setup = kinds.for_campaign(run.campaign).setup(run)
            outcome = _count(run, setup, shard, taker)
    except TRANSIENT as exc:
        if out_of_retries(self):
            logger.error("run %s shard %s: %s: %s; out of retries", run_id, index, type(exc).__name__, exc)
            if _finish(shard, taker, status=Status.FAILED, reason=f"{system_fault(exc)} ({_where(shard)})"):
                _fail_run(shard)
            return "failed"
        # back to pending for whoever comes first: the coordinator, or this task's retry
        ScoringShard.objects.filter(pk=shard.pk, taken_by=taker, status=Status.RUNNING) \
            .update(status=Status.PENDING, taken_by="", beat_at=timezone.now())
        raise
    except ValueError as exc:  # the campaign's options cannot be used
        outcome = _finish(shard, taker, status=Status.FAILED, reason=f"not caused by the run: {_where(shard)}: {exc}")
    if outcome == Status.FAILED:
        _fail_run(shard)
        return f"run {run_id} shard {index}: failed"
    if outcome == LAST:
        held = _holder(run_id, token)
        if held is None:
            return f"run {run_id} shard {index}: counted, the last, but the run was taken over: nothing stored"
        return f"run {run_id} shard {index}: counted, the last: {finish_run(self, held)}"
    return f"run {run_id} shard {index}: " + ("counted" if outcome else "stale: nothing written")


def finish_run(self, held: delivery.Claim) -> str:
    """The merge and the store of a run whose last shard this task counted: the scoring task's
    (:func:`evaluation.pipeline.tasks.finish_sharded`), which that module, importing this one, hands over
    at its import (:data:`FINISH`)."""
    if FINISH is None:
        raise RuntimeError("evaluation.pipeline.tasks is not imported: no scoring task to finish the run")
    return FINISH(self, held)


FINISH = None  # set by evaluation.pipeline.tasks: this module never imports it (it imports this module)


def _holder(run_id: int, token: str) -> delivery.Claim | None:
    """The claim of ``token`` on the run, taken on by the task that merges its shards, if it still holds it."""
    round_ = Run.objects.filter(pk=run_id, claimed_by=token, status__in=delivery.SCORING) \
        .values_list("scoring_round", flat=True).first()
    return None if round_ is None else delivery.Claim(run_id, token, round_)


# -- the watch: silent shards taken back, lost messages sent again, runs handed to their shards kept alive ----

@shared_task(name="evaluation.sharding.watch_shards", ignore_result=True)
def watch_shards() -> dict:
    """One round of the shards' watch (beat, every ``PARSEVAL_SHARD_WATCH_SECONDS``; see the module)."""
    now = timezone.now()
    holding = Run.objects.filter(pk=OuterRef("run_id"), claimed_by=OuterRef("token"), status__in=delivery.SCORING)
    dropped, _ = ScoringShard.objects.filter(~Exists(holding)).delete()
    silent = ScoringShard.objects.filter(status=Status.RUNNING,
                                         beat_at__lt=now - timedelta(seconds=settings.PARSEVAL_SHARD_LEASE_SECONDS))
    lost = ScoringShard.objects.filter(Q(beat_at__isnull=True) | Q(beat_at__lt=now - timedelta(
        seconds=settings.PARSEVAL_REQUEUE_UPLOADED_AFTER_SECONDS)), status=Status.PENDING)
    taken_back = [shard for shard in silent if _take_back(shard)]
    resent = [shard for shard in lost if ScoringShard.objects.filter(pk=shard.pk, status=Status.PENDING,
                                                                     beat_at=shard.beat_at).update(beat_at=now)]
    sent = sum(_send_one(shard, TAKEN_BACK_PRIORITY) for shard in taken_back) + \
        sum(_send_one(shard, SHARD_PRIORITY) for shard in resent)
    counting = ScoringShard.objects.filter(run_id=OuterRef("pk"), token=OuterRef("claimed_by"),
                                           status__in=(Status.PENDING, Status.RUNNING))
    vouched = Run.objects.filter(Exists(counting), status=RunStatus.SCORING).update(heartbeat_at=now)
    outcome = {"taken_back": len(taken_back), "resent": len(resent), "sent": sent, "vouched": vouched,
               "dropped": dropped}
    if taken_back or resent or dropped:
        logger.warning("shards' watch: %s", outcome)
    return outcome


def _take_back(shard: ScoringShard) -> bool:
    """A running shard silent for the shard lease goes back to pending, if its token still holds the run; the
    ``PARSEVAL_MAX_SCORING_ATTEMPTS``-th time for one shard fails the run instead (as :mod:`.delivery` fails a
    run whose deliveries keep dying): a shard that stops every worker that counts it does not loop for ever."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=shard.run_id).first()
        if run is None or run.claimed_by != shard.token or run.status not in delivery.SCORING:
            return False
        interrupted = shard.interrupted + 1
        if not ScoringShard.objects.filter(pk=shard.pk, status=Status.RUNNING, taken_by=shard.taken_by,
                                           beat_at=shard.beat_at).update(status=Status.PENDING, taken_by="",
                                                                         beat_at=timezone.now(),
                                                                         interrupted=interrupted):
            return False  # it beat, or ended, meanwhile
        logger.warning("run %s: %s silent since %s (%s stopped); taken back", run.pk, _where(shard), shard.beat_at,
                       shard.taken_by)
        if interrupted < settings.PARSEVAL_MAX_SCORING_ATTEMPTS:
            return True
        run.claimed_by, run.heartbeat_at = "", None
        run.save(update_fields=["claimed_by", "heartbeat_at"])
        run.set_status(RunStatus.FAILED, progress=0, reason=(
            f"scoring was interrupted {interrupted} times while counting {_where(shard)} (a worker stopped or the "
            f"time limit of {settings.CELERY_TASK_TIME_LIMIT} s was reached); the organisers can re-score the run"))
    _drop(shard.token, shard.run_id)
    return False


def _send_one(shard: ScoringShard, priority: int) -> bool:
    try:
        score_shard.apply_async((shard.run_id, shard.token, shard.index, shard.documents), priority=priority)
        return True
    except Exception:  # the broker is away: the coordinator is gone, so the next round sends it again
        logger.warning("run %s: %s not sent", shard.run_id, _where(shard), exc_info=True)
        return False
