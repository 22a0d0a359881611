"""Stored files and caches that nothing will read again, removed: the upkeep of a long campaign's disk.

* **Run indexes** (:mod:`evaluation.kinds.easy.run_index`, beside each valid EASY run's file, in its storage):
  a run's go when the run is deleted or withdrawn (at once, once the change is committed), and the periodic
  sweep removes those of a withdrawn or deleted run that are left, those whose run file is gone, and those of
  another key (an older scorer or converter version, another schema) that no scoring reads.
* **The significance figures** (:mod:`evaluation.significance.run_cache`, on the disk of the worker that
  computes them): swept after each computation on that worker, and by the periodic sweep and the
  ``sweep_caches`` command on the host they run on (the same disk in the embedded default): entries of results
  and contexts no set compares, then the least recently used past ``PARSEVAL_SIGNIFICANCE_CACHE_BYTES``.

Both are caches: whatever is removed costs time (a run's files read again, a run's figures resampled again),
never a result. The sweep is beat's ``storage-upkeep`` entry (hourly by default, apart from the recovery
sweep, whose half-minute period is for runs that wait, not for listing every stored run folder).
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction

from campaign.models import Campaign, CampaignKind, Run
from evaluation.kinds.easy import run_index
from evaluation.kinds.easy.options import campaign_schema
from evaluation.significance import run_cache

logger = logging.getLogger(__name__)

SWEEP_TIME_LIMIT = 900


def sweep_run_indexes() -> dict:
    """Every run index that no scoring will read, deleted from the runs' storage (:func:`run_index.sweep`)."""
    schemas: dict[int, object] = {}
    for campaign in Campaign.objects.filter(kind=CampaignKind.EASY):
        try:
            schemas[campaign.pk] = campaign_schema(campaign)
        except ValueError:  # a malformed guide schema: which keys scoring reads cannot be told, keep them all
            schemas[campaign.pk] = False
    runs = {run.file.name: (run, schemas.get(run.campaign_id))
            for run in Run.objects.exclude(file="").only("pk", "file", "campaign_id", "withdrawn_at", "sha256",
                                                         "converter")}
    return run_index.sweep(Run._meta.get_field("file").storage, runs)


def sweep() -> dict:
    outcome = {"run_indexes": sweep_run_indexes(), "significance_cache": run_cache.sweep()}
    removed = sum(v for k, v in outcome["run_indexes"].items() if k != "indexes") + sum(
        outcome["significance_cache"][k] for k in ("stale", "evicted"))
    if removed:
        logger.info("storage upkeep: %s", outcome)
    return outcome


@shared_task(name="evaluation.upkeep.sweep_caches", ignore_result=True, time_limit=SWEEP_TIME_LIMIT,
             soft_time_limit=SWEEP_TIME_LIMIT - 60)
def sweep_caches() -> dict:
    return sweep()


def _remove_indexes(file_name: str, storage) -> None:
    try:
        run_index.remove(storage, file_name)
    except Exception:  # the periodic sweep removes what is left
        logger.warning("run indexes beside %s not removed", file_name, exc_info=True)


def on_run_deleted(sender, instance: Run, **kwargs) -> None:
    if instance.file.name:
        name, storage = instance.file.name, instance.file.storage
        transaction.on_commit(lambda: _remove_indexes(name, storage))


def on_run_saved(sender, instance: Run, update_fields=None, **kwargs) -> None:
    """A run withdrawn (:func:`campaign.services.runs.withdraw_run` saves ``withdrawn_at`` alone)."""
    if update_fields and "withdrawn_at" in update_fields and instance.withdrawn_at is not None \
            and instance.file.name:
        name, storage = instance.file.name, instance.file.storage
        transaction.on_commit(lambda: _remove_indexes(name, storage))
