"""Stored files and caches that nothing will read again, removed: the upkeep of a long campaign's disk.

* **What a kind stores beside a run's file** for its own reading (an EASY run's index,
  :mod:`evaluation.kinds.easy.run_index`; the kind's ``forget_run_files`` and ``sweep_stored`` hooks): a
  withdrawn run's is deleted by a worker once the withdrawal is committed (:data:`campaign.kinds.FORGET_RUN_TASK`,
  sent by the campaign layer by name, as its other tasks: no model signal calls up into this app), and the
  periodic sweep removes those of withdrawn or deleted runs that are left, those whose run file is gone, and
  those of another key (an older scorer or converter version, another schema) that no scoring reads; and by
  the same sweep a CoNLL-U run's conversions no run names (an older converter's) and the gold's indexes of
  another key (:mod:`evaluation.kinds.easy.gold`), each once no task started before it was replaced can
  still be reading it (the task time limit).
* **The significance figures** (:mod:`evaluation.significance.run_cache`, on the disk of the worker that
  computes them): swept after each computation on that worker, and by the periodic sweep and the
  ``sweep_caches`` command on the host they run on (the same disk in the embedded default): entries of results
  and contexts no set compares, then the least recently used past ``PARSEVAL_SIGNIFICANCE_CACHE_BYTES``.
* **The analysis pages' kept values** (:mod:`evaluation.analysis.precomputed`, rows of the database): those no
  page read for ``PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS`` (a reading marks them read, so a value in use stays).

All are caches: whatever is removed costs time (a run's files read again, a run's figures resampled again, a
page's value computed again by a worker), never a result. The sweep is beat's ``storage-upkeep`` entry (hourly by default, apart from the recovery
sweep, whose half-minute period is for runs that wait, not for listing every stored run folder).
"""
from __future__ import annotations

import logging

from celery import shared_task

from campaign import kinds
from campaign.models import Run
from evaluation.analysis import precomputed
from evaluation.significance import run_cache

logger = logging.getLogger(__name__)

SWEEP_TIME_LIMIT = 900


def sweep_run_indexes() -> dict:
    """What every kind stored beside the runs' files that no scoring will read, deleted; counts by reason,
    summed over the kinds."""
    outcome: dict[str, int] = {}
    for kind in kinds.registered().values():
        for reason, n in kind.sweep_stored().items():
            outcome[reason] = outcome.get(reason, 0) + n
    return outcome


# The counts of what a sweep found, beside those of what it removed (by reason)
FOUND = frozenset({"indexes", "gold_indexes", "conversions"})


def sweep() -> dict:
    outcome = {"run_indexes": sweep_run_indexes(), "significance_cache": run_cache.sweep(),
               "analysis_values": precomputed.sweep()}
    removed = sum(v for k, v in outcome["run_indexes"].items() if k not in FOUND) + sum(
        outcome["significance_cache"][k] for k in ("stale", "evicted")) + outcome["analysis_values"]["idle"]
    if removed:
        logger.info("storage upkeep: %s", outcome)
    return outcome


@shared_task(name="evaluation.upkeep.sweep_caches", ignore_result=True, time_limit=SWEEP_TIME_LIMIT,
             soft_time_limit=SWEEP_TIME_LIMIT - 60)
def sweep_caches() -> dict:
    return sweep()


@shared_task(name=kinds.FORGET_RUN_TASK, ignore_result=True)
def forget_run_files(run_id: int) -> int:
    """A withdrawn run's kind's files beside its run file, deleted (a failure leaves them to the sweep)."""
    run = Run.objects.select_related("campaign").filter(pk=run_id).first()
    if run is None or run.withdrawn_at is None:
        return 0
    try:
        return kinds.for_campaign(run.campaign).forget_run_files(run)
    except Exception:  # the periodic sweep removes what is left
        logger.warning("files beside run %s not removed", run_id, exc_info=True)
        return 0
