"""API permissions, all decided by :mod:`campaign.visibility`.

What a user may not see at all is looked up as if it did not exist (404);
what they may see but not yet read (unreleased scores) is refused (403)
without any figure in the answer.
"""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework.permissions import BasePermission

from campaign import visibility
from campaign.models import Campaign, Run


def visible_campaign(request, slug: str) -> Campaign:
    campaign = get_object_or_404(Campaign, slug=slug)
    if not visibility.can_see_campaign(request.user, campaign):
        raise Http404
    return campaign


def visible_run(request, pk: int) -> Run:
    run = get_object_or_404(Run.objects.select_related("campaign", "team"), pk=pk)
    if not visibility.can_see_run(request.user, run):
        raise Http404  # another team's run does not exist for you
    return run


class CanSeeScores(BasePermission):
    message = "Scores of this run are not released yet."

    def has_object_permission(self, request, view, obj: Run) -> bool:
        return visibility.can_see_own_scores(request.user, obj)
