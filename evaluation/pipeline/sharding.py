"""One large run scored across workers: shards of documents counted in parallel, merged and stored once.

When a test run's gold holds more than ``PARSEVAL_SHARD_SENTENCES`` sentences (0: never) and its kind can
cut it (:meth:`Kind.shard_documents`; by default a kind cannot, and every run is one task), the scoring
delivery that holds the run's claim (:mod:`evaluation.pipeline.delivery`) becomes the run's coordinator:

1. it records the shards (:class:`~evaluation.models.ScoringShard`: consecutive corpus documents, under
   its claim token) and sends one :func:`score_shard` task per shard to the scoring queue, the message
   carrying the run id, the claim token, the shard's index and its documents;
2. it counts shards itself too, taking pending ones as the workers do (a row lock, ``skip_locked``), so a
   run goes on with a single worker process, or with a broker that refused the messages; meanwhile its
   heartbeat keeps the claim, and a shard whose worker stopped beating for a lease is taken back;
3. once every shard is counted, it asks the kind to merge them (:meth:`Kind.merge_shards`: the rows laid
   end to end in corpus order, the intervals computed once on the merged rows, the signature and the
   gold checksum those of the whole run) and stores the result as a single task does
   (:func:`evaluation.pipeline.services.store_result`, fenced by its claim); the shards' rows are then deleted.

**Fencing.** A shard's counts are written only while its token is still the run's claim and its row still
the shard its worker took, compared under the run's row lock: a shard of a delivery that lost the run (a
stale or duplicated message, a worker paused past its lease) writes nothing, and a delivery reads only the
shards of its own token, so nothing it did not plan can enter its result. Only the coordinator stores.

**Failure.** A shard that fails (its reason located by shard and documents) fails the run through the
coordinator, which stores no result. Faults of the system are retried as every task's are
(:mod:`evaluation.pipeline.worker`): the shard goes back to pending and its task is retried, unless the
coordinator takes it first.

The stored result is byte for byte the single task's (``tests/results/test_sharded_scoring.py``).
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from parseval.annotations.errors import InputError
from campaign import kinds
from campaign.models import Run
from campaign.rules import UploadRefused
from campaign.services.runs import unpacked
from campaign.stored_files import local_copy
from evaluation.pipeline import delivery
from evaluation.models import ScoringShard
from evaluation.pipeline.worker import TASK_OPTIONS, TRANSIENT, out_of_retries, system_fault

logger = logging.getLogger(__name__)

TASK = "evaluation.sharding.score_shard"
POLL_SECONDS = 0.2
Status = ScoringShard.Status


class ShardFailed(Exception):
    """A shard of the run failed: the run fails with this reason (it says which shard and documents)."""


def plan(run, setup, files) -> list[list[str]]:
    """The run's shards (documents each, in corpus order), or ``[]``: scored by one task."""
    per_shard = settings.PARSEVAL_SHARD_SENTENCES
    if per_shard <= 0:
        return []
    shards = setup.kind.shard_documents(run, files, setup, per_shard)
    return shards if len(shards) > 1 else []


def score(run, setup, held: delivery.Claim, files, shards: list[list[str]], progress=None) -> dict:
    """The result document of ``run`` scored in ``shards`` across workers, by the delivery holding ``held``."""
    _record(held, shards)
    try:
        _send(held, shards)
        total = len(shards)
        while True:
            shard = _take(held.token, held.token)
            if shard is not None:
                if not _count(run, setup, shard, held.token, files=files):
                    _still_held(held)  # its counts were refused: the run was taken over
                continue
            rows = list(ScoringShard.objects.filter(token=held.token).values("index", "status", "reason",
                                                                              "beat_at"))
            failed = sorted((r for r in rows if r["status"] == Status.FAILED), key=lambda r: r["index"])
            if failed:
                raise ShardFailed(failed[0]["reason"])
            done = sum(1 for r in rows if r["status"] == Status.DONE)
            if progress is not None:
                progress(done, total + 1)
            if done == total:
                break
            _take_back_silent(held.token)
            _still_held(held)
            time.sleep(POLL_SECONDS)
        return setup.kind.merge_shards(run, setup, _counts(held.token, total))
    finally:
        try:
            ScoringShard.objects.filter(token=held.token).delete()
        except Exception:  # the database may be why we leave; the next delivery's plan drops them
            logger.warning("run %s: shard rows not deleted", held.run_id, exc_info=True)


def _counts(token: str, total: int):
    """Each shard's counts in index order, read from the database when the merge asks for it: the counts of
    every shard together are the whole run's rows (672 bytes a sentence for EASY), too much to hold at once."""
    for index in range(total):
        yield bytes(ScoringShard.objects.filter(token=token, index=index).values_list("counts", flat=True).get())


