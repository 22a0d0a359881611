"""Two scored runs of a constituency campaign: the gold itself, and heavily damaged trees."""
from __future__ import annotations

from campaign.models import RunStatus
from tests import factories
from tests.kinds.helpers import damaged_trees, upload


def gold_and_damaged(campaign, gold, alice, bob, capture, *, team_b: str = "Team B"):
    team_a = factories.make_team(campaign, alice, name="Team A")
    team_b = factories.make_team(campaign, bob, name=team_b)
    good = upload(campaign, team_a, alice, {p.name: p.read_text(encoding="utf-8") for p in gold}, capture,
                  name="gold copy")
    bad = upload(campaign, team_b, bob, {p.name: damaged_trees(p, "ATTACH I", seed=5, per_type=12) for p in gold},
                 capture, name="damaged")
    assert good.status == bad.status == RunStatus.SCORED
    return good, bad


def assert_one_p_value(client, slug: str, run_a: int, run_b: int, figure: str) -> dict:
    """The comparison page's headline p-value for a pair and figure is the API's and the ranking's: one stored
    test, one family (every pair of the figure), named the same on the page and in the API."""
    import re
    from urllib.parse import quote

    page = client.get(f"/results/{slug}/compare/{run_a}/{run_b}/?figure={quote(figure)}").content.decode()
    api = client.get(f"/api/campaigns/{slug}/significance/?figure={quote(figure)}").json()
    [pair] = [p for p in api["pairs"] if {p["run_a"], p["run_b"]} == {run_a, run_b}]
    headline = re.search(r'<p id="headline" data-p-holm="([^"]*)">(.*?)</p>', page, re.S)
    assert headline, "the comparison page states the chosen figure's headline"
    assert float(headline.group(1)) == pair["p_holm"]
    assert f"Holm-adjusted across the {pair['family']} pairs of this figure" in headline.group(2)
    assert pair["family_label"] == f"Holm, across the {pair['family']} pairs of this figure"
    row = re.search(r'<tr data-figure="%s">.*?data-p-holm="([^"]*)"' % re.escape(figure), page, re.S)
    assert float(row.group(1)) == pair["p_holm"]  # the summary row: the same value
    ranking = client.get(f"/results/{slug}/ranking/?figure={quote(figure)}").content.decode()
    for value in re.findall(r'data-p-holm="([^"]*)"', ranking):
        assert float(value) in {p["p_holm"] for p in api["pairs"]}, value
    return pair


def headline_row(computed, figure: str) -> dict:
    """The one pair's stored headline on ``figure`` (a row of ``sets.HEADLINE_FIELDS``)."""
    from evaluation.significance.sets import stored_headlines

    [row] = stored_headlines(computed, figure=figure)
    return row


def computations(campaign) -> int:
    """The significance computations stored for ``campaign``: each one replaces the set, and is audited."""
    from campaign.models import AuditEntry
    from evaluation.significance.sets import SIGNIFICANCE_COMPUTED

    return AuditEntry.objects.filter(campaign=campaign, action=SIGNIFICANCE_COMPUTED).count()
