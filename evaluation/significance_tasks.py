"""The worker task that computes a campaign's paired significance tests (enqueued by name)."""
from __future__ import annotations

from celery import shared_task

from campaign.models import Campaign
from evaluation import significance
from evaluation.worker import TASK_OPTIONS


@shared_task(name=significance.SIGNIFICANCE_TASK, **TASK_OPTIONS)
def compute_significance(self, campaign_id: int) -> str:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return "missing"
    computed = significance.compute(campaign)
    return f"{computed.pairs.count()} paired differences over {len(computed.results)} results"
