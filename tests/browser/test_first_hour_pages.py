"""In headless Chromium, in English and in French, at 1280 x 800 and 390 x 844: every page a newcomer meets in
the first hour, on the demo's published dependency campaign. On each page: the page no wider than the window,
nothing sticking out of it that no scrolling box of its own holds, no chart text outside its svg, and the figures
the page exists to show in view without scrolling sideways (a table may scroll in a box of its own only if those
columns are in view). French sentences are longer than English ones: a page that fits in English may not in
French, hence both languages at both widths. Screenshots go to test-artifacts/first-hour/, as the figures test's.

The analysis explorer of the issue's list does not exist yet: it has no page here until it is built.

One case per language and width, its pages visited in turn on one demo (``demo_site``: ``load_demo`` on small
slices takes most of a case's time, so it is not loaded once per page); a case gathers every page's failures and
reports them together, named by page.
"""
from __future__ import annotations

import re

import pytest
from django.db import connections
from django.urls import reverse

from campaign.models import Campaign, CampaignState, Team
from tests.conftest import REPO_ROOT

from .test_figures_in_view import CELL_UNDER, MEASURE, VIEWPORTS, demo_site  # noqa: F401  (the fixture)
from .test_results_layout import OVERFLOW
from .test_tables_in_view import SEEN

ARTIFACTS = REPO_ROOT / "test-artifacts" / "first-hour"
SLUG = "ud-french-dependency-demo"
LANGUAGES = {"en": "en-GB,en;q=0.9", "fr": "fr-FR,fr;q=0.9"}
# The header's site name in each language: Django's own French alone (an uncompiled catalogue) would not give it.
BRAND = {"en": "Parser evaluation campaigns", "fr": "Campagnes d'évaluation d'analyseurs syntaxiques"}
# English once left in French pages: a script's caption (the results tables' column chooser), the upload
# and sign-up forms' labels, the tracks' and the kinds' names, the per-genre tables' and charts' words.
ENGLISH_IN_FRENCH = ("Columns: ", "shown (choose)", "System description", "Gold tokens", "Dependency trees", "Email",
                     "All genres", "all genres pooled")
# Who reads each page: a visitor, a team member (the upload page is a team's), an organiser (design aid, consensus).
PAGES = ("home", "signup", "campaign", "upload", "run", "results", "ranking", "compare", "design", "consensus")
READER = {"home": None, "signup": None, "campaign": "member", "upload": "member", "run": "member",
          "results": "member", "ranking": "member", "compare": "member", "design": "organiser",
          "consensus": "organiser"}
# Per page, the key figures: (table, header cell selector, what it is).
KEY_FIGURES = {
    "results": [("table.overview", '[data-layer="deps-las"]', "LAS"),
                ("table.overview", '[data-layer="conll18-las"]', "CoNLL 2018 LAS")],
    "ranking": [("table.ranking", ":nth-child(4)", "the best run's figure"),
                ("table.ranking", ":nth-child(5)", "its 95% interval")],
    "compare": [("table.compare-summary", ":nth-child(2)", "the first figure's difference"),
                ("table.compare-summary", ":nth-child(3)", "its interval")],
}
# The box of the cell under a header (CELL_UNDER) and the right edge of the scrolling box that shows it.
CELL_SEEN = """([table, selector]) => {
  const cell = (""" + CELL_UNDER + """)([table, selector]);
  if (!cell) return null;
  const head = document.querySelector(table + ' thead th' + selector);
  const box = (""" + SEEN + """)(table);
  return {...cell, visibleRight: box ? box.visibleRight : window.innerWidth, header: head.innerText};
}"""

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _reader_page(chromium, base: str, language: str, width: int, height: int, user: str | None, password: str):
    context = chromium.new_context(locale=language, extra_http_headers={"Accept-Language": LANGUAGES[language]},
                                   viewport={"width": width, "height": height})
    page = context.new_page()
    if user:
        page.goto(f"{base}/accounts/login/")
        page.fill("#id_username", user)
        page.fill("#id_password", password)
        page.click("form.stacked button[type=submit]")
        page.wait_for_load_state()
    return context, page


