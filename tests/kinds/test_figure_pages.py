"""What the kind pages show of each figure: its own name, unit and interval, one chart per measure."""
from __future__ import annotations

import re

from django.urls import reverse
from django.utils.html import escape

from parseval.evaluation import metrics
from evaluation.models import Result, ResultCell
from evaluation.results.text import percent
from tests import factories

from .helpers import upload
from .test_pages import scored  # noqa: F401  (the fixture: two scored runs of a tree campaign)


def test_results_pages_name_each_figure_with_its_unit_interval_and_own_chart(client, tree_campaign, scored,  # noqa: F811
                                                                            organiser):
    run_a, _ = scored
    client.force_login(organiser)
    html = client.get(reverse("results:campaign", kwargs={"slug": tree_campaign.slug})).content.decode()
    # readable names and units, not internal codes
    for name in ("evalb F (labelled brackets) (%)", "Leaf-ancestor (sentence mean) (%)", "UAS (unlabelled attachment) (%)"):
        assert name in html
    assert ">la-sentence<" not in html and ">deps-lin<" not in html
    # one chart per figure: as many charts as figures, each with its own measure on the axis
    figures = ResultCell.objects.filter(result__run=run_a, genre="ALL").count()
    assert html.count("<svg") == figures == 7
    assert "F-measure (%)" not in html and "Leaf-ancestor (word mean) (%)" in html
    # the interval is shown beside the figure, as a percentage with one decimal
    cell = ResultCell.objects.get(result__run=run_a, layer="evalb", genre="ALL")
    assert cell.ci_low <= cell.f <= cell.ci_high
    assert f"{percent(cell.ci_low)}–{percent(cell.ci_high)}" in html


def test_run_page_of_a_tree_run_has_no_easy_columns(client, tree_campaign, scored, organiser):  # noqa: F811
    run_a, _ = scored
    client.force_login(organiser)
    html = client.get(reverse("portal:run", kwargs={"pk": run_a.pk})).content.decode()
    table = re.search(r'<table class="figures">(.*?)</table>', html, re.S).group(1)
    assert "Mode" not in table and "Match" not in table
    assert "evalb exact match (%)" in table
    cell = ResultCell.objects.get(result__run=run_a, layer="evalb", genre="ALL")
    row = re.search(r'<tr data-layer="evalb">(.*?)</tr>', table, re.S).group(1)
    assert f">{percent(cell.f)}<" in row and f"{percent(cell.ci_low)}–{percent(cell.ci_high)}" in row
    # leaf-ancestor has no P or R: "–", never 0.0
    la = re.search(r'<tr data-layer="leaf-ancestor">(.*?)</tr>', table, re.S).group(1)
    assert re.search(r"</th>\s*<td>–</td><td>–</td>", la)


def test_results_stored_before_intervals_still_show(client, tree_campaign, scored, organiser):  # noqa: F811
    # A result in the earlier stored shape (per-genre engine summaries, no interval in any cell), stored
    # as the run's latest result: results are immutable, so it is a new one.
    run_a, _ = scored
    result = Result.objects.get(run=run_a)
    doc = dict(result.document)
    doc.pop("bootstrap")
    doc["genres"] = {g: {m: {"metric": m, "summary": {}} for m in doc["metrics"]} for g in doc["genres"]}
    doc["cells"] = [dict(c, ci=None) for c in doc["cells"]]
    old = Result.objects.create(run=run_a, metric=result.metric, signature=result.signature,
                                scorer_version=result.scorer_version, gold_sha256=result.gold_sha256,
                                parameters=result.parameters, document=doc,
                                scoring_round=result.scoring_round + 1)  # one result per scoring round
    ResultCell.objects.bulk_create(
        ResultCell(result=old, aggregation=c.aggregation, layer=c.layer, mode=c.mode, match=c.match, genre=c.genre,
                   type=c.type, fc=c.fc, fp=c.fp, cr=c.cr, p=c.p, r=c.r, f=c.f)
        for c in ResultCell.objects.filter(result=result))
    client.force_login(organiser)
    f = ResultCell.objects.get(result=old, layer="evalb", genre="ALL").f
    for url in (reverse("results:campaign", kwargs={"slug": tree_campaign.slug}),
                reverse("results:run", kwargs={"slug": tree_campaign.slug, "pk": run_a.pk}),
                reverse("portal:run", kwargs={"pk": run_a.pk})):
        response = client.get(url)
        assert response.status_code == 200, url
        assert percent(f) in response.content.decode()


