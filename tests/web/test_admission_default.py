"""Team admission by default, tried as the adversary of issue 34: one client address signing up account
after account, each registering a team with its own quota of probes of the hidden test set."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from campaign.models import Campaign, Team, TeamAdmission
from campaign.rules import UploadRefused
from tests import factories
from tests.web.helpers import stored_run

PASSWORD = "a-long-pass-phrase-34"


def _team_of_a_new_account(campaign, n: int) -> Team | None:
    client = Client(REMOTE_ADDR="198.51.100.34")
    client.post(reverse("portal:signup"), {"username": f"sock{n}", "email": f"sock{n}@example.org",
                                           "password1": PASSWORD, "password2": PASSWORD})
    client.post(reverse("login"), {"username": f"sock{n}", "password": PASSWORD})
    client.post(reverse("portal:team_create", kwargs={"slug": campaign.slug}), {"name": f"Sock team {n}"})
    return Team.objects.filter(campaign=campaign, name=f"Sock team {n}").first()


def test_a_new_campaign_admits_no_team_without_an_organisers_approval(campaign):
    # the campaign as an organiser creates it, every admission setting left as it comes
    assert Campaign._meta.get_field("team_admission").default == TeamAdmission.APPROVAL
    assert campaign.team_admission == TeamAdmission.APPROVAL
    socks = [_team_of_a_new_account(campaign, n) for n in range(3)]
    assert all(t is not None for t in socks)  # the teams exist, and wait
    assert not any(t.admitted for t in socks)
    for team in socks:
        member = team.members.get()
        with pytest.raises(UploadRefused, match="awaits the organisers' approval"):
            stored_run(campaign, team, member, name="probe")
        client = Client()
        client.force_login(member)
        assert client.get(reverse("portal:corpus_download", kwargs={"slug": campaign.slug})).status_code == 404
    assert not campaign.runs.exists()


def test_the_migration_leaves_every_stored_admission_as_it_is(db):
    # Only the default changes: the migration must run no SQL at all, so no existing row can change.
    out = StringIO()
    call_command("sqlmigrate", "campaign", "0013_team_admission_default", stdout=out)
    statements = [line for line in out.getvalue().splitlines()
                  if line.strip() and not line.startswith("--") and line not in ("BEGIN;", "COMMIT;")]
    assert statements == []
    for stored in TeamAdmission.values:
        c = factories.make_campaign(team_admission=stored)
        c.refresh_from_db()
        assert c.team_admission == stored


@pytest.fixture
def organiser(campaign):
    from campaign.management.commands.load_demo import organisers_group

    user = factories.make_user("orga", is_staff=True)
    user.groups.add(organisers_group())
    campaign.organisers.add(user)
    client = Client()
    client.force_login(user)
    return client


def _admission_section(client, campaign) -> str:
    page = client.get(reverse("console:dashboard", args=[campaign.slug])).content.decode()
    return page[page.index('<section id="admission">'):].split("</section>")[0]


def test_the_console_says_which_admission_and_why(campaign, organiser, alice):
    section = _admission_section(organiser, campaign)
    assert "Organiser approval" in section and "the default for a campaign with a hidden test set" in section
    assert 'role="alert"' not in section and "awaiting-approval" not in section
    team = factories.make_team(campaign, alice, name="Waiting")
    Team.objects.filter(pk=team.pk).update(admitted=False)
    assert "1 team awaits your approval" in _admission_section(organiser, campaign)
    # an existing campaign left open by its organisers is told what that costs
    campaign.team_admission = TeamAdmission.OPEN
    campaign.save()
    section = _admission_section(organiser, campaign)
    assert "Open: any account may register a team" in section and 'role="alert"' in section
    assert "not yours to bound" in section
