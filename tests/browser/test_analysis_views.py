"""In headless Chromium, on the demo's campaigns of every kind, at 1280 x 800 and 390 x 844: the analysis
explorer's pages (a bucket chart, the pairwise table, a confusion table, a sentence drawn) keep every SVG text
inside its SVG and the page no wider than the screen (a wide drawing or table scrolls inside its container).
Screenshots of each go to test-artifacts/analysis/ (the issue's closing note shows them).
"""
from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse

from evaluation.analysis import store
from evaluation.models import Result
from tests.browser.test_figures_in_view import MEASURE, _login, demo_site  # noqa: F401 (the fixture)
from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts" / "analysis"
VIEWPORTS = ((1280, 800), (390, 844))
KINDS = {"easy-reference-demo": ("easy", "relation"), "sequoia-constituency-demo": ("constituency", "span_length"),
         "ud-french-dependency-demo": ("dependency", "arc_length")}

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _sentence_with_errors(index: dict) -> str:
    """The key of a sentence with a few errors (the most, among sentences of at most 25 items' errors)."""
    errors = Counter(e[0] for e in index["errors"])
    return max(errors, key=lambda k: (errors[k] <= 25, errors[k]))


def test_the_explorer_in_view_at_both_widths(live_server, chromium, demo_site):  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    shots, drawn = 0, 0
    for slug, campaign in demo_site.items():
        kind, attribute = KINDS[slug]
        runs = list(campaign.runs.filter(status="scored", scope="test").order_by("pk"))
        a, b = runs[0], runs[1]
        kept = store.analysis_of(Result.objects.filter(run=b).order_by("-pk").first())
        assert kept is not None, slug
        key = _sentence_with_errors(kept.index)
        table = kept.document["confusions"][0]["name"]
        urls = {
            "bucket chart": reverse("results:analysis", args=[slug, b.pk]) + f"?by={attribute}",
            "pairwise table": reverse("results:analysis-compare", args=[slug, a.pk, b.pk]) + f"?by={attribute}",
            "confusion table": reverse("results:analysis-confusions", args=[slug, b.pk]),
            "sentence view": reverse("results:analysis-sentence", args=[slug, b.pk]) + f"?key={key}",
        }
        for width, height in VIEWPORTS:
            page = _login(chromium, live_server.url, width, height)
            for name, url in urls.items():
                response = page.goto(live_server.url + url)
                page.wait_for_load_state("networkidle")
                where = f"{name} of {kind} at {width}px"
                if response.status != 200:
                    failures.append(f"{where}: {response.status}")
                    continue
                found = page.evaluate(MEASURE)
                if found["scrollWidth"] > width + 1:
                    failures.append(f"{where}: the page is {found['scrollWidth']}px wide")
                if found["clipped"]:
                    failures.append(f"{where}: svg text out of its svg: {found['clipped'][:5]}")
                if name == "sentence view":
                    marks = page.evaluate("() => document.querySelectorAll('svg.sentence-view "
                                          "[data-state=wrong], svg.sentence-view [data-state=missing]').length")
                    if not marks:
                        failures.append(f"{where}: no wrong or missing item marked in a sentence with errors")
                    drawn += 1
                if name == "confusion table" and not page.locator(f"section[data-table='{table}'] table").count():
                    failures.append(f"{where}: no {table} table")
                page.screenshot(path=str(ARTIFACTS / f"{kind}-{name.replace(' ', '-')}-{width}.png"),
                                full_page=name != "bucket chart")
                shots += 1
            page.close()
    assert not failures, "\n".join(failures)
    assert shots == 3 * 4 * 2 and drawn == 3 * 2
