"""The worker task that builds a campaign's publication bundle, on the significance queue.

Sent once the publication (or the gold release) is committed (:mod:`campaign.lifecycle`) and by
the organisers' console. Building reads the snapshot, the stored results and their per-sentence
rows (computed once and kept, :mod:`evaluation.results.sentence_rows`), so it is analysis work, apart from
scoring (:mod:`config.queues`). A redelivery builds the same bytes and stores nothing new.
"""
from __future__ import annotations

from celery import shared_task

from campaign import kinds
from campaign.models import Campaign
from evaluation.bundle import publication as publication_bundle
from evaluation.pipeline.worker import TASK_OPTIONS


@shared_task(name=kinds.BUNDLE_TASK, **TASK_OPTIONS)
def build_bundle(self, campaign_id: int) -> str:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return "missing"
    try:
        bundle = publication_bundle.build(campaign)
    except publication_bundle.BundleRefused as refused:
        return str(refused)
    return f"bundle {bundle.sha256}"