def _explained_from_headers(html: str) -> list[str]:
    """The layer codes of the overview's headers, each checked to link to an explanation the page carries."""
    header = re.search(r'<table class="overview">.*?<thead>(.*?)</thead>', html, re.S).group(1)
    codes = re.findall(r'data-layer="([^"]+)"', header)
    for code in codes:
        assert f'<a href="#explain-layer-{code}">' in header, code
        details = re.search(rf'<details id="explain-layer-{re.escape(code)}">(.*?)</details>', html, re.S)
        assert details, code
        assert escape(metrics.layers()[code].description) in details.group(1), code
    return codes


def test_tree_results_and_run_pages_explain_each_figure_from_its_header(client, tree_campaign, scored,  # noqa: F811
                                                                        organiser):
    run_a, _ = scored
    client.force_login(organiser)
    for url in (reverse("results:campaign", kwargs={"slug": tree_campaign.slug}),
                reverse("results:run", kwargs={"slug": tree_campaign.slug, "pk": run_a.pk})):
        html = client.get(url).content.decode()
        # the tree campaign publishes 7 figures: evalb F, evalb exact, leaf-ancestor word and sentence means,
        # Lin F, UAS, LAS (GEIG and conformance are not among its metrics)
        codes = _explained_from_headers(html)
        assert codes == ["evalb", "evalb-exact", "leaf-ancestor", "la-sentence", "deps-lin", "deps-uas", "deps-las"]
        # the interval and the clusters are explained too, and the interval header links to it
        assert 'href="#explain-interval"' in html and 'id="explain-interval"' in html
        assert 'id="explain-clusters"' in html
        assert "js/explain.js" in html


def test_dependency_results_page_explains_each_figure(client, dep_campaign, alice, organiser, dep_gold,
                                                      django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    upload(dep_campaign, team, alice, {p.name: p.read_text() for p in dep_gold}, django_capture_on_commit_callbacks)
    client.force_login(organiser)
    html = client.get(reverse("results:campaign", kwargs={"slug": dep_campaign.slug})).content.decode()
    # the CoNLL 2018 figures beside Lin's, UAS and LAS; on the gold words Tokens, Sentences and Words are not shown
    assert _explained_from_headers(html) == ["deps-lin", "deps-uas", "deps-las", "conll18-upos", "conll18-las",
                                             "conll18-clas", "conll18-mlas", "conll18-blex"]
    assert "words with the right head and relation label" in html  # LAS, from the registry
    assert "MLAS F1 (CoNLL 2018)" in html and "LAS over content words only" in html


def test_ranking_and_comparison_name_figures_readably_and_explain_them(client, tree_campaign, scored,  # noqa: F811
                                                                       organiser):
    run_a, run_b = scored
    client.force_login(organiser)
    ranking = client.get(reverse("results:ranking", kwargs={"slug": tree_campaign.slug}) + "?figure=micro|la-sentence||"
                         ).content.decode()
    assert "Leaf-ancestor (sentence mean) · micro" in ranking and "la-sentence · micro" not in ranking
    assert '<a href="#explain-layer-la-sentence">F (%)</a>' in ranking
    assert '<details id="explain-layer-la-sentence">' in ranking
    compare = client.get(reverse("results:compare", kwargs={"slug": tree_campaign.slug, "run_a": run_a.pk,
                                                            "run_b": run_b.pk})).content.decode()
    summary = re.search(r'<table class="compare-summary">(.*?)</table>', compare, re.S).group(1)
    for code in ("evalb", "la-sentence", "deps-las"):
        name = metrics.layers()[code].label
        assert f"{name} · micro" in summary
        assert f"{code} · micro" not in summary
        assert f'href="#explain-layer-{code}"' in summary and f'<details id="explain-layer-{code}">' in compare


def test_portal_run_page_of_a_tree_run_explains_its_figures(client, tree_campaign, scored, organiser):  # noqa: F811
    run_a, _ = scored
    client.force_login(organiser)
    html = client.get(reverse("portal:run", kwargs={"pk": run_a.pk})).content.decode()
    table = re.search(r'<table class="figures">(.*?)</table>', html, re.S).group(1)
    codes = re.findall(r'<tr data-layer="([^"]+)">', table)
    assert len(codes) == 7  # evalb F and exact, leaf-ancestor word and sentence, Lin, UAS, LAS
    for code in codes:
        assert f'<a href="#explain-layer-{code}">' in table
        details = re.search(rf'<details id="explain-layer-{re.escape(code)}">(.*?)</details>', html, re.S)
        assert details and escape(metrics.layers()[code].description) in details.group(1), code
    assert '<a href="#explain-interval">95% CI</a>' in table and 'id="explain-interval"' in html
