"""The worker's two steps of a run: validation, then (for a test run) scoring, each on its own queue.

The consensus pseudo-run is validated by ``validate_consensus_run``, the same step on the scoring queue:
it is built when test runs are scored, and nothing that follows scoring may put work on the validation queue.

``validate_run`` (queue ``validation``): ``uploaded -> validating -> invalid``
(with the report), or ``-> queued``, and then sends ``score_run``. A development
check is scored in the same delivery, on the validation queue: nothing a team can
observe before release (a validation report, a development score) waits behind
test-run scoring, whose duration depends on the hidden test set (:mod:`config.queues`).

``score_run`` (queue ``scoring``): ``queued -> scoring -> scored`` (with a new
Result); a large run is counted in shards across the scoring workers: this delivery sends them and leaves
without waiting, and whichever task counts the last shard merges and stores (:mod:`evaluation.pipeline.sharding`).
Either step may end ``failed``, with a reason that says whether the run or the system was at fault.

The result and the ``scored`` status are written in one transaction, so a worker
killed mid-run leaves nothing half-written: with ``acks_late`` and
``reject_on_worker_lost`` the message goes back to the queue and the next delivery
starts the step again. Each delivery claims the run first, and every write it makes
is fenced by that claim (:mod:`evaluation.pipeline.delivery`): a duplicate delivery is a no-op
and a delivery that lost its claim while paused writes nothing. Faults of the system
(database, broker, file system) are retried with back-off (:mod:`evaluation.pipeline.worker`).
"""
from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from parseval.annotations.errors import InputError, N_
from campaign import kinds
from campaign.models import Run, RunStatus
from campaign.rules import UploadRefused
from campaign.services.runs import enqueue_scoring, unpacked
from campaign.stored_files import local_copy
from evaluation.pipeline import delivery, services, sharding, signals
from evaluation.pipeline.worker import TASK_OPTIONS, TRANSIENT, out_of_retries, system_fault
from campaign.lifecycle import take_snapshot
from campaign.visibility import state_at_least

logger = logging.getLogger(__name__)

QUEUED = "queued"  # what validate_run returns when it handed a test run to the scoring queue


def _validation_step(run: Run) -> tuple[str, ...]:
    # A development check is validated and scored by one delivery, from whatever working status it is in.
    return delivery.WORKING if run.scope == Run.Scope.DEV else delivery.VALIDATION


@shared_task(name="evaluation.tasks.validate_run", **TASK_OPTIONS)
def validate_run(self, run_id: int) -> str:
    outcome = _deliver(self, run_id, _validation_step, _validate)
    if outcome == QUEUED:
        enqueue_scoring(run_id)  # the run's outbox mark was set with its queued status: the sweep retries this
    return outcome


@shared_task(name="evaluation.tasks.validate_consensus_run", **TASK_OPTIONS)
def validate_consensus_run(self, run_id: int) -> str:
    """:func:`validate_run` of the consensus pseudo-run, on the scoring queue (:func:`campaign.services.runs.next_task`).

    The consensus is built when a test run is scored (:mod:`evaluation.consensus.tasks`); validated on the
    validation queue, it would put there, at a time scoring sets, work that teams' validation reports wait
    behind. The same steps, another queue."""
    outcome = _deliver(self, run_id, _validation_step, _validate)
    if outcome == QUEUED:
        enqueue_scoring(run_id)
    return outcome


@shared_task(name="evaluation.tasks.score_run", **TASK_OPTIONS)
def score_run(self, run_id: int) -> str:
    return _deliver(self, run_id, delivery.SCORING, _score)


def _deliver(self, run_id: int, step, work) -> str:
    try:
        held = delivery.claim(run_id, delivery.new_token(self.request.id), step)
    except delivery.HeldElsewhere as exc:
        logger.info("run %s: %s; looking again in %.0f s", run_id, exc, exc.retry_in)
        if self.request.is_eager:
            return str(exc)
        # Waiting on a live holder is not a failure: the retry count does not limit it.
        raise self.retry(countdown=exc.retry_in, max_retries=self.request.retries + 1)
    except delivery.NotClaimed as exc:  # a duplicate delivery, a withdrawn run...: nothing to do, say so
        logger.info("run %s: %s", run_id, exc)
        return str(exc)
    return _holding(self, held, work)


