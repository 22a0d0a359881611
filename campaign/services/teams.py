"""Teams: creating one, inviting members, joining. One team per user per campaign."""
from __future__ import annotations

import string

from django.core import signing
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from campaign import audit
from campaign.models import Campaign, CampaignState, Membership, Team
from campaign.visibility import team_of

INVITE_SALT = "campaign.team-invite"


class TeamRefused(Exception):
    """The team action is not possible; the message is for the user."""


def _check_can_register(user, campaign: Campaign) -> None:
    if campaign.state != CampaignState.OPEN:
        raise TeamRefused("Teams can register only while the campaign is open.")
    if team_of(user, campaign) is not None:
        raise TeamRefused("You are already in a team of this campaign (one team per person and campaign).")


def _next_code(campaign: Campaign) -> str:
    taken = set(campaign.teams.values_list("code", flat=True))
    for n in range(1, 10_000):
        code, k = "", n
        while k:
            k, rem = divmod(k - 1, 26)
            code = string.ascii_uppercase[rem] + code
        if code not in taken:
            return code
    return ""


def create_team(campaign: Campaign, user, *, name: str, affiliation: str = "", request=None) -> Team:
    _check_can_register(user, campaign)
    slug = slugify(name)[:80]
    if not slug:
        raise TeamRefused("The team name must contain letters or digits.")
    if campaign.teams.filter(slug=slug).exists() or campaign.teams.filter(name=name).exists():
        raise TeamRefused(f"A team named {name!r} already exists in this campaign.")
    try:
        with transaction.atomic():
            team = Team.objects.create(campaign=campaign, name=name, slug=slug, affiliation=affiliation,
                                       code=_next_code(campaign))
            Membership.objects.create(team=team, user=user, campaign=campaign, role=Membership.Role.LEADER)
            audit.record("team.create", actor=user, campaign=campaign, target=team.slug, request=request)
    except IntegrityError:
        raise TeamRefused("That team name is taken, or you are already in a team of this campaign.") from None
    return team


def invitation_code(team: Team) -> str:
    """A code the team's members pass on; it lets someone join that team and no other."""
    return signing.dumps({"team": team.pk}, salt=INVITE_SALT, compress=True)


def join_team(campaign: Campaign, user, *, code: str, request=None) -> Team:
    _check_can_register(user, campaign)
    try:
        team_id = signing.loads(code.strip(), salt=INVITE_SALT)["team"]
    except (signing.BadSignature, KeyError, TypeError):
        raise TeamRefused("This invitation code is not valid; ask a member of the team for it again.") from None
    team = campaign.teams.filter(pk=team_id).first()
    if team is None:
        raise TeamRefused("This invitation code is for a team of another campaign.")
    try:
        with transaction.atomic():
            Membership.objects.create(team=team, user=user, campaign=campaign, role=Membership.Role.MEMBER)
            audit.record("team.join", actor=user, campaign=campaign, target=team.slug, request=request)
    except IntegrityError:
        raise TeamRefused("You are already in a team of this campaign.") from None
    return team
