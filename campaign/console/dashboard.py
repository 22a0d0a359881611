"""What the organiser dashboard shows about one campaign.

Each function is a fixed number of queries whatever the size of the campaign.
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Prefetch
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from campaign import kinds
from campaign.models import Campaign, CampaignState, Membership, Run, RunStatus, Team, TeamAdmission

# States a run passes through on its way to a verdict; one that stays in them too long is stuck.
WORKING = (RunStatus.UPLOADED, RunStatus.VALIDATING, RunStatus.QUEUED, RunStatus.SCORING)
QUEUE = (RunStatus.QUEUED, RunStatus.SCORING)


def teams_with_members(campaign: Campaign) -> list[Team]:
    memberships = Membership.objects.select_related("user").order_by("role", "user__username")
    return list(
        campaign.teams.annotate(run_count=Count("runs"))
        .prefetch_related(Prefetch("memberships", queryset=memberships))
        .order_by("name")
    )


def run_formats(campaign: Campaign) -> str:
    """The run files the campaign takes, where its kind says ("" otherwise)."""
    return kinds.for_campaign(campaign).run_formats_label(campaign)


def runs_by_status(campaign: Campaign) -> list[dict]:
    """Runs in each status, withdrawn runs apart: a withdrawn run keeps its last status but is no longer
    scored, queued or published, so counting it there would overstate the work in hand."""
    active = campaign.runs.filter(withdrawn_at__isnull=True)
    counts = dict(active.values_list("status").annotate(n=Count("pk")).order_by())
    rows = [{"status": value, "label": label, "count": counts.get(value, 0)} for value, label in RunStatus.choices]
    rows.append({"status": "withdrawn", "label": "Withdrawn",
                 "count": campaign.runs.filter(withdrawn_at__isnull=False).count()})
    return rows


def scoring_queue(campaign: Campaign) -> list[Run]:
    return list(
        campaign.runs.filter(status__in=QUEUE, withdrawn_at__isnull=True)
        .select_related("team")
        .order_by("status_changed_at", "pk")
    )


def stuck_threshold(now=None):
    now = now or timezone.now()
    return now - timedelta(seconds=settings.PARSEVAL_STUCK_AFTER_SECONDS)


def stuck_runs(campaign: Campaign, now=None) -> list[Run]:
    """Runs still working after ``PARSEVAL_STUCK_AFTER_SECONDS`` in the same state."""
    return list(
        campaign.runs.filter(status__in=WORKING, withdrawn_at__isnull=True, status_changed_at__lt=stuck_threshold(now))
        .select_related("team")
        .order_by("status_changed_at", "pk")
    )


def failed_runs(campaign: Campaign) -> list[Run]:
    """Failed runs with their reasons. One that failed after a valid report is an internal error: its team
    sees it as accepted for scoring until the results are released (docs/governance.md)."""
    runs = list(campaign.runs.filter(status=RunStatus.FAILED, withdrawn_at__isnull=True).select_related("team")
                .order_by("-status_changed_at", "-pk"))
    for run in runs:
        run.after_valid_report = bool((run.validation_report or {}).get("valid"))
    return runs


def recent_runs(campaign: Campaign, limit: int = 50) -> list[Run]:
    return list(campaign.runs.select_related("team", "uploaded_by").order_by("-uploaded_at", "-pk")[:limit])


ADMISSION_WHY = {
    TeamAdmission.APPROVAL: _(
        "the default for a campaign with a hidden test set: each team is a run quota and a set of probes of "
        "the test set, so the number of teams is the organisers' to decide, and the disclosure budget counts "
        "the teams they admit"),
    TeamAdmission.EMAIL: _(
        "each team's account has proved an e-mail address; addresses cost little, so a person with several "
        "can still register several teams, each with its own quota"),
    TeamAdmission.OPEN: _(
        "any account may register a team, and an account is a sign-up away (10 an hour per client address): "
        "each is a new run quota and a new set of probes of the test set"),
}


def admission(campaign: Campaign) -> dict:
    """How teams get in, why, how many wait, and whether that choice exposes a hidden test set."""
    hidden = campaign.gold_released_at is None and campaign.state in (CampaignState.DRAFT, CampaignState.OPEN)
    return {"label": campaign.get_team_admission_display(), "why": ADMISSION_WHY[campaign.team_admission],
            "awaiting": campaign.teams.filter(admitted=False).count(),
            "exposed": hidden and campaign.team_admission != TeamAdmission.APPROVAL}
