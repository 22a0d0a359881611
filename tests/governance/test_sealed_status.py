"""What a team sees of its test runs before release, and the 404s of what it may not see.

Before results are released a test-scope run shows its team only received, validating, invalid or accepted
for scoring: no scoring state, progress or time after the upload (docs/governance.md). A run that failed after
a valid report is an internal error: the organisers see why on the console, the team sees it accepted.
"""
from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from campaign.models import CampaignState, Run, RunStatus

from .conftest import campaign as make_campaign, run as make_run, team as make_team

pytestmark = pytest.mark.django_db

VALID = {"valid": True, "checked_at": "2026-11-22T10:00:03+00:00", "documents": 1, "sentences": 1,
         "problem_count": 0, "problems": [], "warnings": []}


@pytest.fixture
def world(organiser, member_a, member_b):
    c = make_campaign(CampaignState.OPEN, organiser=organiser)
    a, b = make_team(c, member_a, name="Team A"), make_team(c, member_b, name="Team B")
    return c, a, b


def seen(client, api, run: Run) -> dict:
    """The status the team gets from the API, the live status and the run page."""
    detail = api.get(f"/api/runs/{run.pk}/").json()
    live = client.get(f"/runs/{run.pk}/status/").json()
    page = client.get(f"/runs/{run.pk}/").content.decode()
    listed = client.get(f"/campaigns/{run.campaign.slug}/").content.decode()
    return {"api": detail, "live": live, "page": page, "listed": listed}


def logged_in(user):
    from django.test import Client

    client, api = Client(), APIClient()
    client.force_login(user)
    api.force_authenticate(user)
    return client, api


@pytest.mark.parametrize("status", [RunStatus.QUEUED, RunStatus.SCORING, RunStatus.SCORED, RunStatus.FAILED])
def test_after_a_valid_report_the_team_sees_accepted_and_no_time(world, member_a, status):
    c, a, _ = world
    run = make_run(a, status=status, validation_report=VALID, progress=37,
                   status_reason="internal error (RecursionError); the organisers can re-score the run")
    Run.objects.filter(pk=run.pk).update(status_changed_at=timezone.now() + timezone.timedelta(seconds=93))
    client, api = logged_in(member_a)
    got = seen(client, api, run)
    for body in (got["api"], got["live"]):
        assert body["status"] == "accepted" and body["progress"] == 100 and body["status_reason"] == ""
        assert "status_changed_at" not in body  # sealed: left out, not sent as an always-null field
    assert got["api"]["finished"] is True and got["live"]["finished"] is True
    assert "checked_at" not in got["api"]["validation_report"] and got["api"]["validation_report"]["valid"]
    for html in (got["page"], got["listed"]):
        assert "Accepted for scoring" in html
        for leak in ("Scoring", "Scored", "Failed", "Queued", "RecursionError", "37%", "10:00:03"):
            assert leak not in html, leak


def test_before_and_during_validation_the_team_sees_what_the_file_decides(world, member_a):
    c, a, _ = world
    client, api = logged_in(member_a)
    received = make_run(a, status=RunStatus.UPLOADED)
    assert seen(client, api, received)["live"]["status_display"] == "Received"
    validating = make_run(a, status=RunStatus.VALIDATING, progress=40)
    live = seen(client, api, validating)["live"]
    assert (live["status"], live["progress"], live["finished"]) == ("validating", 40, False)
    invalid = make_run(a, status=RunStatus.INVALID, status_reason="2 problem(s) found",
                       validation_report=dict(VALID, valid=False, problem_count=2))
    live = seen(client, api, invalid)["live"]
    assert (live["status"], live["status_reason"], live["finished"]) == ("invalid", "2 problem(s) found", True)


