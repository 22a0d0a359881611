"""Paired tests stored for a constituency campaign when its runs are scored; the ranking and comparison read them."""
from __future__ import annotations

import pytest

from evaluation.models import ResultCell, SignificanceSet, SignificanceTable
from evaluation.significance import sets as significance

from .helpers import assert_one_p_value, gold_and_damaged, headline_row


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    """Team A hands in the gold itself; team B heavily damaged trees."""
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def test_scoring_a_run_stores_the_paired_tests(scored):
    good, bad = scored
    computed = SignificanceSet.objects.latest()  # the second scoring's set holds both runs
    ra, rb = good.results.get(), bad.results.get()
    assert computed.results == sorted([ra.pk, rb.pk])
    assert computed.signature.startswith(
        "metric:paired-bs|n:1000|seed:12345|strata:genre|p:normal|corr:holm-pairs+bh-cells|alpha:0.05")
    row = headline_row(computed, "micro|evalb||")
    # The difference is the stored figures' difference: the statistics layer sums the same rows.
    fa = ResultCell.objects.get(result=ra, layer="evalb", genre="ALL").f
    fb = ResultCell.objects.get(result=rb, layer="evalb", genre="ALL").f
    sign = 1 if row["result_a_id"] == ra.pk else -1
    assert fa == 1.0 and fb < 1.0
    assert sign * row["diff"] == pytest.approx(fa - fb, abs=1e-6)
    assert row["significant"] and row["p_holm"] < 0.05
    # one pair only: Holm across the campaign's pairs changes nothing
    assert row["p_holm"] == row["p_value"]
    [stored] = SignificanceTable.objects.filter(figure="micro|evalb||", result_b=max(ra.pk, rb.pk))
    assert set(stored.strata) == {"news", "wiki", "ALL"} and stored.strata[-1] == "ALL"
    assert row["family"] == 1
    # the headline cell is counted once: the table's family is the other cells (two genres, one type each)
    table = significance.pair_tables(computed, ra.pk, rb.pk, ["micro|evalb||"])["micro|evalb||"]
    assert table["cells_family"] == 2 and set(table["cells"]) == {"news", "wiki", "ALL"}
    assert table["cells"]["ALL"] == {"ALL": table["headline"]}
    # the test sentences per genre, for the minimum detectable effect and the design aid
    assert set(computed.sentences) == {"news", "wiki", "ALL"}
    assert computed.sentences["news"] + computed.sentences["wiki"] == computed.sentences["ALL"] > 0


def test_ranking_and_comparison_pages(scored, client, organiser):
    good, bad = scored
    client.force_login(organiser)
    page = client.get(f"/results/{good.campaign.slug}/ranking/?figure=micro|evalb||").content.decode()
    # gold copy first, then the damaged run in a cluster of its own, each with a single rank
    assert page.index("gold copy") < page.index("damaged")
    assert 'data-cluster="1"' in page and 'data-cluster="2"' in page and "new-cluster" in page
    assert "<svg" in page and "<desc" in page
    compare = client.get(f"/results/{good.campaign.slug}/compare/{good.pk}/{bad.pk}/?figure=micro|evalb||")
    assert compare.status_code == 200
    assert 'class="sig" data-significant="yes"' in compare.content.decode()
    pair = assert_one_p_value(client, good.campaign.slug, good.pk, bad.pk, "micro|evalb||")
    assert pair["family"] == 1 and pair["mde"] > 0 and pair["mde_family"] == pair["mde"]  # one pair: one step
    data = client.get(f"/results/{good.campaign.slug}/significance.json?figure=micro|evalb||").json()
    assert data["computed"]["correction"] == "holm"
    [pair] = data["pairs"]
    assert {pair["run_a"], pair["run_b"]} == {good.pk, bad.pk} and pair["significant"] is True


def test_a_team_cannot_compare_runs_it_may_not_see(scored, client, alice):
    good, bad = scored
    client.force_login(alice)  # before publication a team sees nothing of the other team
    assert client.get(f"/results/{good.campaign.slug}/compare/{good.pk}/{bad.pk}/").status_code == 404
    assert client.get(f"/results/{good.campaign.slug}/significance.json").json()["pairs"] == []


