"""Who may see what, and when: the visibility table of the governance spec.

Every view, API endpoint and download asks these functions; none decides on
its own. Keep them free of request handling so that tests can call them
directly for every role and life-cycle state.

| artifact                         | team member                      | anyone              |
|----------------------------------|----------------------------------|---------------------|
| corpus text                      | once registered (state >= open)  | if corpus_public    |
| test-subset membership, its gold | after gold release only          | same                |
| development sample with gold     | yes (state >= open)              | if dev_sample_public|
| own validation report            | at once                          | no                  |
| own test run's scoring state     | from `released` (before: accepted)| no                 |
| own scores                       | from `released` (dev runs: now); limited until gold release (evaluation.results.disclosure); a withdrawn test run's from gold release | no |
| other teams' runs and files      | never                            | never               |
| other teams' scores              | from `published` (snapshot)      | same                |
| per-sentence diagnostics         | own run, after gold release      | no                  |
| when a test run's scoring ended  | after gold release               | same                |
| paired significance tests        | from `released`, own runs' pairs | from `published`   |
"""
from __future__ import annotations

from typing import Callable

from django.http import Http404
from django.shortcuts import get_object_or_404

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


def admitted_team_of(user, campaign: Campaign) -> Team | None:
    """The user's team, if the campaign has admitted it (a team awaiting approval gets nothing yet)."""
    team = team_of(user, campaign)
    return team if team is not None and team.admitted else None


def is_member(user, team: Team) -> bool:
    return user.is_authenticated and Membership.objects.filter(team=team, user=user).exists()


def gold_is_released(campaign: Campaign) -> bool:
    """Gold release is optional: an archived campaign keeps its gold hidden unless it was released."""
    return campaign.state == CampaignState.GOLD_RELEASED or campaign.gold_released_at is not None


def can_see_campaign(user, campaign: Campaign) -> bool:
    """Drafts are the organisers' own; from `open` on the public page exists."""
    return state_at_least(campaign, CampaignState.OPEN) or is_organiser(user, campaign)


def visible_campaigns(user):
    """Campaigns listed to this user: every non-draft one, and the drafts they organise."""
    qs = Campaign.objects.exclude(state=CampaignState.DRAFT)
    if user.is_authenticated:
        if user.is_superuser:
            return Campaign.objects.all()
        qs = Campaign.objects.exclude(state=CampaignState.DRAFT) | Campaign.objects.filter(organisers=user)
    return qs.distinct()


def can_download_corpus(user, campaign: Campaign) -> bool:
    if is_organiser(user, campaign):
        return True
    if not state_at_least(campaign, CampaignState.OPEN):
        return False
    return campaign.corpus_public or admitted_team_of(user, campaign) is not None


def can_download_dev_sample(user, campaign: Campaign) -> bool:
    if is_organiser(user, campaign):
        return True
    if not state_at_least(campaign, CampaignState.OPEN):
        return False
    return campaign.dev_sample_public or admitted_team_of(user, campaign) is not None


def can_see_run(user, run: Run) -> bool:
    """The run itself (file, name, description, validation report, status): its team and organisers only."""
    return is_organiser(user, run.campaign) or is_member(user, run.team)


def visible_runs(user, campaign: Campaign):
    """The runs of a campaign this user may see: all for organisers, their team's for members, none otherwise."""
    if is_organiser(user, campaign):
        return campaign.runs.all()
    team = team_of(user, campaign)
    if team is None:
        return campaign.runs.none()
    return campaign.runs.filter(team=team)


def can_see_scoring_state(user, run: Run) -> bool:
    """Whether the user may see how scoring of a run goes (queued, scoring, scored, failed, when, how far).

    Scoring reads only the test sentences, so until the results are released its course is the team's
    business only for development checks; of a test-scope run the team sees received, validating, invalid
    or accepted for scoring (the rule in docs/governance.md)."""
    if is_organiser(user, run.campaign):
        return True
    return run.scope == Run.Scope.DEV or state_at_least(run.campaign, CampaignState.RELEASED)


def can_see_scoring_times(user, campaign: Campaign) -> bool:
    """Times that follow from test-run scoring: a result's creation, a status change after validation,
    when a significance set was computed. Organisers; everyone else once the gold is released.

    How long scoring took, or in which order runs finished, tells how many of a run's sentences are
    test sentences, so these times stay hidden for as long as membership does, past `released`
    (when the scores themselves are shown). Development checks are scored on public gold: their
    times are shown at once (:func:`can_see_run_scoring_time`)."""
    return is_organiser(user, campaign) or gold_is_released(campaign)