def _holding(self, held: delivery.Claim, work) -> str:
    """``work(run, held)`` while ``held`` is beaten, guarded (:func:`_guarded`); the outcome."""
    try:
        with delivery.holding(held, beat=not self.request.is_eager, retried=TRANSIENT):
            run = Run.objects.select_related("campaign", "team").get(pk=held.run_id)
            try:
                return _guarded(self, run, held, work)
            except delivery.LostClaim as exc:
                logger.warning("%s", exc)
                return str(exc)
    except delivery.HandedOver as exc:  # a large run's coordinator left its shards to other processes
        logger.info("%s", exc)
        return str(exc)


def finish_sharded(self, held: delivery.Claim) -> str:
    """The last shard's task (``self``) ends the run its coordinator handed to its shards: the merge and the
    store a single scoring delivery does, under the coordinator's claim (:mod:`evaluation.pipeline.sharding`)."""
    return _holding(self, held, _merge_stored)


sharding.FINISH = finish_sharded  # the last shard's task finishes the run through the scoring task's code


def _guarded(self, run: Run, held: delivery.Claim, work) -> str:
    """``work(run, held)``, with every error turned into a retry or a named failure."""
    try:
        return work(run, held)
    except (delivery.LostClaim, delivery.HandedOver):
        raise
    except TRANSIENT as exc:
        if out_of_retries(self):
            logger.error("run %s: %s: %s; out of retries", run.pk, type(exc).__name__, exc)
            _fail(held, system_fault(exc))
        else:
            logger.warning("run %s: %s: %s; retried", run.pk, type(exc).__name__, exc)
        raise
    except sharding.ShardFailed as exc:  # located by the shard that failed; no result is stored
        _fail(held, str(exc))
        return "failed"
    except SoftTimeLimitExceeded:
        _fail(held, N_('caused by the run: it took longer than %(seconds)s seconds and was stopped') % {"seconds": settings.CELERY_TASK_SOFT_TIME_LIMIT})
        return "failed"
    except services.NoGold as exc:
        _fail(held, N_('not caused by the run: cannot score: %(exc)s') % {"exc": exc})
        return "failed"
    except InputError as exc:
        # The run was already checked, so this concerns the stored corpus or gold: keep them out of the reason.
        logger.error("run %s: the stored corpus or gold could not be read: %s", run.pk, exc)
        _fail(held, N_("not caused by the run: the campaign's reference files could not be read; "
                    "the organisers have been told"))
        return "failed"
    except Exception as exc:  # a permanent error: record it rather than retrying forever
        logger.exception("run %s failed", run.pk)
        _fail(held, N_('not caused by the run: internal error (%(name)s); the organisers can re-score the run') % {"name": type(exc).__name__})
        return "failed"


def _fail(held: delivery.Claim, reason: str) -> None:
    """Fail the run, if this delivery still holds it (another delivery's outcome counts otherwise)."""
    try:
        delivery.write(held, status=RunStatus.FAILED, reason=reason, progress=0)
    except delivery.LostClaim as exc:
        logger.warning("%s", exc)


def _setup(run: Run, kind, held: delivery.Claim):
    """What the campaign says of this run (:meth:`Kind.setup`), resolved once per step and passed down."""
    try:
        return kind.setup(run)
    except ValueError as exc:
        _fail(held, N_('not caused by the run: %(options_error)s: %(exc)s') % {"options_error": kind.options_error, "exc": exc})
        return None


