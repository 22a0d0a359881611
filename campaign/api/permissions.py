"""API permissions, all decided by :mod:`campaign.visibility`.

What a user may not see at all is looked up as if it did not exist (404);
what they may see but not yet read (unreleased scores) is refused (403)
without any figure in the answer.
"""
from __future__ import annotations

from rest_framework.permissions import BasePermission

from campaign import visibility
from campaign.models import Campaign, Run


def visible_campaign(request, slug: str) -> Campaign:
    return visibility.get_visible_or_404(Campaign, visibility.can_see_campaign, request.user, slug=slug)


def visible_run(request, pk: int) -> Run:
    # another team's run does not exist for you
    return visibility.get_visible_or_404(Run.objects.select_related("campaign", "team"), visibility.can_see_run,
                                         request.user, pk=pk)


class CanSeeScores(BasePermission):
    message = "Scores of this run are not released yet."

    def has_object_permission(self, request, view, obj: Run) -> bool:
        return visibility.can_see_own_scores(request.user, obj)
