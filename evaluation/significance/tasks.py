"""The worker task that computes a campaign's paired significance tests, on its own queue, at most once per wave.

Every scored test run asks for its campaign's tests again (:func:`evaluation.significance.sets.enqueue`), and one
computation covers every pair of the table, so a burst of scored runs needs one
computation, not one per run. Each request raises the campaign's request number
(:class:`~evaluation.models.SignificanceRequest`) and sends it with the task; a
computation records, once finished, the number that had been requested when it
started. A queued request whose number a finished computation already covered
exits at once: however many runs are scored meanwhile, at most one pending
computation per campaign does the work, and it reads the stored per-sentence rows
(:mod:`evaluation.results.sentence_rows`). A request without a number (a publication) always
computes. A computation killed midway records nothing, so its redelivery computes.

The queue is ``significance`` (:mod:`config.queues`), apart from validation and scoring:
a slow table of many pairs never holds up a run.
"""
from __future__ import annotations

import logging

from celery import shared_task

from campaign.models import Campaign
from evaluation.significance import run_cache, sets as significance
from evaluation.models import SignificanceRequest
from evaluation.pipeline.worker import TASK_OPTIONS

logger = logging.getLogger(__name__)

COVERED = "already covered by a newer computation"


@shared_task(name=significance.SIGNIFICANCE_TASK, **TASK_OPTIONS)
def compute_significance(self, campaign_id: int, requested: int | None = None) -> str:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return "missing"
    marker = SignificanceRequest.objects.filter(campaign_id=campaign_id).first()
    if marker is not None and marker.covered(requested):
        return f"request {requested}: {COVERED} (of request {marker.computed})"
    covers = marker.requested if marker is not None else 0  # what this computation will have seen
    computed = significance.compute(campaign)
    SignificanceRequest.mark_computed(campaign_id, covers)
    run_cache.sweep_safely()  # this worker's disk, where the figures of every computation are kept
    return (f"{computed.stored} paired differences over {len(computed.results)} results "
            f"(requests up to {covers})")
