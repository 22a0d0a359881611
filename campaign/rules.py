"""Run rules: when a team may upload, and how many runs it may have."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from .models import Campaign, CampaignState, Run, RunStatus, Team


class UploadRefused(Exception):
    """An upload that the campaign's rules do not allow. The message is for the team."""


def active_runs(team: Team):
    """Runs that count against the limit: not withdrawn, not invalid, evaluation scope."""
    return team.runs.filter(withdrawn_at__isnull=True, scope=Run.Scope.TEST).exclude(status=RunStatus.INVALID)


def check_upload_allowed(campaign: Campaign, team: Team, *, scope: str = Run.Scope.TEST, now=None) -> None:
    now = now or timezone.now()
    if campaign.state != CampaignState.OPEN or (campaign.deadline and now >= campaign.deadline):
        if campaign.deadline:
            raise UploadRefused(
                f"The campaign {campaign.name!r} does not accept runs: the deadline was "
                f"{campaign.deadline:%Y-%m-%d %H:%M %Z}."
                if now >= campaign.deadline
                else f"The campaign {campaign.name!r} is {campaign.get_state_display().lower()} and does not accept runs."
            )
        raise UploadRefused(f"The campaign {campaign.name!r} is {campaign.get_state_display().lower()} and does not accept runs.")
    if team.campaign_id != campaign.pk:
        raise UploadRefused("This team does not take part in this campaign.")
    since = now - timedelta(days=1)
    invalid_today = team.runs.filter(status=RunStatus.INVALID, uploaded_at__gte=since).count()
    if invalid_today >= campaign.invalid_uploads_per_day:
        raise UploadRefused(
            f"Your team has made {invalid_today} invalid uploads in the last 24 hours, "
            f"the campaign's limit; try again later."
        )
    if scope == Run.Scope.TEST:
        count = active_runs(team).count()
        if count >= campaign.runs_per_team:
            raise UploadRefused(
                f"Your team already has {count} runs, the campaign's limit of {campaign.runs_per_team}; "
                f"withdraw one before uploading another."
            )