def test_after_release_and_for_development_checks_the_team_sees_everything(world, member_a):
    c, a, _ = world
    client, api = logged_in(member_a)
    dev = make_run(a, status=RunStatus.FAILED, scope=Run.Scope.DEV, validation_report=VALID, status_reason="why")
    assert seen(client, api, dev)["api"]["status"] == "failed"
    run = make_run(a, status=RunStatus.FAILED, validation_report=VALID, status_reason="internal error (ValueError)")
    assert seen(client, api, run)["api"]["status"] == "accepted"
    c.state = CampaignState.RELEASED
    c.save()
    got = seen(client, api, run)
    assert got["api"]["status"] == "failed" and got["api"]["status_reason"] == "internal error (ValueError)"
    assert got["api"]["validation_report"]["checked_at"]
    # when scoring ended (or failed) follows from the test sentences: hidden until the gold is released
    assert "status_changed_at" not in got["api"] and "status_changed_at" not in got["live"]
    assert seen(client, api, dev)["api"]["status_changed_at"]  # a development check's is shown at once
    c.gold_released_at = timezone.now()
    c.save()
    assert seen(client, api, run)["api"]["status_changed_at"]


def test_organisers_see_the_failure_and_its_reason(world, organiser, member_a):
    c, a, _ = world
    run = make_run(a, status=RunStatus.FAILED, validation_report=VALID,
                   status_reason="internal error (RecursionError); the organisers can re-score the run")
    client, api = logged_in(organiser)
    assert seen(client, api, run)["api"]["status"] == "failed"
    console = client.get(f"/console/{c.slug}/").content.decode()
    section = console[console.index('id="failed"'):console.index('id="teams"')]
    assert "internal error (RecursionError)" in section and "after a valid report" in section


# -- uniform 404s ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("debug", [False, True])
def test_hidden_and_missing_objects_answer_the_same_404(world, organiser, member_a, settings, debug):
    settings.DEBUG = debug
    c, a, b = world
    hidden_run = make_run(b)  # team B's: hidden from a member of team A
    draft = make_campaign(CampaignState.DRAFT, organiser=organiser)
    missing = 987654
    client, api = logged_in(member_a)
    pairs = [
        (f"/runs/{hidden_run.pk}/", f"/runs/{missing}/"),
        (f"/runs/{hidden_run.pk}/status/", f"/runs/{missing}/status/"),
        (f"/runs/{hidden_run.pk}/file/", f"/runs/{missing}/file/"),
        (f"/campaigns/{draft.slug}/", "/campaigns/no-such-campaign/"),
        (f"/results/{c.slug}/runs/{hidden_run.pk}/", f"/results/{c.slug}/runs/{missing}/"),
        (f"/results/{draft.slug}/", "/results/no-such-campaign/"),
        (f"/console/{c.slug}/", "/console/no-such-campaign/"),
        (f"/governance/runs/{hidden_run.pk}/diagnostics/", f"/governance/runs/{missing}/diagnostics/"),
        (f"/governance/teams/{b.pk}/publication/", f"/governance/teams/{missing}/publication/"),
    ]
    bodies = set()
    for hidden, absent in pairs:
        one, two = client.get(hidden), client.get(absent)
        assert one.status_code == two.status_code == 404, (hidden, one.status_code, two.status_code)
        assert one.content == two.content, (hidden, one.content[:300], two.content[:300])
        bodies.add(one.content)
    assert len(bodies) == 1  # one page for every object
    api_pairs = [
        (f"/api/runs/{hidden_run.pk}/", f"/api/runs/{missing}/"),
        (f"/api/runs/{hidden_run.pk}/results/", f"/api/runs/{missing}/results/"),
        (f"/api/campaigns/{draft.slug}/", "/api/campaigns/no-such-campaign/"),
        (f"/api/campaigns/{draft.slug}/runs/", "/api/campaigns/no-such-campaign/runs/"),
    ]
    for hidden, absent in api_pairs:
        one, two = api.get(hidden), api.get(absent)
        assert one.status_code == two.status_code == 404, (hidden, one.status_code, two.status_code)
        assert one.json() == two.json() == {"detail": "Not found."}, (hidden, one.content, two.content)
    withdraw = api.post(f"/api/runs/{hidden_run.pk}/withdraw/"), api.post(f"/api/runs/{missing}/withdraw/")
    assert withdraw[0].status_code == withdraw[1].status_code == 404 and withdraw[0].content == withdraw[1].content
