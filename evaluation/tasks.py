"""The scoring worker: one task takes a run from ``uploaded`` to ``scored``.

``uploaded -> validating -> invalid`` (with the report), or
``-> queued -> scoring -> scored`` (with a new Result), or ``failed`` with a
reason. The result and the ``scored`` status are written in one transaction,
so a worker killed mid-run leaves nothing half-written: with ``acks_late`` and
``reject_on_worker_lost`` the message goes back to the queue and the next
delivery starts the run again from validation.
"""
from __future__ import annotations

import logging
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from annotations.errors import InputError
from campaign.models import CampaignKind, Run, RunStatus
from campaign.rules import UploadRefused
from campaign.services.runs import unpacked
from evaluation import kinds, services
from evaluation.worker import TASK_OPTIONS, TRANSIENT, out_of_retries

logger = logging.getLogger(__name__)

WORKING = (RunStatus.UPLOADED, RunStatus.VALIDATING, RunStatus.QUEUED, RunStatus.SCORING)


@shared_task(**TASK_OPTIONS)
def score_run(self, run_id: int) -> str:
    run = Run.objects.select_related("campaign", "team").filter(pk=run_id).first()
    if run is None:
        return "missing"
    if run.withdrawn_at is not None:
        return "withdrawn"
    if run.status not in WORKING:
        return f"already {run.status}"  # a duplicate delivery of a finished run
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
    Run.objects.filter(pk=run.pk).update(progress=0)
    run.refresh_from_db()
    run.set_status(RunStatus.FAILED, reason=reason)


def _process(run: Run) -> str:
    campaign = run.campaign
    if campaign.kind != CampaignKind.EASY:
        return _process_kind(run, kinds.for_campaign(campaign))
    try:
        schema = services.campaign_schema(campaign)
    except ValueError as exc:
        _fail(run, f"the annotation guide's schema is malformed: {exc}")
        return "failed"
    outcome, document = _validate_and_score(
        run,
        lambda files: services.validate_run_files(run, files, schema, services.ThrottledProgress(run.pk)),
        lambda files: services.score_run_files(run, files, schema, services.ThrottledProgress(run.pk)))
    if outcome == "invalid":
        return outcome
    services.store_result(run, document, parameters=services.scoring_parameters(campaign))
    return "scored"


def _process_kind(run: Run, kind) -> str:
    """The same states for the tree and dependency kinds, through :mod:`evaluation.kinds`."""
    try:
        parameters = kind.parameters(run.campaign)
    except ValueError as exc:
        _fail(run, f"the campaign's scoring options are wrong: {exc}")
        return "failed"
    outcome, document = _validate_and_score(
        run,
        lambda files: kind.validate_run_files(run, files, services.ThrottledProgress(run.pk)),
        lambda files: kind.score_run_files(run, files, services.ThrottledProgress(run.pk)))
    if outcome == "invalid":
        return outcome
    services.store_result(run, document, metric=kind.name, parameters=parameters)
    return "scored"


def _validate_and_score(run: Run, validate, score) -> tuple[str, dict | None]:
    """The states every kind goes through between ``uploaded`` and storing the result.

    ``validate(files)`` returns the validation report and ``score(files)`` the scored document, both on the
    unpacked run. Returns ``("invalid", None)`` (status and report already written) or ``("scored", document)``.
    """
    run.set_status(RunStatus.VALIDATING, progress=0)
    try:
        with unpacked(run.campaign, Path(run.file.path), run.original_filename) as files:
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
