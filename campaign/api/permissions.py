"""API permissions: thin wrappers over :mod:`campaign.visibility`, which decides everything."""
from __future__ import annotations

from rest_framework.permissions import BasePermission

from campaign import visibility


class CanSeeCampaign(BasePermission):
    def has_object_permission(self, request, view, obj) -> bool:
        return visibility.can_see_campaign(request.user, obj)


class CanSeeRun(BasePermission):
    """Checked on the object; views turn a refusal into 404 so that a run's existence is not revealed."""

    def has_object_permission(self, request, view, obj) -> bool:
        return visibility.can_see_run(request.user, obj)
