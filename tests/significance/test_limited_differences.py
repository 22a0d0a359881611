"""What a team sees of the paired tests between its own two runs before the gold release.

A difference per genre × type is a difference of sums over the scored sentences of that cell: the
per-cell channel that :mod:`evaluation.results.disclosure` closes on the results pages. The comparison page and
the significance document are limited the same way: under the default (pooled figures) a team sees the
headline difference only, rounded to 0.1 point, with no agreement across genres; organisers keep all.
"""
from __future__ import annotations

import re
from unittest import mock

from campaign import lifecycle
from campaign.models import CampaignState, TeamFigures
from evaluation.results import disclosure
from evaluation.results.disclosure import DECIMALS
from tests import factories
from tests.kinds.helpers import damaged_trees, upload

FIGURE = "micro|evalb||"


def _two_runs_of_one_team(campaign, gold, alice, capture):
    team = factories.make_team(campaign, alice, name="Team A")
    good = upload(campaign, team, alice, {p.name: p.read_text(encoding="utf-8") for p in gold}, capture,
                  name="gold copy")
    bad = upload(campaign, team, alice, {p.name: damaged_trees(p, "ATTACH I", seed=5, per_type=12) for p in gold},
                 capture, name="damaged")
    for state in (CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED):
        lifecycle.transition(campaign, state, actor=campaign.organisers.first())
    return good, bad


def _cells_table(page: str) -> tuple[int, int]:
    """(columns, rows) of the comparison's genre × type table: one column per genre, one row per type."""
    table = re.search(r'<table class="compare-cells">(.*?)</table>', page, re.S)
    if not table:
        return 0, 0
    head = re.search(r"<thead>(.*?)</thead>", table.group(1), re.S).group(1)
    return head.count("<th") - 1, table.group(1).count('<th scope="row">')


def test_a_team_sees_its_own_pair_pooled_and_rounded(tree_campaign, tree_gold, alice, organiser, client,
                                                     django_capture_on_commit_callbacks):
    assert tree_campaign.team_figures == TeamFigures.PRIMARY  # the default: no paired test before the gold release
    tree_campaign.team_figures = TeamFigures.POOLED  # the organisers' other choice, whose pairs are limited here
    tree_campaign.save(update_fields=["team_figures"])
    good, bad = _two_runs_of_one_team(tree_campaign, tree_gold, alice, django_capture_on_commit_callbacks)
    slug = tree_campaign.slug

    client.force_login(organiser)
    full = client.get(f"/results/{slug}/significance.json?figure={FIGURE}").json()["pairs"][0]
    full_page = client.get(f"/results/{slug}/compare/{good.pk}/{bad.pk}/?figure={FIGURE}").content.decode()
    assert full["agreement"] and round(full["diff"], DECIMALS) != full["diff"]  # a float with more digits

    client.force_login(alice)
    seen = client.get(f"/results/{slug}/significance.json?figure={FIGURE}").json()["pairs"][0]
    assert seen["diff"] == round(seen["diff"], DECIMALS) == round(full["diff"], DECIMALS) * (
        1 if seen["run_a"] == full["run_a"] else -1)
    assert all(v == round(v, DECIMALS) for v in seen["ci"]) and seen["agreement"] is None
    page = client.get(f"/results/{slug}/compare/{good.pk}/{bad.pk}/?figure={FIGURE}")
    assert page.status_code == 200
    # the organiser's table: all genres and each of the two genres; the team's: all genres only
    assert _cells_table(full_page) == (3, 1)  # evalb: one type (all brackets)
    assert _cells_table(page.content.decode()) == (1, 1)


def test_full_figures_chosen_by_the_organisers_show_every_cell(tree_campaign, tree_gold, alice, client,
                                                               django_capture_on_commit_callbacks):
    tree_campaign.team_figures = TeamFigures.FULL
    tree_campaign.save(update_fields=["team_figures"])
    good, bad = _two_runs_of_one_team(tree_campaign, tree_gold, alice, django_capture_on_commit_callbacks)
    client.force_login(alice)
    seen = client.get(f"/results/{tree_campaign.slug}/significance.json?figure={FIGURE}").json()["pairs"][0]
    assert seen["agreement"] and round(seen["diff"], DECIMALS) != seen["diff"]


def test_pages_and_json_limit_the_pairs_in_one_place(tree_campaign, tree_gold, alice, organiser, client,
                                                     django_capture_on_commit_callbacks):
    """The ranking, the comparison, the significance JSON and the API all pass what they show of the paired tests
    through :func:`disclosure.limit_pair_tables`, for the user who asks: the same limits whatever the way in."""
    good, bad = _two_runs_of_one_team(tree_campaign, tree_gold, alice, django_capture_on_commit_callbacks)
    tree_campaign.team_figures = TeamFigures.POOLED  # the setting whose pairs are shown, limited
    tree_campaign.save(update_fields=["team_figures"])
    slug = tree_campaign.slug
    urls = {"ranking": f"/results/{slug}/ranking/?figure={FIGURE}",
            "comparison": f"/results/{slug}/compare/{good.pk}/{bad.pk}/?figure={FIGURE}",
            "json": f"/results/{slug}/significance.json?figure={FIGURE}",
            "api": f"/api/campaigns/{slug}/significance/?figure={FIGURE}"}
    for user, limited in ((alice, True), (organiser, False)):
        client.force_login(user)
        for way, url in urls.items():
            with mock.patch.object(disclosure, "limit_pair_tables", wraps=disclosure.limit_pair_tables) as spy:
                response = client.get(url)
            assert response.status_code == 200, (way, response.status_code)
            assert spy.call_count == 1 and spy.call_args.args[1] == user, way
            tables, _, campaign = spy.call_args.args
            limits = disclosure.limit_pair_tables(tables, user, campaign)
            heads = [t["headline"] for t in limits.values()]
            assert heads and all((h["agreement"] is None) == limited for h in heads), way
            assert all(h["diff"] == round(h["diff"], DECIMALS) for h in heads) or not limited, way
