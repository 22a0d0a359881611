"""The worker task that builds a campaign's consensus pseudo-run, on the scoring queue, at most once per wave.

Every scored test run of a team asks for its campaign's consensus again
(:func:`request`), as it does for the significance tests, and so do a
withdrawal, a disqualification, the organiser's new choice and the
publication. Requests are counted on :class:`~evaluation.models.ConsensusSetting`
and coalesced as :mod:`evaluation.significance.tasks` coalesces the tests: a
queued request that a finished build already covered exits at once, and a
build whose inputs have not changed does nothing
(:func:`evaluation.consensus.runs.build`). The consensus run it makes is
validated and scored by the ordinary run tasks.

The queue is ``scoring`` (:mod:`config.queues`): the consensus follows the
scoring of the runs it combines and is scored on the same queue.
"""
from __future__ import annotations

import logging

from celery import shared_task

from campaign import kinds
from campaign.models import Campaign
from evaluation.consensus import runs as consensus_runs
from evaluation.models import ConsensusSetting
from evaluation.pipeline.worker import TASK_OPTIONS

logger = logging.getLogger(__name__)

COVERED = "already covered by a newer build"


def request(campaign_id: int) -> None:
    """Ask a worker for the campaign's consensus; never lets a broker problem fail the caller."""
    try:
        if not ConsensusSetting.objects.filter(campaign_id=campaign_id, enabled=True).exists():
            return  # no consensus asked for: nothing to queue (and no kind looked up in the scoring step)
        kinds.enqueue(kinds.CONSENSUS_TASK, campaign_id, requested=ConsensusSetting.ask(campaign_id))
    except Exception:  # the consensus can be asked for again; the score must stand
        logger.exception("could not enqueue the consensus of campaign %s", campaign_id)


def on_test_result_stored(sender, run, **kwargs) -> None:
    """A team's test run was scored (:data:`evaluation.pipeline.signals.test_result_stored`): what the consensus
    combines may have changed. The consensus's own scored run asks nothing (the pipeline takes its snapshot)."""
    if not run.team.system:
        request(run.campaign_id)


@shared_task(name=kinds.CONSENSUS_TASK, **TASK_OPTIONS)
def build_consensus(self, campaign_id: int, requested: int | None = None) -> str:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return "missing"
    marker = ConsensusSetting.objects.filter(campaign_id=campaign_id).first()
    if marker is None or not marker.enabled:
        return "no consensus asked for"
    if marker.covered(requested):
        return f"request {requested}: {COVERED} (of request {marker.computed})"
    covers = marker.requested
    run = consensus_runs.build(campaign)
    ConsensusSetting.mark_computed(campaign_id, covers)
    return "nothing to combine" if run is None else f"consensus run {run.pk} (requests up to {covers})"
