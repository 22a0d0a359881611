"""The explorer's pages on a small dependency campaign: figures, links from every number to its sentences, the
sentence view, confusions, errors across runs, and the pairwise test per bucket."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from django.test import Client

from evaluation.analysis import pairwise, store
from evaluation.models import RunAnalysis
from evaluation.results.sentence_rows import rows_of
from evaluation.significance.sets import settings_of
from parseval.evaluation import paired
from parseval.evaluation.deps.metrics import ROW_COLUMNS

from .conftest import advance_to

pytestmark = pytest.mark.django_db


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_the_explorer_of_a_dependency_run(explorer_world):
    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    client = _client()  # the public, after the gold release
    # The test runs' analyses were computed after their scoring (the worker's task), the development check's not.
    assert RunAnalysis.objects.filter(result__run__in=[runs["A"], runs["B"]]).count() == 2
    assert not RunAnalysis.objects.filter(result__run=runs["A-dev"]).exists()
    kept = RunAnalysis.objects.get(result__run=runs["B"])
    base = f"/results/{campaign.slug}/runs/{runs['B'].pk}/analysis/"
    html = client.get(base).content.decode()
    assert html.count('class="chart"') >= 1 and "<svg" in html and 'data-attribute="arc_length"' in html
    assert list(RunAnalysis.objects.filter(result__run=runs["B"])) == [kept]  # read, never computed again
    dev = _client(users["A"]).get(f"/results/{campaign.slug}/runs/{runs['A-dev'].pk}/analysis/")
    assert dev.status_code == 200 and RunAnalysis.objects.filter(result__run=runs["A-dev"]).count() == 1
    document = store.stored(runs["B"].results.get()).document
    headline = document["headline"]
    for attribute in document["attributes"]:  # every attribute's buckets sum to the headline's counts
        assert sum(b["gold"] for b in attribute["buckets"]) == headline["gold"], attribute["name"]
        assert sum(b["correct"] for b in attribute["buckets"]) == headline["correct"], attribute["name"]
        assert sum(b["test"] for b in attribute["buckets"]) == headline["test"], attribute["name"]
    # The perfect run: every bucket at 100 %; the perturbed one below.
    perfect = client.get(f"/results/{campaign.slug}/runs/{runs['A'].pk}/analysis.json").json()
    assert perfect["headline"]["las"] == 1.0 and headline["las"] < 1.0
    # Every bucket links to its sentences, each sentence to its view.
    links = re.findall(r'href="([^"]*analysis/sentences/\?by=[^"]*)"', html)
    assert len(links) == sum(len(a["buckets"]) for a in document["attributes"])
    listing = client.get(links[0].replace("&amp;", "&")).content.decode()
    sentence = re.search(r'href="([^"]*analysis/sentence/\?key=[^"]*)"', listing).group(1)
    view = client.get(sentence.replace("&amp;", "&"))
    assert view.status_code == 200 and b'class="chart sentence-view"' in view.content


def test_a_bucket_lists_exactly_its_sentences(explorer_world):
    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    analysis = store.analysis_of(runs["B"].results.get())
    entry = analysis.index["buckets"]["arc_length"]["root"]
    # One root arc per gold sentence: every scored sentence is behind the "root" bucket, with one gold item each.
    assert len(entry["s"]) == analysis.document["sentences"] == 22 - 2  # 22 sentences, 2 of them development
    assert entry["c"][0::5] == [1] * 20  # counts flat, five per sentence: "gold" first
    html = _client(users["org"]).get(f"/results/{campaign.slug}/runs/{runs['B'].pk}/analysis/sentences/",
                                     {"by": "arc_length", "bucket": "root"}).content.decode()
    assert "20 sentences." in html


def test_confusion_rows_sum_to_the_gold_counts(explorer_world):
    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    analysis = store.analysis_of(runs["B"].results.get())
    (table,) = analysis.document["confusions"]
    relation = next(a for a in analysis.document["attributes"] if a["name"] == "relation")
    gold_per_relation = {b["bucket"]: b["gold"] for b in relation["buckets"] if b["gold"]}
    assert {row["gold"]: row["count"] for row in table["rows"]} == gold_per_relation
    for row in table["rows"]:
        assert sum(c["count"] for c in row["cells"].values()) == row["count"]
    # The perturbation made every fifth relation "dep" (head kept): some gold relation reads dep in the run.
    assert any("dep" in row["cells"] for row in table["rows"] if row["gold"] != "dep")
    html = _client().get(f"/results/{campaign.slug}/runs/{runs['B'].pk}/analysis/confusions/").content.decode()
    cell = re.search(r'href="([^"]*analysis/sentences/\?table=relations&amp;cell=[^"]*)"', html).group(1)
    assert _client().get(cell.replace("&amp;", "&")).status_code == 200


def test_errors_shared_or_alone(explorer_world):
    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    html = _client().get(f"/results/{campaign.slug}/runs/{runs['B'].pk}/analysis/errors/").content.decode()
    errors = store.analysis_of(runs["B"].results.get()).index["errors"]
    # Two runs: the perfect one makes no error, so each of B's errors is B's alone, and none is hard for both.
    assert f"{len(errors)} errors of this run, compared with the 2 runs" in html
    assert f"0 are made by at least half of them (and by more than one run), {len(errors)} by this run alone" in html


def test_a_genre_bucket_is_the_comparison_pages_test_in_that_genre(explorer_world):
    """The pairwise test of a bucket holding every item of one genre is the paired test of the headline figure
    (LAS) in that genre, on the rows the comparison page tests, with the campaign's settings."""
    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    a, b = (store.analysis_of(runs[k].results.get()).index for k in ("A", "B"))
    settings = settings_of(campaign)
    rows = {row["bucket"]: row for row in pairwise.compare(a, b, "genre", settings)["rows"]}
    assert set(rows) == {"gsd", "sequoia"}
    rows_a, rows_b = rows_of(runs["A"].results.get()), rows_of(runs["B"].results.get())
    las = paired.FigureSet(keys=("las",), compute=lambda s: s[:, 1:2] / s[:, 0:1],
                           columns=np.array([ROW_COLUMNS.index("words"), ROW_COLUMNS.index("head_label")]))
    expected = paired.paired_test(rows_a.rows, rows_b.rows, list(rows_a.strata), las, method=settings["method"],
                                  resamples=settings["resamples"], seed=settings["seed"])
    for genre, row in rows.items():
        assert row["diff"] == pytest.approx(float(expected.diff[genre][0]), abs=1e-12)
        assert row["se"] == pytest.approx(float(expected.se[genre][0]), abs=1e-12)
        assert row["p"] == pytest.approx(float(expected.p[genre][0]), abs=1e-12)
        assert row["diff"] > 0  # the perfect run against the perturbed one