def _record(held: delivery.Claim, shards: list[list[str]]) -> None:
    """The shards of this delivery, written only while it holds the run; earlier deliveries' are dropped."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().filter(pk=held.run_id).first()
        if locked is None or not delivery.holds(locked, held):
            raise delivery.LostClaim(f"run {held.run_id}: taken over before its shards were recorded; this delivery "
                                     f"writes nothing more")
        ScoringShard.objects.filter(run_id=held.run_id).delete()
        ScoringShard.objects.bulk_create([ScoringShard(run_id=held.run_id, token=held.token, index=i, documents=docs)
                                          for i, docs in enumerate(shards)])


def _send(held: delivery.Claim, shards: list[list[str]]) -> None:
    task = score_shard
    for index, documents in enumerate(shards):
        try:
            task.delay(held.run_id, held.token, index, documents)
        except delivery.LostClaim:
            raise
        except Exception:  # the broker is away: this delivery counts what no worker takes
            logger.warning("run %s: shard %s not sent; counted here", held.run_id, index, exc_info=True)


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


def _take_back_silent(token: str) -> None:
    """Shards whose worker stopped beating for a lease go back to pending (the coordinator takes them)."""
    ScoringShard.objects.filter(token=token, status=Status.RUNNING, beat_at__lt=timezone.now() - delivery.lease()) \
        .exclude(taken_by=token).update(status=Status.PENDING, taken_by="", beat_at=None)


def _still_held(held: delivery.Claim) -> None:
    if not Run.objects.filter(pk=held.run_id, claimed_by=held.token, scoring_round=held.round).exists():
        raise delivery.LostClaim(f"run {held.run_id}: taken over while its shards were counted; this delivery "
                                 f"writes nothing more")


def _finish(shard: ScoringShard, taker: str, **fields) -> bool:
    """Write the shard's outcome if its token still holds the run and its row is still ``taker``'s."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=shard.run_id).first()
        if run is None or run.claimed_by != shard.token or run.status not in delivery.SCORING:
            return False
        return bool(ScoringShard.objects.filter(pk=shard.pk, token=shard.token, taken_by=taker,
                                                status=Status.RUNNING).update(**fields))


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


def _count(run, setup, shard: ScoringShard, taker: str, *, files=None) -> bool:
    """Count ``shard`` (taken by ``taker``) and write its counts, or its failure; whether anything was written.
    Faults of the system are raised (the caller retries)."""
    try:
        if files is None:
            with local_copy(run.file, sha256=run.sha256) as path, \
                    unpacked(run.campaign, path, run.original_filename, stored=True, suffixes=setup.suffixes,
                             kind=setup.kind, documents=set(shard.documents)) as unpacked_files:
                counts = setup.kind.score_shard(run, unpacked_files, setup, shard.documents)
        else:
            counts = setup.kind.score_shard(run, files, setup, shard.documents)
    except (*TRANSIENT, delivery.LostClaim):
        raise
    except Exception as exc:
        return _finish(shard, taker, status=Status.FAILED, reason=_reason(exc, shard), counts=None)
    return _finish(shard, taker, status=Status.DONE, counts=counts, beat_at=timezone.now())


@contextlib.contextmanager
def _beating(shard: ScoringShard, taker: str, beat: bool):
    """Beat the shard's ``beat_at`` while its worker counts it (the coordinator takes back a silent shard)."""
    stop = threading.Event()

    def loop():
        try:
            while not stop.wait(settings.PARSEVAL_SCORING_HEARTBEAT_SECONDS):
                try:
                    ScoringShard.objects.filter(pk=shard.pk, taken_by=taker).update(beat_at=timezone.now())
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


@shared_task(name="evaluation.sharding.score_shard", **TASK_OPTIONS)
def score_shard(self, run_id: int, token: str, index: int, documents: list[str]) -> str:
    """Count one shard of a run scored across workers (queue ``scoring``), if it is still pending."""
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
            written = _count(run, setup, shard, taker)
    except TRANSIENT as exc:
        if out_of_retries(self):
            logger.error("run %s shard %s: %s: %s; out of retries", run_id, index, type(exc).__name__, exc)
            _finish(shard, taker, status=Status.FAILED, reason=f"{system_fault(exc)} ({_where(shard)})")
            return "failed"
        # back to pending for whoever comes first: the coordinator, or this task's retry
        ScoringShard.objects.filter(pk=shard.pk, taken_by=taker, status=Status.RUNNING) \
            .update(status=Status.PENDING, taken_by="", beat_at=None)
        raise
    except ValueError as exc:  # the campaign's options cannot be used
        _finish(shard, taker, status=Status.FAILED, reason=f"not caused by the run: {_where(shard)}: {exc}")
        return "failed"
    return f"run {run_id} shard {index}: " + ("counted" if written else "stale: nothing written")
