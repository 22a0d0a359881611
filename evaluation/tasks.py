"""The scoring worker: one task takes a run from ``uploaded`` to ``scored``.

``uploaded -> validating -> invalid`` (with the report), or
``-> queued -> scoring -> scored`` (with a new Result), or ``failed`` with a
reason. The result and the ``scored`` status are written in one transaction,
so a worker killed mid-run leaves nothing half-written: with ``acks_late`` and
``reject_on_worker_lost`` the message goes back to the queue and the next
delivery starts the run again from validation. Each delivery claims the run
first (:mod:`evaluation.delivery`), so a duplicate one is a no-op.
"""
from __future__ import annotations

import logging
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from annotations.errors import InputError
from campaign import kinds
from campaign.models import Run, RunStatus
from campaign.rules import UploadRefused
from campaign.services.runs import unpacked
from evaluation import delivery, services, significance
from evaluation.worker import TASK_OPTIONS, TRANSIENT, out_of_retries

logger = logging.getLogger(__name__)


@shared_task(**TASK_OPTIONS)
def score_run(self, run_id: int) -> str:
    try:
        held = delivery.claim(run_id, delivery.new_token(self.request.id))
    except delivery.HeldElsewhere as exc:
        logger.info("run %s: %s; looking again in %.0f s", run_id, exc, exc.retry_in)
        if self.request.is_eager:
            return str(exc)
        # Waiting on a live holder is not a failure: the retry count does not limit it.
        raise self.retry(countdown=exc.retry_in, max_retries=self.request.retries + 1)
    except delivery.NotClaimed as exc:  # a duplicate delivery, a withdrawn run...: nothing to do, say so
        logger.info("run %s: %s", run_id, exc)
        return str(exc)
    with delivery.holding(held, beat=not self.request.is_eager):
        return _score_claimed(self, Run.objects.select_related("campaign", "team").get(pk=run_id))


def _score_claimed(self, run: Run) -> str:
    try:
        return _process(run)
    except TRANSIENT as exc:
        if out_of_retries(self):
            _fail(run, f"the database or queue was unavailable ({type(exc).__name__}) after {self.max_retries} "
                       f"retries; the organisers can re-score the run")
        raise
    except SoftTimeLimitExceeded:
        _fail(run, f"scoring took longer than {settings.CELERY_TASK_SOFT_TIME_LIMIT} seconds and was stopped")
        return "failed"
    except services.NoGold as exc:
        _fail(run, f"cannot score: {exc}")
        return "failed"
    except InputError as exc:
        # The run was already checked, so this concerns the stored corpus or gold: keep them out of the reason.
        logger.error("run %s: the stored corpus or gold could not be read: %s", run.pk, exc)
        _fail(run, "the campaign's reference files could not be read; the organisers have been told")
        return "failed"
    except Exception as exc:  # a permanent error: record it rather than retrying forever
        logger.exception("run %s failed", run.pk)
        _fail(run, f"internal error ({type(exc).__name__}); the organisers can re-score the run")
        return "failed"


def _fail(run: Run, reason: str) -> None:
    if not delivery.still_held(run.pk):  # another delivery took the run over: its outcome counts
        return
    Run.objects.filter(pk=run.pk).update(progress=0)
    run.refresh_from_db()
    run.set_status(RunStatus.FAILED, reason=reason)


def _process(run: Run) -> str:
    """The same states for every kind, through the campaign's kind object."""
    kind = kinds.for_campaign(run.campaign)
    try:
        setup = kind.setup(run)  # what the campaign says of this run, resolved once and passed down
    except ValueError as exc:
        _fail(run, f"{kind.options_error}: {exc}")
        return "failed"
    outcome, document = _validate_and_score(
        run,
        lambda files: services.validate_run_files(run, files, services.ThrottledProgress(run.pk), setup=setup),
        lambda files: services.score_run_files(run, files, services.ThrottledProgress(run.pk), setup=setup),
        setup=setup)
    if outcome == "invalid":
        return outcome
    stored = services.store_result(run, document, metric=kind.name,
                                   parameters=kind.result_parameters(setup, document))
    if not stored:
        return delivery.DUPLICATE
    if run.scope == Run.Scope.TEST:
        significance.enqueue(run.campaign_id)  # the results table changed: its pairs are tested again
    return "scored"


def _validate_and_score(run: Run, validate, score, *, setup=None) -> tuple[str, dict | None]:
    """The states every kind goes through between ``uploaded`` and storing the result.

    ``validate(files)`` returns the validation report and ``score(files)`` the scored document, both on the
    unpacked run. Returns ``("invalid", None)`` (status and report already written) or ``("scored", document)``.
    """
    run.set_status(RunStatus.VALIDATING, progress=0)
    try:
        with unpacked(run.campaign, Path(run.file.path), run.original_filename, stored=True,
                      suffixes=setup.suffixes if setup else None, kind=setup.kind if setup else None) as files:
            report = validate(files)
            run.validation_report = report
            run.save(update_fields=["validation_report"])
            if not report["valid"]:
                run.set_status(RunStatus.INVALID, reason=f"{report['problem_count']} problem(s) found", progress=100)
                return "invalid", None
            run.set_status(RunStatus.QUEUED, progress=0)
            run.set_status(RunStatus.SCORING, progress=0)
            return "scored", score(files)
    except UploadRefused as exc:
        # Checked at upload; only a limit lowered since then can bring this here.
        run.validation_report = {"valid": False, "problem_count": 1,
                                 "problems": [{"message": str(exc), "file": run.original_filename,
                                               "line": None, "sentence": None, "element": None}],
                                 "warnings": []}
        run.save(update_fields=["validation_report"])
        run.set_status(RunStatus.INVALID, reason=str(exc), progress=100)
        return "invalid", None


# Registered with the worker beside score_run (autodiscovery reads this module only).
from evaluation.lab.tasks import run_error_lab_job  # noqa: E402,F401
from evaluation.recovery import recover_runs  # noqa: E402,F401
from evaluation.significance_tasks import compute_significance  # noqa: E402,F401
