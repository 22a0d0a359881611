"""No time that follows from test-run scoring reaches a team or the public before the gold is released.

A significance set is computed after every scored test run, so its creation time, or merely its
appearance, says when a run finished scoring; so does a result's creation time and a run's last
status change. Written as the team of finding 3 (issue 19): it polls everything it may read.
"""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from campaign.models import CampaignState
from evaluation.models import SignificanceSet
from tests import factories

from .helpers import gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def as_user(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def surfaces(client: Client, campaign, run) -> dict[str, str]:
    """What the client can read of the campaign's significance and of ``run``'s result."""
    return {
        "significance API": client.get(f"/api/campaigns/{campaign.slug}/significance/").content.decode(),
        "significance JSON": client.get(f"/results/{campaign.slug}/significance.json").content.decode(),
        "ranking page": client.get(f"/results/{campaign.slug}/ranking/").content.decode(),
        "run results API": client.get(f"/api/runs/{run.pk}/results/").content.decode(),
        "run status API": client.get(f"/api/runs/{run.pk}/").content.decode(),
        "run page": client.get(f"/runs/{run.pk}/").content.decode(),
        "run results page": client.get(f"/results/{campaign.slug}/runs/{run.pk}/").content.decode(),
    }


def scoring_times(campaign, run) -> list[str]:
    """How the pages and the API print the times scoring produced: the results', the sets', the status's."""
    times = [r.created_at for r in run.results.all()]
    times += [s.created_at for s in SignificanceSet.objects.filter(campaign=campaign)]
    times.append(run.status_changed_at)
    out = []
    for t in times:  # to the microsecond: the upload, within the same minute, may be shown
        out += [t.isoformat(), t.isoformat().replace("+00:00", "Z"), timezone.localtime(t).isoformat()]
    return out


# the pages print a scoring time to the minute, after these words
PAGE_TIMES = re.compile(r"&middot; computed \d|· scored \d")


def leaked(seen: dict[str, str], times: list[str]) -> list[str]:
    return [f"{name}: {t}" for name, body in seen.items() for t in times if t in body] + [
        f"{name}: {m.group(0)}" for name, body in seen.items() for m in PAGE_TIMES.finditer(body)]


@pytest.mark.parametrize("state", [CampaignState.OPEN, CampaignState.RELEASED, CampaignState.PUBLISHED])
def test_no_scoring_time_before_gold_release(scored, alice, state):
    good, _ = scored
    campaign = good.campaign
    campaign.state = state
    campaign.save()
    assert SignificanceSet.objects.filter(campaign=campaign).exists()
    times = scoring_times(campaign, good)
    for who, user in (("team", alice), ("public", None)):
        seen = surfaces(as_user(user), campaign, good)
        assert not leaked(seen, times), (who, state, leaked(seen, times))
        computed = as_user(user).get(f"/api/campaigns/{campaign.slug}/significance/").json()["computed"]
        if state == CampaignState.OPEN:
            # not even whether a set exists: the first one appears when the first test run is scored
            assert computed is None, (who, computed)
            assert "Tests:" not in seen["ranking page"]
        else:
            assert computed["signature"] and computed["created_at"] is None, (who, computed)


def test_organisers_keep_the_live_set_and_everyone_gets_the_times_with_the_gold(scored, alice, organiser):
    good, _ = scored
    campaign = good.campaign
    newest = SignificanceSet.objects.filter(campaign=campaign).latest()
    organiser_view = as_user(organiser).get(f"/api/campaigns/{campaign.slug}/significance/").json()
    assert organiser_view["computed"]["created_at"] == newest.created_at.isoformat()
    assert any(t in surfaces(as_user(organiser), campaign, good)["run results API"]
               for t in scoring_times(campaign, good))

    campaign.state = CampaignState.GOLD_RELEASED
    campaign.gold_released_at = timezone.now()
    campaign.save()
    team_view = as_user(alice).get(f"/api/campaigns/{campaign.slug}/significance/").json()
    assert team_view["computed"]["created_at"] == newest.created_at.isoformat()
    assert leaked(surfaces(as_user(alice), campaign, good), scoring_times(campaign, good))


def test_pairs_are_served_in_upload_order_not_scoring_order(db, alice):
    # Result ids are given out as scoring ends and a stored pair's run A is the run whose result came first:
    # here run 9's result (id 40) came before run 3's (id 41). Worked out by hand: turned to run A = 3,
    # the difference 0.02 becomes -0.02 and its interval [0.01, 0.03] becomes [-0.03, -0.01].
    from evaluation.significance.sets import served_significance

    campaign = factories.make_campaign(state=CampaignState.PUBLISHED)
    stored = {"computed": {"signature": "s"}, "pairs": [
        {"figure": "micro|evalb||", "run_a": 9, "run_b": 3, "result_a": 40, "result_b": 41, "diff": 0.02,
         "ci": [0.01, 0.03], "p": 0.01, "p_holm": 0.02, "significant": True},
        {"figure": "micro|evalb||", "run_a": 1, "run_b": 9, "result_a": 39, "result_b": 40, "diff": -0.5,
         "ci": None, "p": None, "p_holm": None, "significant": False},
    ]}
    served = served_significance(alice, campaign, stored)
    assert served["pairs"] == [
        {"figure": "micro|evalb||", "run_a": 1, "run_b": 9, "diff": -0.5, "ci": None, "p": None, "p_holm": None,
         "significant": False},
        {"figure": "micro|evalb||", "run_a": 3, "run_b": 9, "diff": -0.02, "ci": [-0.03, -0.01], "p": 0.01,
         "p_holm": 0.02, "significant": True},
    ]
    campaign.gold_released_at = timezone.now()
    campaign.save()
    assert served_significance(alice, campaign, stored) is stored


def test_published_results_give_the_public_no_result_ids(scored, organiser):
    from campaign import lifecycle

    good, bad = scored
    campaign = good.campaign
    campaign.team_figures = "pooled"  # a setting that shows the pairs before the gold release (the default: none)
    campaign.save(update_fields=["team_figures"])
    for state in (CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED, CampaignState.PUBLISHED):
        lifecycle.transition(campaign, state, actor=organiser)
    public = as_user(None)
    [pair] = public.get(f"/api/campaigns/{campaign.slug}/significance/?figure=micro|evalb||").json()["pairs"]
    assert "result_a" not in pair and (pair["run_a"], pair["run_b"]) == (good.pk, bad.pk)
    assert pair["diff"] > 0  # the gold copy minus the damaged run
    data = public.get(f"/results/{campaign.slug}/data.json").json()["data"]
    assert {r["run"] for r in data["runs"]} == {good.pk, bad.pk}
    assert all("id" not in r["result"] and r["result"]["created_at"] is None for r in data["runs"])