def _checked(page, name: str, language: str, width: int) -> list[str]:
    where = f"{name} in {language} at {width}px"
    failures = []
    if page.locator("html").get_attribute("lang") != language or page.locator("header .brand").inner_text() != BRAND[language]:
        failures.append(f"{where}: the page is not in {language}")
    if language == "fr":
        text = page.locator("body").inner_text()
        failures += [f"{where}: English left: {english!r}" for english in ENGLISH_IN_FRENCH if english in text]
        if name in KEY_FIGURES:  # figures with a decimal comma, those a snapshot stored as text included
            points = re.findall(r"\b\d{1,3}\.\d\b", re.sub(r"\d+\.\d+\.\d+", "", page.locator("main").inner_text()))
            if points:
                failures.append(f"{where}: a decimal point in French: {points[:5]}")
    found = page.evaluate(MEASURE)
    if found["scrollWidth"] > width + 1:
        failures.append(f"{where}: the page is {found['scrollWidth']}px wide")
    if found["clipped"]:
        failures.append(f"{where}: svg text out of its svg: {found['clipped'][:5]}")
    sticking_out = page.evaluate(OVERFLOW)["bad"]
    if sticking_out:
        failures.append(f"{where}: wider than the window, held by no scrolling box: {sticking_out}")
    for table, selector, label in KEY_FIGURES.get(name, []):
        box = page.evaluate(CELL_SEEN, [table, selector])
        if not (box and box["shown"] and box["left"] >= 0 and box["right"] <= min(width, box["visibleRight"]) + 1):
            failures.append(f"{where}: {label} is not in view ({box})")
    return failures


@pytest.mark.parametrize("width,height", VIEWPORTS, ids=[f"{w}px" for w, _ in VIEWPORTS])
@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_first_hour_pages_fit_and_show_their_figures(live_server, chromium, demo_site, language,  # noqa: F811
                                                     width, height):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    campaign = demo_site[SLUG]
    team = Team.objects.filter(campaign=campaign, system=False, runs__status="scored").distinct().order_by("pk")[0]
    member = team.members.order_by("pk")[0].username
    runs = list(campaign.runs.filter(status="scored", team__system=False).order_by("pk").values_list("pk", flat=True))
    own_run = team.runs.filter(status="scored").order_by("pk")[0].pk
    urls = {"home": reverse("portal:home"), "signup": reverse("portal:signup"),
            "campaign": reverse("portal:campaign", args=[SLUG]), "upload": reverse("portal:run_upload", args=[SLUG]),
            "run": reverse("portal:run", args=[own_run]), "results": reverse("results:campaign", args=[SLUG]),
            "ranking": reverse("results:ranking", args=[SLUG]),
            "compare": reverse("results:compare", args=[SLUG, runs[0], runs[1]]),
            "design": reverse("results:design", args=[SLUG]), "consensus": reverse("results:consensus", args=[SLUG])}
    logins = {None: None, "member": (member, f"demo-{member}-pw"), "organiser": ("organiser", "demo-organiser-pw")}
    failures: list[str] = []
    visited = []
    for reader, login in logins.items():
        user, password = login or (None, "")
        context, page = _reader_page(chromium, live_server.url, language, width, height, user, password)
        for name in (n for n in PAGES if READER[n] == reader):
            if name == "upload":
                # the demo's campaigns are published: reopened for this page, so that it shows its form
                # (the labels and help a team reads), not the one line of a closed campaign
                Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.OPEN, deadline=None)
            response = page.goto(live_server.url + urls[name])
            page.wait_for_load_state("networkidle")
            if name == "upload":
                Campaign.objects.filter(pk=campaign.pk).update(state=campaign.state, deadline=campaign.deadline)
                if page.locator("main form input[type=file]").count() != 1:
                    failures.append(f"upload in {language} at {width}px: no upload form")
            if response.status != 200 or page.url != live_server.url + urls[name]:
                failures.append(f"{name} in {language} at {width}px: {response.status} at {page.url}")
            failures += _checked(page, name, language, width)
            page.screenshot(path=str(ARTIFACTS / f"{name}-{language}-{width}.png"), full_page=True)
            visited.append(name)
        context.close()
    connections.close_all()
    assert visited == [n for r in logins for n in PAGES if READER[n] == r] and len(visited) == len(PAGES)
    assert not failures, "\n".join(failures)
