"""In headless Chromium, on the demo's published campaigns of every kind, at 1280 x 800 and 390 x 844:
the figures each page exists to show are in view without scrolling sideways, and no chart text runs out
of its svg. Screenshots of the ranking, results and comparison pages go to test-artifacts/first-view/.

One demo (``load_demo`` on small slices, synthetic runs only) and one browser serve every check: the
checks are gathered and reported together, so one run of this file shows every page that fails.
"""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connections
from django.urls import reverse

from parseval.annotations.easy import read_document, write_document
from campaign.models import Campaign
from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts" / "first-view"
VIEWPORTS = ((1280, 800), (390, 844))
SENTENCES = 10
# Per kind (demo campaign slug): the overview's headline figures, which must be in view.
HEADLINES = {
    "ud-french-dependency-demo": ["deps-las", "conll18-las"],
    "sequoia-constituency-demo": ["evalb-unlabelled", "leaf-ancestor"],
}

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every <text> of every <svg>, its box against its svg's; the page's width against the viewport's.
MEASURE = """() => {
  const out = {scrollWidth: document.documentElement.scrollWidth, clipped: []};
  document.querySelectorAll('svg').forEach((svg) => {
    const box = svg.getBoundingClientRect();
    svg.querySelectorAll('text').forEach((t) => {
      const r = t.getBoundingClientRect();
      if (r.width === 0) return;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.clipped.push(t.textContent.slice(0, 40));
    });
  });
  return out;
}"""
# The box of a table cell: the first body row's cell under the header cell matched by ``selector``.
CELL_UNDER = """([table, selector]) => {
  const head = document.querySelector(table + ' thead th' + selector);
  if (!head) return null;
  const cell = document.querySelector(table + ' tbody tr').cells[head.cellIndex];
  const r = cell.getBoundingClientRect(), h = head.getBoundingClientRect();
  return {left: Math.min(r.left, h.left), right: Math.max(r.right, h.right), shown: r.width > 0, text: cell.innerText};
}"""


@pytest.fixture
def demo_site(shared_data, tmp_path, settings, monkeypatch):
    """The demo's three published campaigns on small slices, synthetic runs only."""
    from campaign import demo_kinds
    from tests import factories

    factories.use_storage(settings, tmp_path)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr(demo_kinds, "TREES_PER_DOCUMENT", 6)
    monkeypatch.setattr(demo_kinds, "DEP_SLICES", {"sequoia": ("fr_sequoia-ud-test.conllu", 8),
                                                   "gsd": ("fr_gsd-ud-test.conllu", 8)})
    gold = tmp_path / "easy-gold"
    gold.mkdir()
    seen = set()
    for path in sorted((shared_data / "easy-ref" / "ref").glob("*.xml")):
        genre = path.stem.split("_")[0]
        if genre not in seen:
            seen.add(genre)
            doc = read_document(path, gold=True, strict=True, name=path.name)
            doc.sentences = doc.sentences[:SENTENCES]
            write_document(doc, gold / path.name)
    call_command("load_demo", "--data", str(gold), "--bootstrap", "30", "--no-real", "--no-open", stdout=StringIO())
    campaigns = {c.slug: c for c in Campaign.objects.all()}
    assert len(campaigns) == 3
    yield campaigns


def _login(browser, url: str, width: int, height: int):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", "organiser")
    page.fill("#id_password", "demo-organiser-pw")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    return page


def _in_view(box, width: int) -> bool:
    return box is not None and box["shown"] and box["left"] >= 0 and box["right"] <= width + 1


def test_every_kinds_pages_show_their_figures_in_view(live_server, chromium, demo_site):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    shots = 0
    for width, height in VIEWPORTS:
        page = _login(chromium, live_server.url, width, height)
        for slug, campaign in demo_site.items():
            kind = {"easy-reference-demo": "easy", "sequoia-constituency-demo": "constituency",
                    "ud-french-dependency-demo": "dependency"}[slug]
            runs = list(campaign.runs.filter(status="scored").order_by("pk").values_list("pk", flat=True))
            urls = {"ranking": reverse("results:ranking", args=[slug]),
                    "results": reverse("results:campaign", args=[slug]),
                    "compare": reverse("results:compare", args=[slug, runs[0], runs[1]])}
            for name, url in urls.items():
                page.goto(live_server.url + url)
                page.wait_for_load_state("networkidle")
                where = f"{name} page of {kind} at {width}px"
                found = page.evaluate(MEASURE)
                if found["scrollWidth"] > width + 1:
                    failures.append(f"{where}: the page is {found['scrollWidth']}px wide")
                if found["clipped"]:
                    failures.append(f"{where}: svg text out of its svg: {found['clipped'][:5]}")
                if name == "ranking":
                    for column, label in ((3, "figure"), (4, "95% interval")):
                        box = page.evaluate(CELL_UNDER, ["table.ranking", f":nth-child({column + 1})"])
                        if not _in_view(box, width):
                            failures.append(f"{where}: the best run's {label} is not in view ({box})")
                if name == "results":
                    wanted = ([f'[data-layer="{code}"]' for code in HEADLINES[slug]] if slug in HEADLINES
                              else [":nth-child(2)", ":nth-child(3)"])  # EASY: relations F, constituents F
                    for selector in wanted:
                        box = page.evaluate(CELL_UNDER, ["table.overview", selector])
                        if not _in_view(box, width):
                            failures.append(f"{where}: the overview's {selector} is not in view ({box})")
                if name == "compare":
                    for column, label in ((1, "difference"), (2, "interval")):
                        box = page.evaluate(CELL_UNDER, ["table.compare-summary", f":nth-child({column + 1})"])
                        if not _in_view(box, width):
                            failures.append(f"{where}: the first figure's {label} is not in view ({box})")
                page.screenshot(path=str(ARTIFACTS / f"{name}-{kind}-{width}.png"), full_page=True)
                shots += 1
        # the organiser's pages: the audit log's details under their header, the admin's campaign page
        easy = demo_site["easy-reference-demo"]
        page.goto(live_server.url + reverse("governance:audit_log", kwargs={"slug": easy.slug}))
        if page.locator("table.audit thead th", has_text="Details").count() != 1:
            failures.append(f"audit log at {width}px: no Details header")
        if width >= 1280:
            box = page.evaluate(CELL_UNDER, ["table.audit", ":nth-child(6)"])
            if not _in_view(box, width):
                failures.append(f"audit log at {width}px: the details are not in view ({box})")
            page.goto(live_server.url + reverse("admin:campaign_campaign_change", args=[easy.pk]))
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            if wide > width + 1:
                failures.append(f"admin campaign page at {width}px: {wide}px wide")
        page.screenshot(path=str(ARTIFACTS / f"admin-campaign-{width}.png"))
        page.close()
    connections.close_all()
    assert shots == 2 * 3 * 3
    assert not failures, "\n".join(failures)
