"""Who may see what, and when: the visibility table of the governance spec.

Every view, API endpoint and download asks these functions; none decides on
its own. Keep them free of request handling so that tests can call them
directly for every role and life-cycle state.
"""
from __future__ import annotations

from .models import Campaign, CampaignState, Membership, Publication, Run, Team

STATE_ORDER = [
    CampaignState.DRAFT,
    CampaignState.OPEN,
    CampaignState.CLOSED,
    CampaignState.SCORED,
    CampaignState.RELEASED,
    CampaignState.PUBLISHED,
    CampaignState.GOLD_RELEASED,
    CampaignState.ARCHIVED,
]


def state_at_least(campaign: Campaign, state: str) -> bool:
    return STATE_ORDER.index(campaign.state) >= STATE_ORDER.index(state)


def is_organiser(user, campaign: Campaign) -> bool:
    return campaign.is_organiser(user)


def team_of(user, campaign: Campaign) -> Team | None:
    if not user.is_authenticated:
        return None
    membership = Membership.objects.filter(campaign=campaign, user=user).select_related("team").first()
    return membership.team if membership else None


def is_member(user, team: Team) -> bool:
    return user.is_authenticated and Membership.objects.filter(team=team, user=user).exists()


def can_see_campaign(user, campaign: Campaign) -> bool:
    """Drafts are the organisers' own; from `open` on the public page exists."""
    return state_at_least(campaign, CampaignState.OPEN) or is_organiser(user, campaign)


def can_download_corpus(user, campaign: Campaign) -> bool:
    if is_organiser(user, campaign):
        return True
    if not state_at_least(campaign, CampaignState.OPEN):
        return False
    return campaign.corpus_public or team_of(user, campaign) is not None


def can_download_dev_sample(user, campaign: Campaign) -> bool:
    if is_organiser(user, campaign):
        return True
    if not state_at_least(campaign, CampaignState.OPEN):
        return False
    return campaign.dev_sample_public or team_of(user, campaign) is not None


def can_see_run(user, run: Run) -> bool:
    """The run itself (file, validation report, status): its team and organisers only."""
    return is_organiser(user, run.campaign) or is_member(user, run.team)


def can_see_own_scores(user, run: Run) -> bool:
    if is_organiser(user, run.campaign):
        return True
    if not is_member(user, run.team):
        return False
    if run.scope == Run.Scope.DEV:
        return True  # development-sample checks are scored and shown at once
    return state_at_least(run.campaign, CampaignState.RELEASED)


def can_see_published_results(user, campaign: Campaign) -> bool:
    """Everyone's scores, from the snapshot taken at publication."""
    return state_at_least(campaign, CampaignState.PUBLISHED)


def can_see_all_live_results(user, campaign: Campaign) -> bool:
    """Everyone's latest scores, live: organisers only."""
    return is_organiser(user, campaign)


def can_see_diagnostics(user, run: Run) -> bool:
    """Per-sentence diagnostics reveal which sentences have gold."""
    if is_organiser(user, run.campaign):
        return True
    return is_member(user, run.team) and state_at_least(run.campaign, CampaignState.GOLD_RELEASED)


def can_download_gold(user, campaign: Campaign) -> bool:
    if is_organiser(user, campaign):
        return True
    return state_at_least(campaign, CampaignState.GOLD_RELEASED)


def public_team_label(team: Team) -> str:
    if team.campaign.publication == Publication.NAMED or team.show_name:
        return team.name
    return team.code or f"Team {team.pk}"