def test_the_task_recomputes_from_kept_rows(scored):
    good, _ = scored
    first = significance.latest_set(good.campaign)
    first_p = [(r["figure"], r["p_value"]) for r in significance.stored_headlines(first)]
    first_bytes = significance.set_bytes(first)
    SignificanceTable.objects.all().delete()  # every pair computed again, not reused
    again = significance.compute(good.campaign)
    assert significance.latest_set(good.campaign) == again  # replaced: the old one only until the next
    # seeded: the same p-values from the rows kept at the first computation
    assert [(r["figure"], r["p_value"]) for r in significance.stored_headlines(again)] == first_p
    assert significance.set_bytes(again) == first_bytes


def test_the_api_serves_the_same_document(scored, client, organiser):
    good, _ = scored
    client.force_login(organiser)
    page = client.get(f"/results/{good.campaign.slug}/significance.json").json()
    api = client.get(f"/api/campaigns/{good.campaign.slug}/significance/").json()
    assert api == page
    # every published figure of the two runs: evalb F, exact match, leaf-ancestor, Lin F, UAS, LAS
    assert {p["figure"] for p in api["pairs"]} >= {"micro|evalb||", "micro|leaf-ancestor||", "micro|deps-las||"}


def test_a_dependency_ranking_defaults_to_las():
    from django.test import RequestFactory

    from evaluation.significance.views import _choose_figure

    # the stored layer code is deps-las; sorted order alone would pick macro|deps-las|| here
    cells = {f"{agg}|deps-{name}||": {} for agg in ("macro", "micro") for name in ("las", "lin", "uas")}
    assert _choose_figure(RequestFactory().get("/"), cells) == "micro|deps-las||"
    assert _choose_figure(RequestFactory().get("/", {"figure": "micro|deps-uas||"}), cells) == "micro|deps-uas||"


def test_a_figure_with_no_f_is_ranked_by_its_recall(tree_campaign, tree_gold, alice, bob, client, organiser,
                                                   django_capture_on_commit_callbacks):
    """GEIG 1991 publishes recall and precision, no F: the ranking orders and shows the recall, as its pages do."""
    tree_campaign.metrics = {**tree_campaign.metrics, "tree_metrics": ["geig1991"]}
    tree_campaign.save(update_fields=["metrics"])
    good, bad = gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)
    recall = {run.pk: ResultCell.objects.get(result=run.results.get(), layer="geig1991", genre="ALL",
                                             type="ALL", aggregation="micro").r for run in (good, bad)}
    assert recall[good.pk] == 1.0 and recall[bad.pk] < 1.0  # the gold copy is perfect, the damaged run is not
    client.force_login(organiser)
    page = client.get(f"/results/{tree_campaign.slug}/ranking/?figure=micro|geig1991||").content.decode()
    assert "Recall (%)" in page and "F (%)" not in page
    assert page.index("gold copy") < page.index("damaged")
    assert "100.0" in page  # the gold copy's recall, where the F column would show a dash


def test_the_design_aid_for_organisers(scored, client, organiser, alice):
    good, bad = scored
    slug = good.campaign.slug
    client.force_login(alice)  # a team member: the page does not exist for them
    assert client.get(f"/results/{slug}/design/").status_code == 404
    client.force_login(organiser)
    assert 'id="design-link"' in client.get(f"/console/{slug}/").content.decode()
    page = client.get(f"/results/{slug}/design/?figure=micro|evalb||&target=2").content.decode()
    computed = significance.latest_set(good.campaign)
    row = headline_row(computed, "micro|evalb||")
    # over all genres: the sentences now, scaled by (MDE / 2 points)²
    n = computed.sentences["ALL"]
    from parseval.evaluation import design
    expected = design.needed(n, row["se"], 0.02)
    assert f'<tr data-stratum="ALL"><th scope="row">All genres</th><td>{n}</td>' in page
    assert f'data-needed="{expected}"' in page