def _validate(run: Run, held: delivery.Claim) -> str:
    """``uploaded -> validating -> invalid | queued`` (a development check goes on to be scored here)."""
    kind = kinds.for_campaign(run.campaign)
    setup = _setup(run, kind, held)
    if setup is None:
        return "failed"
    delivery.write(held, status=RunStatus.VALIDATING, progress=0)
    try:
        with local_copy(run.file, sha256=run.sha256) as path, \
                unpacked(run.campaign, path, run.original_filename, stored=True, suffixes=setup.suffixes,
                         kind=kind) as files:
            report = services.validate_run_files(run, files, services.ThrottledProgress(run.pk), setup=setup)
            if not report["valid"]:
                delivery.write(held, status=RunStatus.INVALID, reason=N_("%(count)s problem(s) found") % {"count": report["problem_count"]},
                               progress=100, validation_report=report)
                return "invalid"
            if run.scope == Run.Scope.DEV:
                delivery.write(held, status=RunStatus.SCORING, progress=0, validation_report=report)
                return _score_files(run, setup, held, files)
    except UploadRefused as exc:
        return _refused(run, held, exc)
    # Handed to the scoring queue: the claim ends with this write, the attempts count the scoring step afresh,
    # and the outbox mark stays set until the scoring task is sent.
    delivery.write(held, status=RunStatus.QUEUED, progress=0, validation_report=report, claimed_by="",
                   heartbeat_at=None, scoring_attempts=0, dispatch_pending=True)
    return QUEUED


def _score(run: Run, held: delivery.Claim) -> str:
    """``queued -> scoring -> scored``: a test run that validation found valid."""
    kind = kinds.for_campaign(run.campaign)
    delivery.write(held, status=RunStatus.SCORING, progress=0)
    setup = _setup(run, kind, held)
    if setup is None:
        return "failed"
    try:
        with local_copy(run.file, sha256=run.sha256) as path, \
                unpacked(run.campaign, path, run.original_filename, stored=True, suffixes=setup.suffixes,
                         kind=kind) as files:
            return _score_files(run, setup, held, files, across_workers=True)
    except UploadRefused as exc:
        return _refused(run, held, exc)


def _score_files(run: Run, setup, held: delivery.Claim, files, *, across_workers: bool = False) -> str:
    """Score and store; a large test run (``across_workers``) in shards on the scoring queue (:mod:`.sharding`)."""
    run.refresh_from_db(fields=["converted_file", "converter"])  # written by validation, perhaps in another process
    shards = sharding.plan(run, setup, files) if across_workers else []
    if shards:  # merged here if this delivery counted the last shard; else handed to them (delivery.HandedOver)
        document = sharding.score(run, setup, held, files, shards)
    else:
        document = services.score_run_files(run, files, services.ThrottledProgress(run.pk), setup=setup)
    return _stored(run, setup, document)


def _merge_stored(run: Run, held: delivery.Claim) -> str:
    """A sharded run's counted shards merged and stored, by the task that wrote the last of them."""
    setup = _setup(run, kinds.for_campaign(run.campaign), held)
    if setup is None:
        return "failed"
    return _stored(run, setup, sharding.merged(run, setup, held))


def _stored(run: Run, setup, document: dict) -> str:
    """Store the run's result (fenced by the delivery's claim) and ask for what follows a scored test run."""
    stored = services.store_result(run, document, metric=setup.kind.name,
                                   parameters=setup.kind.result_parameters(setup, document))
    if not stored:
        logger.warning("run %s: result not stored: another delivery holds the run or stored this round's result; "
                       "this delivery writes nothing more", run.pk)
        return delivery.DUPLICATE
    if run.scope == Run.Scope.TEST:
        # the results table changed: its pairs are tested again, and what the consensus combines may have changed
        signals.test_result_stored.send(sender=Run, run=run)
        if run.team.system:
            consensus_scored(run)
    return "scored"


def consensus_scored(run: Run) -> None:
    """A consensus scored after publication (rebuilt at publication): the published table takes it in a new
    snapshot, as the one taken at publication took the runs then scored."""
    if state_at_least(run.campaign, "published"):
        take_snapshot(run.campaign)


def _refused(run: Run, held: delivery.Claim, exc: UploadRefused) -> str:
    # Checked at upload; only a limit lowered since then can bring this here.
    report = {"valid": False, "problem_count": 1,
              "problems": [{"message": str(exc), "file": run.original_filename,
                            "line": None, "sentence": None, "element": None}],
              "warnings": []}
    delivery.write(held, status=RunStatus.INVALID, reason=str(exc), progress=100, validation_report=report)
    return "invalid"

