"""The error-lab worker: one task runs :func:`parseval.evaluation.deps.errorlab.run_error_lab` on a job's treebanks."""
from __future__ import annotations

import json
import logging
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from parseval.annotations.errors import InputError
from campaign.stored_files import local_copy
from evaluation.models import ErrorLabJob
from evaluation.pipeline.worker import TASK_OPTIONS, TRANSIENT, out_of_retries, system_fault
from parseval.annotations.trees.detect import read_trees
from parseval.evaluation.deps import errorlab

logger = logging.getLogger(__name__)


class _Progress:
    """Writes the job's progress and step at most once a second: the lab calls back per (treebank, type)."""

    def __init__(self, job_id: int, total: int, interval: float = 1.0):
        self.job_id, self.total, self.interval = job_id, max(total, 1), interval
        self.done, self.last = 0, 0.0

    def __call__(self, treebank: str, error_type: str) -> None:
        now = time.monotonic()
        if now - self.last >= self.interval:
            ErrorLabJob.objects.filter(pk=self.job_id).update(
                progress=min(99, 100 * self.done // self.total), step=f"{treebank}: {error_type}"[:200])
            self.last = now
        self.done += 1


def _fail(job_id: int, reason: str) -> None:
    ErrorLabJob.objects.filter(pk=job_id).update(status=ErrorLabJob.Status.FAILED, status_reason=reason,
                                                 finished_at=timezone.now(), step="")


@shared_task(name="evaluation.lab.tasks.run_error_lab_job", **TASK_OPTIONS)
def run_error_lab_job(self, job_id: int) -> str:
    job = ErrorLabJob.objects.filter(pk=job_id).first()
    if job is None:
        return "missing"
    if job.finished:
        return f"already {job.status}"  # a duplicate delivery
    try:
        return _run(job)
    except TRANSIENT as exc:
        if out_of_retries(self):
            _fail(job.pk, system_fault(exc, subject="the uploaded files", remedy="start the lab again once it is fixed"))
        raise
    except SoftTimeLimitExceeded:
        _fail(job.pk, f"the lab took longer than {settings.CELERY_TASK_SOFT_TIME_LIMIT} seconds and was stopped")
        return "failed"
    except InputError as exc:
        _fail(job.pk, str(exc))
        return "failed"
    except Exception as exc:  # permanent: say so rather than retry forever
        logger.exception("error-lab job %s failed", job.pk)
        _fail(job.pk, f"internal error ({type(exc).__name__})")
        return "failed"


def _run(job: ErrorLabJob) -> str:

    ErrorLabJob.objects.filter(pk=job.pk).update(status=ErrorLabJob.Status.RUNNING, progress=0, status_reason="")
    names = job.parameters["treebanks"]
    treebanks = {}
    for name, fieldfile in zip(names, (job.treebank_a, job.treebank_b)):
        try:
            with local_copy(fieldfile) as path:
                treebanks[name] = read_trees(path)
        except InputError as exc:
            for p in exc.problems:
                p.file = name
            raise
    progress = _Progress(job.pk, len(treebanks) * len(errorlab.ERROR_TYPES))
    result = errorlab.run_error_lab(treebanks, labels=labels_spec(job), seed=int(job.parameters["seed"]),
                           per_type=int(job.parameters["per_type"]), progress=progress)
    ErrorLabJob.objects.filter(pk=job.pk).update(status=ErrorLabJob.Status.DONE, progress=100, step="",
                                                 result=result, finished_at=timezone.now())
    return "done"


def labels_spec(job: ErrorLabJob):
    """What run_error_lab takes as labels: the uploaded file, else the preset."""
    if job.labels_file:
        if job.labels_file.name.lower().endswith(".json"):
            with job.labels_file.open("rb") as fh:
                return json.loads(fh.read().decode("utf-8"))
        return _toml(job.labels_file)
    return job.parameters.get("preset", "penn")


def _toml(fieldfile) -> dict:
    import tomllib

    with fieldfile.open("rb") as fh:
        return tomllib.loads(fh.read().decode("utf-8"))
