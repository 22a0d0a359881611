"""Teams: creating one, inviting members, joining. One team per user per campaign."""
from __future__ import annotations

import string
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _, gettext_lazy

from campaign import accounts, audit
from campaign.models import Campaign, CampaignState, Invitation, Membership, Team, TeamAdmission
from campaign.visibility import is_member, team_of


class TeamRefused(Exception):
    """The team action is not possible; the message is for the user."""


def _check_can_register(user, campaign: Campaign) -> None:
    if campaign.state != CampaignState.OPEN:
        raise TeamRefused(_("Teams can register only while the campaign is open."))
    if team_of(user, campaign) is not None:
        raise TeamRefused(_("You are already in a team of this campaign (one team per person and campaign)."))
    if campaign.team_admission == TeamAdmission.EMAIL and not accounts.is_verified(user):
        raise TeamRefused(NEEDS_VERIFIED_EMAIL)


# Lazy: translated when a refusal is shown, in the language of the page that asked.
NEEDS_VERIFIED_EMAIL = gettext_lazy("This campaign admits teams whose members have confirmed their e-mail address: "
                                    "follow the link we sent you, or ask for a new one.")


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
        raise TeamRefused(_("The team name must contain letters or digits."))
    if campaign.teams.filter(slug=slug).exists() or campaign.teams.filter(name=name).exists():
        raise TeamRefused(_("A team named %(name)r already exists in this campaign.") % {"name": name})
    try:
        with transaction.atomic():
            admitted = campaign.team_admission != TeamAdmission.APPROVAL
            team = Team.objects.create(campaign=campaign, name=name, slug=slug, affiliation=affiliation,
                                       code=_next_code(campaign), admitted=admitted)
            Membership.objects.create(team=team, user=user, campaign=campaign, role=Membership.Role.LEADER)
            audit.record("team.create", actor=user, campaign=campaign, target=team.slug, request=request,
                         details={"admission": campaign.team_admission, "admitted": admitted})
    except IntegrityError:
        raise TeamRefused(_("That team name is taken, or you are already in a team of this campaign.")) from None
    return team


def _check_member(user, team: Team) -> None:
    if not is_member(user, team):
        raise TeamRefused(_("Only a member of the team can manage its invitations."))


def create_invitation(team: Team, user, *, days: int = Invitation.DEFAULT_DAYS, max_uses: int | None = None,
                      request=None) -> Invitation:
    """A new random invitation code for ``team``, valid ``days`` days and at most ``max_uses`` times."""
    _check_member(user, team)
    if not 1 <= days <= Invitation.MAX_DAYS:
        raise TeamRefused(_("An invitation is valid from 1 to %(days)s days.") % {"days": Invitation.MAX_DAYS})
    if max_uses is not None and max_uses < 1:
        raise TeamRefused(_("An invitation must allow at least one use."))
    now = timezone.now()
    with transaction.atomic():
        invitation = Invitation.objects.create(team=team, created_by=user, created_at=now,
                                               expires_at=now + timedelta(days=days), max_uses=max_uses)
        audit.record("team.invite", actor=user, campaign=team.campaign, target=team.slug, request=request,
                     details={"invitation": invitation.pk, "expires_at": invitation.expires_at.isoformat(),
                              "max_uses": max_uses})
    return invitation


def revoke_invitation(invitation: Invitation, user, *, request=None) -> None:
    _check_member(user, invitation.team)
    with transaction.atomic():
        updated = Invitation.objects.filter(pk=invitation.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        if updated:
            audit.record("team.invite_revoke", actor=user, campaign=invitation.team.campaign,
                         target=invitation.team.slug, details={"invitation": invitation.pk}, request=request)


def active_invitations(team: Team):
    """Invitations the team can still pass on (not revoked, not expired; maybe used up)."""
    return team.invitations.filter(revoked_at__isnull=True, expires_at__gt=timezone.now()).order_by("-created_at")


INVALID_CODE = gettext_lazy("This invitation code is not valid; ask a member of the team for it again.")


def join_team(campaign: Campaign, user, *, code: str, request=None) -> Team:
    _check_can_register(user, campaign)
    token = code.strip()
    try:
        with transaction.atomic():
            # Locked: two people using the last use of an invitation at once cannot both get in.
            invitation = (Invitation.objects.select_for_update().select_related("team")
                          .filter(token=token, team__campaign=campaign).first()) if token else None
            if invitation is None:
                # Unknown, or for another campaign's team: the same answer, so codes cannot be probed.
                raise TeamRefused(INVALID_CODE)
            refusal = invitation.refusal()
            if refusal:
                raise TeamRefused(refusal)
            team = invitation.team
            Membership.objects.create(team=team, user=user, campaign=campaign, role=Membership.Role.MEMBER)
            Invitation.objects.filter(pk=invitation.pk).update(uses=F("uses") + 1)
            audit.record("team.join", actor=user, campaign=campaign, target=team.slug, request=request,
                         details={"invitation": invitation.pk,
                                  "invited_by": invitation.created_by.get_username() if invitation.created_by else ""})
    except IntegrityError:
        raise TeamRefused(_("You are already in a team of this campaign.")) from None
    return team


def admit_teams(teams, actor, *, request=None) -> int:
    """An organiser admits teams that await approval; each admission is audited. Returns how many."""
    admitted = 0
    for team in teams:
        if not team.campaign.is_organiser(actor):
            raise PermissionError(f"{actor} does not organise {team.campaign}")
        with transaction.atomic():
            if Team.objects.filter(pk=team.pk, admitted=False).update(admitted=True):
                audit.record("team.admit", actor=actor, campaign=team.campaign, target=team.slug, request=request)
                admitted += 1
    return admitted
