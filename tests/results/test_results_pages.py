"""Results pages: the figures shown are the stored ones, to the right people only."""
from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign.models import CampaignState
from evaluation.results import summaries
from evaluation.models import PublishedSnapshot, ResultCell

from . import builders as b

pytestmark = pytest.mark.django_db


def data_f(html: str, table_class: str, row_attr: str) -> list[str]:
    """The raw F values of one table row, in column order."""
    table = re.search(rf'<table class="{table_class}"[^>]*>(.*?)</table>', html, re.S).group(1)
    row = re.search(rf"<tr {row_attr}[^>]*>(.*?)</tr>", table, re.S).group(1)
    return re.findall(r'<td data-f="([^"]*)"', row)


@pytest.fixture
def world():
    org = b.user("org")
    alice, bob, eve = b.user("alice"), b.user("bob"), b.user("eve")
    c = b.campaign(CampaignState.SCORED, organiser=org)
    b.corpus(c)
    ta, tb = b.team(c, "Alpha", alice, code="A"), b.team(c, "Beta", bob, code="B")
    ra, rb = b.scored_run(c, ta, "alpha-1", index=1), b.scored_run(c, tb, "beta-1", index=2)
    return {"c": c, "org": org, "alice": alice, "bob": bob, "eve": eve, "ra": ra, "rb": rb}


def page(client, c, user=None, **params):
    if user is not None:
        client.force_login(user)
    return client.get(reverse("results:campaign", args=[c.slug]), params)


def stored(run, **key):
    return ResultCell.objects.get(result__run=run, aggregation="micro", **key).f


def test_genre_type_table_shows_the_stored_cells(client, world):
    c, ra = world["c"], world["ra"]
    html = page(client, c, world["org"], mode="REF", match="FUZZY", run=ra.pk).content.decode()
    for genre in b.GENRES + ("ALL",):
        shown = data_f(html, "genre-type-table\" data-layer=\"relations", f'data-genre="{genre}"')
        expected = [repr(stored(ra, layer="relations", mode="REF", match="FUZZY", genre=genre, type=t))
                    for t in b.REL_TYPES + ("ALL",)]
        macro = ResultCell.objects.get(result__run=ra, aggregation="macro", layer="relations", mode="REF",
                                       match="FUZZY", genre=genre).f
        # the pooled columns first (ALL, macro), in view when the types scroll sideways
        assert shown == expected[-1:] + [repr(macro)] + expected[:-1]
    # and printed as percentages with one decimal
    f = stored(ra, layer="relations", mode="REF", match="FUZZY", genre="ALL", type="ALL")
    assert f"{100 * f:.1f}" in html


def test_fifteen_ways_and_overview_show_each_runs_pooled_figures(client, world):
    c = world["c"]
    html = page(client, c, world["org"], mode="DEFHYP", match="INCLUDE").content.decode()
    for run in (world["ra"], world["rb"]):
        ways = data_f(html, 'ways-table" data-layer="relations', f'data-run="{run.pk}"')
        assert ways == [repr(stored(run, layer="relations", mode=m, match=x, genre="ALL", type="ALL"))
                        for m in b.MODES for x in b.MATCHES]
        const = data_f(html, 'ways-table" data-layer="constituents', f'data-run="{run.pk}"')
        assert const == [repr(stored(run, layer="constituents", mode="", match=x, genre="ALL", type="ALL"))
                         for x in b.MATCHES]
        overview = data_f(html, "overview", f'data-run="{run.pk}"')
        assert overview == [
            repr(stored(run, layer="relations", mode="DEFHYP", match="INCLUDE", genre="ALL", type="ALL")),
            repr(stored(run, layer="constituents", mode="", match="INCLUDE", genre="ALL", type="ALL")),
        ]
    # the heatmaps of the ways carry one cell per run and way: 2 runs x 15 relation ways + 2 x 5 constituent ways
    ways = html[html.index('<section id="ways">'):html.index('<section id="by-genre">')]
    assert ways.count('class="cell"') == 2 * 15 + 2 * 5


def test_unknown_choices_fall_back_to_defaults(client, world):
    html = page(client, world["c"], world["org"], mode="NOPE", match="<script>").content.decode()
    assert "<script>" not in html
    overview = data_f(html, "overview", f'data-run="{world["ra"].pk}"')
    assert overview[0] == repr(stored(world["ra"], layer="relations", mode="HYP", match="EQUAL", genre="ALL", type="ALL"))


