"""The analysis of a test run, computed once after its scoring, on the analysis (significance) queue.

:func:`on_test_result_stored` listens to :data:`evaluation.pipeline.signals.test_result_stored` (connected in
:meth:`evaluation.apps.EvaluationConfig.ready`) and asks a worker for :func:`analyse_result`, which computes the
result's analysis and keeps it (:mod:`evaluation.analysis.store`); a redelivery finds it kept and does nothing.
A development check's analysis, and any result's that was never computed, is computed by the first page that
needs it. Nothing of this is shown to anyone but the organisers before the gold release (:mod:`.access`), so
when it is computed says nothing.
"""
from __future__ import annotations

import logging

from celery import shared_task

from campaign import kinds
from evaluation.models import Result
from evaluation.pipeline.worker import TASK_OPTIONS

from . import precomputed, store  # noqa: F401  (precomputed: its task, registered with these)

logger = logging.getLogger(__name__)

ANALYSIS_TASK = "evaluation.analysis.tasks.analyse_result"


def on_test_result_stored(sender, run, **kwargs) -> None:
    """A test run's result was stored: its analysis is asked for (never lets a broker problem fail scoring)."""
    result = Result.objects.filter(run=run).order_by("-created_at", "-pk").values_list("pk", flat=True).first()
    if result is None:
        return
    try:
        kinds.enqueue(ANALYSIS_TASK, result)
    except Exception:  # the first page that needs it computes it
        logger.exception("could not enqueue the analysis of result %s", result)


@shared_task(name=ANALYSIS_TASK, **TASK_OPTIONS)
def analyse_result(self, result_id: int) -> str:
    result = Result.objects.filter(pk=result_id).select_related("run__campaign", "run__team").first()
    if result is None:
        return "missing"
    if store.stored(result) is not None:
        return "kept"
    made = store.analysis_of(result)
    return "no analysis" if made is None else f"analysis of result {result_id} in {made.row.seconds:.1f} s"
