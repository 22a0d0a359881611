"""Team invitations: random codes stored server-side, revocable, expiring, optionally limited, audited."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from campaign.models import AuditEntry, Invitation, Membership
from campaign.services.teams import TeamRefused, create_invitation, join_team, revoke_invitation
from tests import factories


@pytest.fixture
def carol(db):
    return factories.make_user("carol")


def test_codes_are_random_and_unique(team_a, alice):
    tokens = {create_invitation(team_a, alice).token for _ in range(20)}
    assert len(tokens) == 20
    assert all(len(t) >= 32 for t in tokens)  # 24 random bytes, URL-safe base64


def test_a_forged_signed_code_of_the_old_scheme_is_refused(campaign, team_a, bob, settings):
    # What anyone could make with the published SECRET_KEY: {"team": pk} signed with the old salt.
    forged = signing.dumps({"team": team_a.pk}, salt="campaign.team-invite", compress=True)
    with pytest.raises(TeamRefused, match="not valid"):
        join_team(campaign, bob, code=forged)
    assert not Membership.objects.filter(user=bob).exists()


def test_joining_is_audited_with_the_invitation(campaign, team_a, alice, bob):
    invitation = create_invitation(team_a, alice)
    join_team(campaign, bob, code=f"  {invitation.token}\n")
    entry = AuditEntry.objects.get(action="team.join", actor=bob)
    assert entry.details == {"invitation": invitation.pk, "invited_by": "alice"} and entry.target == team_a.slug
    assert AuditEntry.objects.filter(action="team.invite", actor=alice, details__invitation=invitation.pk).exists()
    invitation.refresh_from_db()
    assert invitation.uses == 1


def test_an_expired_invitation_is_refused(campaign, team_a, alice, bob):
    invitation = create_invitation(team_a, alice, days=1)
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(TeamRefused, match="expired"):
        join_team(campaign, bob, code=invitation.token)


def test_the_default_expiry_is_a_week(team_a, alice):
    invitation = create_invitation(team_a, alice)
    # 7 days = 604,800 s, give or take the time the call took.
    assert abs((invitation.expires_at - invitation.created_at).total_seconds() - 604_800) < 1


def test_the_use_limit_is_kept(campaign, team_a, alice, bob, carol):
    invitation = create_invitation(team_a, alice, max_uses=1)
    join_team(campaign, bob, code=invitation.token)
    with pytest.raises(TeamRefused, match="used as many times"):
        join_team(campaign, carol, code=invitation.token)
    assert set(team_a.members.all()) == {alice, bob}


def test_a_revoked_invitation_is_refused_and_the_revocation_audited(campaign, team_a, alice, bob):
    invitation = create_invitation(team_a, alice)
    revoke_invitation(invitation, alice)
    with pytest.raises(TeamRefused, match="revoked"):
        join_team(campaign, bob, code=invitation.token)
    assert AuditEntry.objects.filter(action="team.invite_revoke", actor=alice).count() == 1


def test_only_members_make_or_revoke_invitations(team_a, alice, bob):
    with pytest.raises(TeamRefused, match="Only a member"):
        create_invitation(team_a, bob)
    invitation = create_invitation(team_a, alice)
    with pytest.raises(TeamRefused, match="Only a member"):
        revoke_invitation(invitation, bob)


def test_portal_make_and_revoke(client, campaign, team_a, team_b, alice, bob):
    client.force_login(alice)
    client.post(reverse("portal:invitation_create", kwargs={"slug": campaign.slug}), {"days": 3, "max_uses": 2})
    invitation = team_a.invitations.get()
    assert invitation.max_uses == 2
    assert abs((invitation.expires_at - invitation.created_at).total_seconds() - 3 * 86_400) < 1
    page = client.get(reverse("portal:campaign", kwargs={"slug": campaign.slug})).content.decode()
    assert invitation.token in page and "0 of 2" in page
    # Another team's member cannot revoke it, nor learn that it exists.
    client.force_login(bob)
    url = reverse("portal:invitation_revoke", kwargs={"slug": campaign.slug, "pk": invitation.pk})
    assert client.post(url).status_code == 404
    client.force_login(alice)
    assert client.post(url).status_code == 302
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    assert invitation.token not in client.get(reverse("portal:campaign", kwargs={"slug": campaign.slug})).content.decode()
