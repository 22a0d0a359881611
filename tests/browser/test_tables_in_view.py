"""In headless Chromium, on the demo's published campaigns of every kind, at 1280 x 800 and 390 x 844: the
tables' summary columns in view, the ranking's significance column readable on a phone, and the organisers'
design aid and consensus pages within the window. Screenshots go to test-artifacts/first-view/, beside the
figures test's.

The same demo (``demo_site``: ``load_demo`` on small slices, synthetic runs only) and browser as
``test_figures_in_view``; the checks are gathered and reported together.
"""
from __future__ import annotations

import pytest
from django.db import connections
from django.urls import reverse

from .test_figures_in_view import ARTIFACTS, VIEWPORTS, _login, demo_site  # noqa: F401  (the fixture)
from .test_results_layout import OVERFLOW

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KINDS = {"easy-reference-demo": "easy", "sequoia-constituency-demo": "constituency",
         "ud-french-dependency-demo": "dependency"}

# The box of the first element matched by ``selector``, and of the scrolling box that shows it (or the window).
SEEN = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  let p = el.parentElement, right = window.innerWidth;
  for (; p && p !== document.body; p = p.parentElement) {
    const ox = getComputedStyle(p).overflowX;
    if (ox === 'auto' || ox === 'scroll') { right = Math.min(right, p.getBoundingClientRect().right); break; }
  }
  return {left: r.left, right: r.right, width: r.width, visibleRight: right};
}"""


def _fully_seen(box) -> bool:
    return box is not None and box["width"] > 0 and box["left"] >= 0 and box["right"] <= box["visibleRight"] + 1


def test_summary_columns_significance_and_organiser_pages_in_view(live_server, chromium, demo_site):  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    for width, height in VIEWPORTS:
        page = _login(chromium, live_server.url, width, height)
        for slug, campaign in demo_site.items():
            kind = KINDS[slug]
            runs = list(campaign.runs.filter(status="scored", team__system=False).order_by("pk")
                        .values_list("pk", flat=True))

            def visit(url: str, name: str) -> str:
                page.goto(live_server.url + url)
                page.wait_for_load_state("networkidle")
                page.screenshot(path=str(ARTIFACTS / f"{name}-{kind}-{width}.png"), full_page=True)
                return f"{name} page of {kind} at {width}px"

            where = visit(reverse("results:compare", args=[slug, runs[0], runs[1]]), "compare")
            if width >= 1280:
                box = page.evaluate(SEEN, "table.compare-summary tbody td.agreement")
                if not _fully_seen(box):
                    failures.append(f"{where}: the Genres column is cut off ({box})")
            if kind == "easy" and width >= 1280:
                where = visit(reverse("results:campaign", args=[slug]) + f"?run={runs[0]}", "genre-type")
                for column in ("th.pooled:nth-child(2)", "th.pooled:nth-child(3)"):
                    box = page.evaluate(SEEN, f"table.genre-type-table thead {column}")
                    if not _fully_seen(box):
                        failures.append(f"{where}: the genre x type table's ALL / macro column is hidden ({box})")
            where = visit(reverse("results:ranking", args=[slug]), "ranking-significance")
            box = page.evaluate(SEEN, "table.ranking tbody tr td:nth-child(6)")
            if box is None or box["width"] < 150:
                failures.append(f"{where}: the significance column is squeezed ({box})")
            for name, url in (("design", reverse("results:design", args=[slug])),
                              ("consensus", reverse("results:consensus", args=[slug]))):
                where = visit(url, name)
                found = page.evaluate(OVERFLOW)
                if found["bad"] or found["scrollWidth"] > width + 1:
                    failures.append(f"{where}: wider than the window ({found['scrollWidth']}px): {found['bad']}")
        page.close()
    connections.close_all()
    assert not failures, "\n".join(failures)
