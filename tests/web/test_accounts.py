"""Accounts and team admission, tried as the team of issue 19 would: one account, one more team, one
more set of probes; and a working, throttled password reset."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.throttling import SimpleRateThrottle

from campaign.models import AuditEntry, Team, TeamAdmission
from campaign.rules import UploadRefused
from tests import factories
from tests.web.helpers import stored_run

PASSWORD = "a-long-pass-phrase-19"
LINK = re.compile(r"https?://[^/\s]+(/\S+)")


@pytest.fixture
def rates(monkeypatch):
    def set_rates(**changes):
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, **changes})
    return set_rates


def sign_up(client: Client, name: str, email: str | None = None):
    """Sign up, then log in as the new account (sign-up itself logs nobody in: its answer is the same whether
    or not the address already had an account)."""
    response = client.post(reverse("portal:signup"), {"username": name, "email": f"{name}@example.org" if email is None else email,
                                                      "password1": PASSWORD, "password2": PASSWORD})
    if response.status_code == 302:
        client.post(reverse("login"), {"username": name, "password": PASSWORD})
    return response


def create_team(client: Client, campaign, name: str):
    client.post(reverse("portal:team_create", kwargs={"slug": campaign.slug}), {"name": name})
    return Team.objects.filter(campaign=campaign, name=name).first()


@pytest.fixture
def organiser_client(campaign):
    from campaign.management.commands.load_demo import organisers_group

    organiser = factories.make_user("orga", is_staff=True)
    organiser.groups.add(organisers_group())
    campaign.organisers.add(organiser)
    client = Client()
    client.force_login(organiser)
    return client, organiser


def link_in(message) -> str:
    return LINK.search(message.body).group(1)


# -- admission -------------------------------------------------------------------------------------------

def test_an_open_campaign_admits_any_account(campaign):
    # the organisers' choice (the default is their approval: tests/web/test_admission_default.py)
    campaign.team_admission = TeamAdmission.OPEN
    campaign.save()
    client = Client()
    sign_up(client, "newcomer")
    team = create_team(client, campaign, "New team")
    assert team is not None and team.admitted


def test_email_admission_needs_the_link_sent_at_sign_up(campaign):
    campaign.team_admission = TeamAdmission.EMAIL
    campaign.save()
    client = Client()
    assert sign_up(client, "prober").status_code == 302
    # a fresh account, whose address nobody has proved, registers no team
    assert create_team(client, campaign, "Probe team 1") is None
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "confirmed their e-mail address" in page and "prober@example.org" in page
    [message] = mail.outbox
    assert message.to == ["prober@example.org"]
    link = link_in(message)
    # a link with a changed token proves nothing
    assert Client().get(link[:-3] + "xyz/").status_code == 400
    assert create_team(client, campaign, "Probe team 1") is None
    # the link works once, without being logged in (opened in the mail reader's browser)
    done = Client().get(link)
    assert done.status_code == 200 and "is confirmed" in done.content.decode()
    assert Client().get(link).status_code == 400
    assert AuditEntry.objects.filter(action="account.verify_email", target="prober").exists()
    team = create_team(client, campaign, "Probe team 1")
    assert team is not None and team.admitted


def test_one_address_one_account(db):
    sign_up(Client(), "first", "shared@example.org")
    again = sign_up(Client(), "second", "SHARED@example.org")
    # the same answer as a new address (tests/web/test_account_oracles.py), and no second account
    assert again.status_code == 302 and again["Location"] == reverse("portal:signup_done")
    assert not get_user_model().objects.filter(username="second").exists()
    assert [m.to for m in mail.outbox] == [["shared@example.org"], ["shared@example.org"]]
    assert mail.outbox[1].subject == "An account already has this address"
    assert sign_up(Client(), "third", "").status_code == 200  # an address is required: the form again


def test_a_changed_address_needs_a_new_proof(campaign):
    campaign.team_admission = TeamAdmission.EMAIL
    campaign.save()
    client = Client()
    sign_up(client, "mover")
    Client().get(link_in(mail.outbox[0]))
    user = get_user_model().objects.get(username="mover")
    user.email = "elsewhere@example.org"
    user.save()
    assert create_team(client, campaign, "Moved team") is None


def test_organiser_approval_admits_teams_one_by_one(campaign, alice, organiser_client):
    campaign.team_admission = TeamAdmission.APPROVAL
    campaign.save()
    client = Client()
    client.force_login(alice)
    team = create_team(client, campaign, "Waiting team")
    assert team is not None and not team.admitted
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "awaits the organisers' approval" in page and "Upload a run" not in page
    # a team that awaits approval gets neither the corpus nor an upload
    assert client.get(reverse("portal:corpus_download", kwargs={"slug": campaign.slug})).status_code == 404
    with pytest.raises(UploadRefused, match="awaits the organisers' approval"):
        stored_run(campaign, team, alice, name="too early")
    # the organiser admits it in the admin, and the act is audited
    org, organiser = organiser_client
    response = org.post(reverse("admin:campaign_team_changelist"),
                        {"action": "admit_teams", "_selected_action": [team.pk]})
    assert response.status_code == 302
    team.refresh_from_db()
    assert team.admitted
    entry = AuditEntry.objects.get(action="team.admit")
    assert (entry.actor, entry.target) == (organiser, team.slug)
    stored_run(campaign, team, alice, name="now")


def test_an_organiser_admits_only_teams_of_their_own_campaigns(campaign, alice, organiser_client):
    other = factories.make_campaign(slug="not-theirs", team_admission=TeamAdmission.APPROVAL)
    team = factories.make_team(other, alice, name="Elsewhere")
    Team.objects.filter(pk=team.pk).update(admitted=False)
    org, _ = organiser_client
    org.post(reverse("admin:campaign_team_changelist"), {"action": "admit_teams", "_selected_action": [team.pk]})
    team.refresh_from_db()
    assert not team.admitted


def test_asking_for_a_new_link_is_throttled_per_account(campaign, rates):
    rates(verification_account="2/hour")
    client = Client(REMOTE_ADDR="192.0.2.40")
    sign_up(client, "impatient")
    resend = reverse("portal:resend_verification")
    codes = [Client(REMOTE_ADDR=f"192.0.2.{41 + n}").post(resend).status_code for n in range(1)]
    assert codes == [302]  # not logged in: to the log-in page, nothing sent
    codes = [client.post(resend, {"next": "https://evil.example/"}).status_code for _ in range(3)]
    assert codes == [302, 302, 429]
    assert len(mail.outbox) == 3  # at sign-up, then two more
    assert client.post(resend, {"next": "https://evil.example/"}).status_code == 429
    rates(verification_account="9/hour")
    assert client.post(resend, {"next": "https://evil.example/"})["Location"] == reverse("portal:home")


# -- password reset --------------------------------------------------------------------------------------

def test_password_reset_works_end_to_end(db):
    factories.make_user("forgetful", password="old-pass-phrase-1", email="forgetful@example.org")
    client = Client()
    response = client.post(reverse("password_reset"), {"email": "forgetful@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    [message] = mail.outbox
    assert message.to == ["forgetful@example.org"]
    confirm = client.get(link_in(message), follow=True)
    assert "Choose a new password" in confirm.content.decode()
    done = client.post(confirm.redirect_chain[-1][0], {"new_password1": PASSWORD, "new_password2": PASSWORD})
    assert done.status_code == 302
    assert Client().post(reverse("login"), {"username": "forgetful", "password": PASSWORD}).status_code == 302
    # an unknown address gets the same answer and no mail
    assert client.post(reverse("password_reset"), {"email": "nobody@example.org"}).status_code == 302
    assert len(mail.outbox) == 1


def test_password_reset_is_throttled_per_client_and_per_client_and_address(db, rates):
    rates(password_reset="3/hour", password_reset_address="2/hour")
    factories.make_user("target", email="target@example.org")
    # per client and address: two mails to one address from one client...
    client = Client(REMOTE_ADDR="198.51.100.1")
    codes = [client.post(reverse("password_reset"), {"email": "target@example.org"}).status_code for _ in range(3)]
    assert codes == [302, 302, 429] and len(mail.outbox) == 2
    # ...which does not stop another client asking for it (the owner is never locked out by a stranger)
    assert Client(REMOTE_ADDR="198.51.100.2").post(reverse("password_reset"),
                                                   {"email": "target@example.org"}).status_code == 302
    assert len(mail.outbox) == 3
    # per client address: three requests, whatever they name (an unknown address counts the same)
    client = Client(REMOTE_ADDR="203.0.113.20")
    codes = [client.post(reverse("password_reset"), {"email": f"x{n}@example.org"}).status_code for n in range(4)]
    assert codes == [302, 302, 302, 429]


def test_the_login_page_offers_the_reset(client, db):
    page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in page
    assert "Reset your password" in client.get(reverse("password_reset")).content.decode()