@pytest.mark.parametrize("state", [CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED])
def test_before_release_nobody_but_organisers_sees_scores(client, world, state):
    c = world["c"]
    c.state = state
    c.save()
    secret = repr(stored(world["ra"], layer="relations", mode="HYP", match="EQUAL", genre="ALL", type="ALL"))
    for who in (None, world["alice"], world["bob"], world["eve"]):
        client.logout()
        html = page(client, c, who).content.decode()
        assert "Results are not available yet" in html
        assert "data-f=" not in html and secret not in html
        json = client.get(reverse("results:campaign-json", args=[c.slug])).json()
        assert json == {"source": "none", "data": None}
    assert secret in page(client, c, world["org"]).content.decode()


def test_after_release_a_team_sees_only_its_own_runs(client, world):
    c = world["c"]
    c.state = CampaignState.RELEASED
    c.save()
    html = page(client, c, world["alice"]).content.decode()
    assert f'data-run="{world["ra"].pk}"' in html
    assert f'data-run="{world["rb"].pk}"' not in html and "beta-1" not in html
    assert reverse("results:run", args=[c.slug, world["rb"].pk]) not in html
    assert client.get(reverse("results:run", args=[c.slug, world["rb"].pk])).status_code == 404
    assert client.get(reverse("results:run", args=[c.slug, world["ra"].pk])).status_code == 200
    client.logout()
    assert "data-f=" not in page(client, c).content.decode()


def test_after_publication_everyone_sees_the_snapshot_not_live_rows(client, world):
    c = world["c"]
    data = summaries.campaign_results(c)
    PublishedSnapshot.objects.create(campaign=c, data=data, sha256="f" * 64)
    c.state = CampaignState.PUBLISHED
    c.save()
    # a re-score after publication changes the live figures, not the published ones
    b.add_result(world["ra"], 99)
    html = page(client, c).content.decode()
    assert "Published results" in html
    pooled_then = next(x for x in data["runs"][0]["cells"]
                       if (x["layer"], x["mode"], x["match"], x["genre"], x["type"], x["aggregation"])
                       == ("relations", "HYP", "EQUAL", "ALL", "ALL", "micro"))["f"]
    assert data_f(html, "overview", f'data-run="{world["ra"].pk}"')[0] == repr(pooled_then)
    live_now = ResultCell.objects.filter(
        result__run=world["ra"], layer="relations", mode="HYP", match="EQUAL", genre="ALL", type="ALL",
        aggregation="micro").order_by("-result__created_at", "-result__pk").first().f
    assert live_now != pooled_then and repr(live_now) not in html
    # organisers see the live figures
    org_html = page(client, c, world["org"]).content.decode()
    assert data_f(org_html, "overview", f'data-run="{world["ra"].pk}"')[0] == repr(live_now)
    # the public run page renders from the snapshot too
    client.logout()
    run_html = client.get(reverse("results:run", args=[c.slug, world["ra"].pk])).content.decode()
    assert repr(pooled_then) in run_html and repr(live_now) not in run_html


def test_published_without_snapshot_shows_nothing(client, world):
    c = world["c"]
    c.state = CampaignState.PUBLISHED
    c.save()
    assert "data-f=" not in page(client, c).content.decode()


def test_draft_campaign_is_hidden(client, world):
    c = world["c"]
    c.state = CampaignState.DRAFT
    c.save()
    assert page(client, c).status_code == 404
    assert page(client, c, world["alice"]).status_code == 404
    assert page(client, c, world["org"]).status_code == 200


def test_annotated_counts_only_for_organisers_or_after_gold_release(client, world):
    from annotations.models import GoldSentence

    from campaign.models import Sentence

    c = world["c"]

    first = Sentence.objects.filter(document__campaign=c).order_by("pk")[:2]
    for s in first:
        GoldSentence.objects.create(sentence=s)
    for state in (CampaignState.RELEASED, CampaignState.PUBLISHED):
        c.state = state
        c.save()
        assert "Annotated sentences" not in page(client, c, world["alice"]).content.decode()
        client.logout()
        assert "Annotated sentences" not in page(client, c).content.decode()
    html = page(client, c, world["org"]).content.decode()
    assert "Annotated sentences" in html
    row = re.search(r'<table class="genre-stats".*?<tr data-genre="general"[^>]*>(.*?)</tr>', html, re.S).group(1)
    assert re.findall(r"<td>(\d+)</td>", row) == ["1", "3", "21", "2", "14"]
    c.state = CampaignState.GOLD_RELEASED
    c.save()
    client.logout()
    assert "Annotated sentences" in page(client, c).content.decode()


def _count_queries(client, c, user):
    client.force_login(user)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(reverse("results:campaign", args=[c.slug]))
    assert response.status_code == 200
    return len(ctx.captured_queries)


