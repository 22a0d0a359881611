"""Results pages: each campaign's kind draws them (:meth:`campaign_page`, :meth:`run_page` of its kind object).

Who sees which figures is decided by :mod:`campaign.visibility`, through
:mod:`evaluation.results.summaries`, the same for every kind.
"""
from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404

from campaign import kinds, visibility
from campaign.models import Campaign, Run

from evaluation.results import summaries
from evaluation.results.text import for_programs


def _campaign_or_404(user, slug: str) -> Campaign:
    campaign = get_object_or_404(Campaign, slug=slug)
    if not visibility.can_see_campaign(user, campaign):
        raise Http404("No such campaign.")
    return campaign


def campaign_results(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    return kinds.for_campaign(campaign).campaign_page(request, campaign)


def run_results(request, slug: str, pk: int):
    campaign = _campaign_or_404(request.user, slug)
    run = get_object_or_404(Run.objects.select_related("team", "campaign"), pk=pk, campaign=campaign)
    return kinds.for_campaign(campaign).run_page(request, campaign, run)


@for_programs()
def campaign_results_json(request, slug: str):
    """The same dict the page draws from, as the requesting user may see it."""
    campaign = _campaign_or_404(request.user, slug)
    # With mode and match, only what the page of that way draws; without, every cell.
    if "mode" not in request.GET and "match" not in request.GET:
        return HttpResponse(summaries.served_results_json(request.user, campaign), content_type="application/json")
    visible = summaries.visible_results(request.user, campaign, way=summaries.way_selection(request.GET))
    return JsonResponse({"source": visible.source, "data": summaries.served_results(request.user, campaign, visible.data)})