def test_the_pairwise_page_reads_each_bucket(explorer_world):
    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    url = f"/results/{campaign.slug}/analysis/compare/{runs['A'].pk}/{runs['B'].pk}/"
    html = _client().get(url, {"by": "arc_length"}).content.decode()
    readings = re.findall(r'data-reading="([a-z_]+)"', html)
    assert readings and set(readings) <= {"better_a", "better_b", "no_difference", "too_few", "undefined"}
    # The root arcs are right in both runs on every sentence (the perturbation leaves them): a difference of 0
    # that never varies, whose detectable effect the library leaves unknown, so "too few items to tell"; every
    # other bucket has B's moved heads: A better, or too few items to tell.
    first = html.split('data-reading="')[1]
    assert first.startswith("too_few") and ">root<" in first[:300] and "+0.0" in first
    assert set(readings[1:]) <= {"better_a", "too_few"} and "better_a" in readings
    link = re.search(r'href="([^"]*/sentences/\?by=arc_length&amp;bucket=[^"]*)"', html).group(1)
    assert _client().get(link.replace("&amp;", "&")).status_code == 200


@pytest.mark.parametrize("path, target", [
    ("/results/{slug}/runs/{pk}/analysis/sentence/", "/results/{slug}/runs/{pk}/analysis/"),
    ("/results/{slug}/runs/{pk}/analysis/sentences/", "/results/{slug}/runs/{pk}/analysis/"),
    ("/results/{slug}/analysis/compare/{pk}/{other}/sentences/?by=relation",
     "/results/{slug}/analysis/compare/{pk}/{other}/"),
])
def test_a_sentence_address_without_its_query_goes_back_to_its_page_whatever_the_run(explorer_world, path, target):
    """Its answer depends on the address alone: a run that exists and one that does not read alike."""
    campaign, _users, runs = explorer_world
    slug = campaign.slug
    for pk in (runs["A"].pk, 999999):
        response = _client().get(path.format(slug=slug, pk=pk, other=pk + 1))
        assert response.status_code == 302
        assert response["Location"] == target.format(slug=slug, pk=pk, other=pk + 1)


def _page(response) -> bytes:
    """The page's bytes but the language form's CSRF token, which differs at every response."""
    assert response.status_code == 200
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", response.content)


def _old_errors(user, campaign, run):
    """The errors page's figures as every view computed them before they were kept: every visible run's errors
    loaded and compared (the reference the kept value must equal)."""
    from collections import Counter

    from evaluation.analysis import access
    from parseval.evaluation.confusions import common_errors

    mine = store.analysis_of(access.visible_result(user, run)).index
    others = []
    for other_run in access.visible_runs(user, campaign, run.scope):
        if other_run.pk == run.pk:
            continue
        result = access.visible_result(user, other_run)
        other = store.analysis_of(result) if result is not None else None
        if other is not None and other.index.get("kind") == mine.get("kind"):
            others.append(other.index)
    lists = [[tuple(e) for e in index.get("errors", [])] for index in [mine, *others]]
    found = common_errors(lists, names=[str(k) for k in range(len(lists))], limit=300)
    mine_set = set(lists[0])
    made = Counter(e for errors in lists for e in set(errors))

    def rows(listed):
        return [{"key": e["sentence"], "what": f"{e['what']}: {e['item']}", "runs": len(e["runs"])} for e in listed]
    hard = [e for e in found["hard"] if (e["sentence"], e["what"], e["label"], e["item"]) in mine_set]
    return {"runs": len(lists), "errors": len(mine_set), "threshold": found["threshold"],
            "hard_count": sum(1 for e in mine_set if made[e] >= found["threshold"]),
            "alone_count": found["single_run"]["0"], "hard": rows(hard), "alone": rows(found["only"]["0"]),
            "labels": found["labels"]}