def test_queries_do_not_grow_with_runs(client, world):
    c, org = world["c"], world["org"]
    two = _count_queries(client, c, org)
    for i in range(4):
        t = b.team(c, f"Gamma {i}", code=f"G{i}")
        b.scored_run(c, t, f"gamma-{i}", index=10 + i)
    six = _count_queries(client, c, org)
    assert six == two, (two, six)
    assert page(client, c, org).content.decode().count('data-run="') >= 6


def test_public_labels_follow_publication_setting(world):
    c = world["c"]
    data = summaries.campaign_results(c)
    assert [r["label"] for r in data["runs"]] == ["A", "B"]
    c.publication = "named"
    c.save()
    data = summaries.campaign_results(type(c).objects.get(pk=c.pk))
    assert sorted(r["label"] for r in data["runs"]) == ["Alpha", "Beta"]


def test_campaign_results_is_json_serialisable_and_complete(world):
    import json

    data = summaries.campaign_results(world["c"])
    assert json.loads(json.dumps(data)) == data
    entry = next(r for r in data["runs"] if r["run"] == world["ra"].pk)
    assert len(entry["cells"]) == ResultCell.objects.filter(result__run=world["ra"]).count()
    assert entry["result"]["gold_sha256"] == "a" * 64 and entry["name"] == "alpha-1"


def test_withdrawn_disqualified_and_unscored_runs_are_left_out(world):
    from django.utils import timezone

    from campaign.models import RunStatus

    c = world["c"]
    t = b.team(c, "Delta", code="D")
    withdrawn = b.scored_run(c, t, "w", index=30)
    withdrawn.withdrawn_at = timezone.now()
    withdrawn.save()
    dq = b.scored_run(c, t, "dq", index=31)
    dq.disqualified = True
    dq.save()
    b.scored_run(c, t, "queued", status=RunStatus.QUEUED)
    assert [r["name"] for r in summaries.campaign_results(c)["runs"]] == ["alpha-1", "beta-1"]


def test_narrowed_snapshot_holds_the_same_cells_as_the_narrowed_live_query(client, world):
    c = world["c"]
    full = summaries.campaign_results(c)
    PublishedSnapshot.objects.create(campaign=c, data=full, sha256="e" * 64)
    c.state = CampaignState.PUBLISHED
    c.save()
    url = reverse("results:campaign-json", args=[c.slug])
    public = client.get(url, {"mode": "REF", "match": "FUZZY"}).json()
    assert public["source"] == "snapshot"
    client.force_login(world["org"])
    live = client.get(url, {"mode": "REF", "match": "FUZZY"}).json()
    assert live["source"] == "live"
    key = lambda cell: (cell["aggregation"], cell["layer"], cell["mode"], cell["match"], cell["genre"], cell["type"])
    for a, b_ in zip(public["data"]["runs"], live["data"]["runs"]):
        assert sorted(map(key, a["cells"])) == sorted(map(key, b_["cells"]))
        assert 0 < len(a["cells"]) < len(full["runs"][0]["cells"])
    expected = ResultCell.objects.filter(summaries.page_cells_any_layer("REF", "FUZZY"), result__run=world["ra"]).count()
    assert len(live["data"]["runs"][0]["cells"]) == expected
    # without a way, everything
    assert len(client.get(url).json()["data"]["runs"][0]["cells"]) == len(full["runs"][0]["cells"])


def test_the_database_narrows_a_snapshot_as_the_pages_would(world):
    """On PostgreSQL a page's share of the snapshot is cut by the database (the page never parses the whole
    snapshot): the same runs, cells and order as :func:`summaries.narrowed` and a run page's filter give."""
    import json

    from django.core.cache import cache

    c = world["c"]
    data = json.loads(json.dumps(summaries.campaign_results(c)))
    snapshot = PublishedSnapshot.objects.create(campaign=c, data=data, sha256="d" * 64)
    snapshot = summaries.latest_snapshot(c)  # as the pages take it: without its data
    assert connection.vendor == "postgresql"
    for way in (("HYP", "EQUAL"), ("REF", "FUZZY"), ("", "")):
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            narrowed = summaries.snapshot_data(snapshot, way)
        assert narrowed == summaries.narrowed(data, *way)
        assert len(queries) == 1 and "jsonb_agg" in queries[0]["sql"]  # not the whole data column
        kept = sum(len(r["cells"]) for r in narrowed["runs"])
        assert 0 < kept < sum(len(r["cells"]) for r in data["runs"])
    for run in (world["ra"], world["rb"]):
        cache.clear()
        one = summaries.snapshot_runs(snapshot, run.pk)
        assert one == dict(data, runs=[r for r in data["runs"] if r["run"] == run.pk]) and len(one["runs"]) == 1
    assert summaries.snapshot_runs(snapshot, 10 ** 9)["runs"] == []