def can_see_run_scoring_time(user, run: Run) -> bool:
    return run.scope == Run.Scope.DEV or can_see_scoring_times(user, run.campaign)


def can_see_significance(user, campaign: Campaign) -> bool:
    """Whether any significance set is shown: organisers the live one; others from `released`, when every
    test run is scored, so that neither a set's appearance nor its replacement follows scoring."""
    return is_organiser(user, campaign) or state_at_least(campaign, CampaignState.RELEASED)


def can_see_validation_report(user, run: Run) -> bool:
    return can_see_run(user, run)


def can_see_own_scores(user, run: Run) -> bool:
    """A run's live scores (its latest Result): organisers; its team once released (dev runs at once); a
    withdrawn test run's only once the gold is released (:func:`withdrawn_scores_withheld`)."""
    if is_organiser(user, run.campaign):
        return True
    if not is_member(user, run.team):
        return False
    if run.scope == Run.Scope.DEV:
        return True  # development-sample checks are scored against public gold and shown at once
    if withdrawn_scores_withheld(run):
        return False
    return state_at_least(run.campaign, CampaignState.RELEASED)


def withdrawn_scores_withheld(run: Run) -> bool:
    """Whether a test run's figures are withheld from its team because it was withdrawn: until the gold release.

    A withdrawn run does not count against the run limit, so its figures would be a probe of the test set on top
    of the limit: upload, withdraw once scored, upload again, and read every withdrawn run's figures at the
    results release (docs/governance.md, "withdrawing is not a way around the run limit"). So what was withdrawn
    shows no figure to anyone but the organisers until membership is public anyway. A consensus superseded by a
    newer one is withdrawn the same way; it belongs to no team."""
    return run.scope == Run.Scope.TEST and run.withdrawn_at is not None and not gold_is_released(run.campaign)


# The name the results pages use for "may this user see this run's scores".
can_see_scores = can_see_own_scores


def can_see_published_results(user, campaign: Campaign) -> bool:
    """Everyone's scores, from the snapshot taken at publication."""
    return state_at_least(campaign, CampaignState.PUBLISHED)


def can_see_all_live_results(user, campaign: Campaign) -> bool:
    """Everyone's latest scores, live: organisers only."""
    return is_organiser(user, campaign)


def can_see_diagnostics(user, run: Run) -> bool:
    """Per-sentence diagnostics reveal which sentences have gold: for a test run, only after gold release.
    A development-sample check is diagnosed against the public development gold, so at once."""
    if is_organiser(user, run.campaign):
        return True
    if not is_member(user, run.team):
        return False
    return run.scope == Run.Scope.DEV or gold_is_released(run.campaign)


def can_download_gold(user, campaign: Campaign) -> bool:
    if is_organiser(user, campaign):
        return True
    return gold_is_released(campaign)


def can_see_test_subset(user, campaign: Campaign) -> bool:
    """Which sentences have gold and form the hidden test set: the same rule as the gold itself."""
    return can_download_gold(user, campaign)


def can_read_audit(user, campaign: Campaign) -> bool:
    return is_organiser(user, campaign)


def can_manage_campaign(user, campaign: Campaign) -> bool:
    """Life-cycle transitions, subsets, disqualification: organisers only."""
    return is_organiser(user, campaign)


def can_change_team_settings(user, team: Team) -> bool:
    """A team's own choices (publication under its name): its members, and the organisers."""
    return is_member(user, team) or is_organiser(user, team.campaign)


def public_team_label(team: Team) -> str:
    if team.system:  # the consensus team is the platform's: always under its own name
        return team.name
    if team.campaign.publication == Publication.NAMED or team.show_name:
        return team.name
    return team.code or f"Team {team.pk}"


def get_visible_or_404(queryset, may_see: Callable, user, message: str | None = None, **lookup):
    """The object ``lookup`` finds in ``queryset`` (a model or queryset), or 404 unless ``may_see(user, obj)``.

    A 404 rather than a 403, so that who may not see an object does not learn that it exists.
    """
    obj = get_object_or_404(queryset, **lookup)
    if not may_see(user, obj):
        raise Http404() if message is None else Http404(message)
    return obj