def test_the_errors_and_comparison_pages_read_kept_values_equal_to_the_per_view_computation(explorer_world,
                                                                                            monkeypatch):
    """Each page is computed once and kept (the task, in process here); a second view reads it; the page drawn
    from the kept value is byte for byte the page drawn from the computation each view used to make."""
    from evaluation.analysis import precomputed
    from evaluation.models import AnalysisValue

    campaign, users, runs = explorer_world
    advance_to(campaign, "gold_released", users["org"])
    client = _client()
    errors_url = f"/results/{campaign.slug}/runs/{runs['B'].pk}/analysis/errors/"
    compare_url = f"/results/{campaign.slug}/analysis/compare/{runs['A'].pk}/{runs['B'].pk}/"
    kept_errors = _page(client.get(errors_url))
    kept_compare = _page(client.get(compare_url, {"by": "arc_length"}))
    assert set(AnalysisValue.objects.values_list("page", flat=True)) == {"errors", "compare"}
    assert b'id="being-computed"' not in kept_errors and b'id="being-computed"' not in kept_compare
    # read, never computed again
    monkeypatch.setattr(precomputed, "compute", lambda *a: pytest.fail("a view computed a kept value"))
    assert _page(client.get(errors_url)) == kept_errors
    assert _page(client.get(compare_url, {"by": "arc_length"})) == kept_compare
    # the same pages from the values computed in the view, as before (no JSON round trip)
    from django.contrib.auth.models import AnonymousUser

    expected_errors = _old_errors(AnonymousUser(), campaign, runs["B"])
    assert json.loads(AnalysisValue.objects.get(page="errors").data) == json.loads(json.dumps(expected_errors))
    a, b = (store.analysis_of(runs[k].results.get()).index for k in ("A", "B"))
    expected_compare = pairwise.compare(a, b, "arc_length", settings_of(campaign))
    values = {"errors": expected_errors, "compare": expected_compare}
    monkeypatch.setattr(precomputed, "value", lambda page, arguments: values[page])
    assert _page(client.get(errors_url)) == kept_errors
    assert _page(client.get(compare_url, {"by": "arc_length"})) == kept_compare
    assert expected_errors["runs"] == 2 and expected_errors["errors"] > 0  # B's errors, against A's (none)


def test_a_page_without_its_value_says_it_is_being_computed_and_asks_a_worker_once(explorer_world, monkeypatch,
                                                                                    settings):
    """With a worker, the view never computes: it says "being computed" and asks once; the worker's task keeps
    the value; the page then reads it. Before the gold release the public gets the same 404 as for a run that
    does not exist, and no worker is asked for anything."""
    from django.core.cache import cache

    from campaign import kinds
    from evaluation.analysis import precomputed
    from evaluation.models import AnalysisValue

    campaign, users, runs = explorer_world
    asked = []
    settings.CELERY_TASK_ALWAYS_EAGER = False
    monkeypatch.setattr(kinds, "enqueue", lambda name, *args: asked.append((name, *args)))
    cache.clear()
    slug, a, b = campaign.slug, runs["A"].pk, runs["B"].pk
    urls = [f"/results/{slug}/runs/{b}/analysis/errors/", f"/results/{slug}/analysis/compare/{a}/{b}/"]
    missing = [f"/results/{slug}/runs/999999/analysis/errors/", f"/results/{slug}/analysis/compare/{a}/999999/"]
    advance_to(campaign, "published", users["org"])
    for url, absent in zip(urls, missing):
        hidden, none = _client().get(url), _client().get(absent)
        assert hidden.status_code == none.status_code == 404 and hidden.content == none.content
    assert asked == []
    advance_to(campaign, "gold_released", users["org"])
    for url in urls:
        first = _client().get(url)
        assert first.status_code == 200 and b'id="being-computed"' in first.content
        assert _client().get(url).status_code == 200
    assert [name for name, *_rest in asked] == [precomputed.TASK, precomputed.TASK]  # once per page
    assert not AnalysisValue.objects.exists()
    for _name, page, arguments in asked:
        assert precomputed.precompute_value.run(page, arguments).startswith(page)
    for url in urls:
        html = _client().get(url).content
        assert b'id="being-computed"' not in html and (b"data-reading=" in html or b"Hard for everyone" in html)
