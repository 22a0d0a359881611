"""Abuse limits: upload and withdrawal quotas per team and day, the portal throttled like the API,
log-in lock-outs (portal, admin, API token) per account at one address, sign-up throttled."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from campaign.models import Run
from campaign.rules import UploadRefused, WithdrawalRefused
from campaign.services.runs import withdraw_run
from campaign.throttles import AnonThrottle
from tests import factories
from tests.web.helpers import stored_run

PASSWORD = "pw-for-tests-1"


@pytest.fixture
def rates(monkeypatch):
    def set_rates(**changes):
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, **changes})
    return set_rates


def _portal_upload(client, campaign, name):
    return client.post(reverse("portal:run_upload", kwargs={"slug": campaign.slug}),
                       {"name": name, "system_description": "", "scope": "test",
                        "file": SimpleUploadedFile("general_elda.xml", b"not xml")})


def test_portal_upload_is_throttled_and_shares_the_api_budget(campaign, team_a, alice, rates):
    rates(uploads="3/hour")
    client = Client()
    client.force_login(alice)
    # Two refused uploads (not XML: 400) spend the budget as much as accepted ones would.
    assert [_portal_upload(client, campaign, f"r{i}").status_code for i in range(2)] == [400, 400]
    api = APIClient()
    api.force_authenticate(alice)
    third = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                     {"name": "api", "file": SimpleUploadedFile("general_elda.xml", b"not xml")}, format="multipart")
    assert third.status_code == 400  # the third of 3
    fourth = _portal_upload(client, campaign, "r4")
    assert fourth.status_code == 429 and int(fourth["Retry-After"]) > 0


def test_withdrawn_runs_count_against_the_daily_upload_quota(campaign, team_a, alice):
    campaign.runs_per_team, campaign.uploads_per_day, campaign.withdrawals_per_day = 1, 3, 10
    campaign.save()
    for i in range(3):
        # upload, withdraw, upload again: the run limit (1) never stops this, the daily quota (3) does
        run = stored_run(campaign, team_a, alice, name=f"probe {i}")
        withdraw_run(run, user=alice)
    with pytest.raises(UploadRefused, match="uploaded 3 runs in the last 24 hours, the campaign's limit of 3"):
        stored_run(campaign, team_a, alice, name="probe 3")
    assert Run.objects.filter(team=team_a).count() == 3


def test_withdrawals_per_day_are_limited(campaign, team_a, alice):
    campaign.runs_per_team, campaign.uploads_per_day, campaign.withdrawals_per_day = 5, 10, 2
    campaign.save()
    runs = [stored_run(campaign, team_a, alice, name=f"run {i}") for i in range(3)]
    withdraw_run(runs[0], user=alice)
    withdraw_run(runs[1], user=alice)
    with pytest.raises(WithdrawalRefused, match="withdrawn 2 runs in the last 24 hours, the campaign's limit of 2"):
        withdraw_run(runs[2], user=alice)
    runs[2].refresh_from_db()
    assert runs[2].withdrawn_at is None


def test_quota_defaults_are_campaign_settings(db):
    c = factories.make_campaign()
    assert (c.uploads_per_day, c.withdrawals_per_day) == (10, 2)


def _portal_login(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def _admin_login(client, username, password):
    return client.post(reverse("admin:login"), {"username": username, "password": password})


def _token(client, username, password):
    address = client.defaults.get("REMOTE_ADDR", "127.0.0.1") if client is not None else "127.0.0.1"
    return APIClient(REMOTE_ADDR=address).post("/api/token/", {"username": username, "password": password})


@pytest.mark.parametrize("login", [_portal_login, _admin_login, _token])
def test_an_account_is_locked_at_the_address_that_guessed(db, settings, login):
    settings.AXES_FAILURE_LIMIT = 3
    victim = factories.make_user("victim", password=PASSWORD, is_staff=True)
    guesser = Client(REMOTE_ADDR="198.51.100.1")
    for _ in range(3):
        login(guesser, victim.username, "wrong guess")
    # the guessing address is locked out of this account, even with the right password
    locked = login(guesser, victim.username, PASSWORD)
    if login is _token:
        assert locked.status_code in (400, 429) and "token" not in locked.json()
    else:
        assert locked.status_code == 429
        assert "_auth_user_id" not in guesser.session


@pytest.mark.parametrize("login", [_portal_login, _admin_login, _token])
def test_a_stranger_cannot_lock_an_organiser_out(db, settings, login):
    # Account and address together: failures from elsewhere, however many addresses, leave the owner's login
    # alone (the attack of issue 19: lock the organiser's account before a deadline).
    settings.AXES_FAILURE_LIMIT = 3
    organiser = factories.make_user("organiser", password=PASSWORD, is_staff=True)
    for n in range(2):
        stranger = Client(REMOTE_ADDR=f"198.51.100.{n + 1}")
        for _ in range(4):
            login(stranger, organiser.username, "wrong guess")
    ok = login(Client(REMOTE_ADDR="198.51.100.99"), organiser.username, PASSWORD)
    assert ok.status_code == 200 if login is _token else ok.status_code == 302
    if login is _token:
        assert "token" in ok.json()


@pytest.mark.parametrize("login", [_portal_login, _admin_login, _token])
def test_a_shared_address_does_not_lock_its_other_accounts(db, settings, login):
    # One address for a whole lab (a NAT): someone's failures there do not lock a colleague out.
    settings.AXES_FAILURE_LIMIT = 3
    factories.make_user("someone", password=PASSWORD, is_staff=True)
    lab = Client(REMOTE_ADDR="203.0.113.5")
    for n in range(3):
        login(lab, f"guess{n}", "wrong")
        login(lab, "careless", "wrong")
    ok = login(Client(REMOTE_ADDR="203.0.113.5"), "someone", PASSWORD)
    assert ok.status_code in (200, 302)


def test_a_forged_forwarded_for_does_not_change_the_locked_address(db, settings):
    settings.AXES_FAILURE_LIMIT = 2
    factories.make_user("carol", password=PASSWORD)
    client = Client(REMOTE_ADDR="203.0.113.7")
    for n in range(2):
        client.post(reverse("login"), {"username": "carol", "password": "no"}, HTTP_X_FORWARDED_FOR=f"10.9.9.{n}")
    again = client.post(reverse("login"), {"username": "carol", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert again.status_code == 429


def test_token_endpoint_is_throttled_per_address(db, rates):
    rates(token="2/hour")
    factories.make_user("dave", password=PASSWORD)
    codes = [_token(None, "dave", PASSWORD).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_signup_is_throttled_per_address(db, rates):
    rates(signup="2/hour")
    codes = []
    for n in range(3):
        client = Client(REMOTE_ADDR="192.0.2.10")
        codes.append(client.post(reverse("portal:signup"), {
            "username": f"new{n}", "email": f"new{n}@example.org", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9",
        }, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code)
    assert codes == [302, 302, 429]
    # Another address may still sign up.
    assert Client(REMOTE_ADDR="192.0.2.11").post(reverse("portal:signup"), {
        "username": "new9", "email": "new9@example.org", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9",
    }).status_code == 302


def test_api_throttles_ignore_a_clients_forwarded_for(rf, settings):
    settings.PARSEVAL_TRUSTED_PROXIES = []
    request = rf.get("/", REMOTE_ADDR="198.51.100.3", HTTP_X_FORWARDED_FOR="1.1.1.1")
    assert AnonThrottle().get_ident(request) == "198.51.100.3"
