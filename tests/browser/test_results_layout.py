"""In headless Chromium at 1,280 × 800 and 390 × 844: nothing wider than the window outside a scroll container,
a mode's and a kind figure's explanation open from their headers, the comparison page marks a significant cell. Screenshots go to
test-artifacts/."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect
from django.db import connections

from campaign import demo
from tests import factories
from tests.conftest import REPO_ROOT
from tests.significance.helpers import gold_and_damaged
from tests.significance.test_easy_significance import perturbed_zip
from tests.web.helpers import stored_run

ARTIFACTS = REPO_ROOT / "test-artifacts"
VIEWPORTS = ((1280, 800), (390, 844))
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Elements sticking out of the window that no scrolling ancestor holds (what a reader could never see).
OVERFLOW = """() => {
  const W = window.innerWidth, bad = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (!r.width || (r.right <= W + 1 && r.left >= -1)) continue;
    let p = el.parentElement, held = false;
    for (; p && p !== document.body; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'auto' || ox === 'scroll') { held = true; break; }
    }
    if (!held) bad.push(`${el.tagName}.${el.getAttribute('class')} right=${Math.round(r.right)}`);
  }
  return {bad: bad.slice(0, 10), scrollWidth: document.documentElement.scrollWidth};
}"""


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _login(browser, live_server, username: str, width: int, height: int):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    return page


def _fits(page, width: int, where: str) -> None:
    found = page.evaluate(OVERFLOW)
    assert found["bad"] == [], f"{where} at {width}px: {found['bad']}"
    assert found["scrollWidth"] <= width + 1, f"{where} at {width}px: page {found['scrollWidth']}px wide"


def test_ranking_and_comparison_fit_and_mark_significant_cells(live_server, chromium, tree_campaign, tree_gold,
                                                               alice, bob, organiser,
                                                               django_capture_on_commit_callbacks):
    good, bad = gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks,
                                 team_b="Team B with a rather long name")
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in VIEWPORTS:
        page = _login(chromium, live_server, organiser.username, width, height)
        urls = {"ranking": f"/results/{tree_campaign.slug}/ranking/?figure=micro%7Cevalb%7C%7C",
                "compare": f"/results/{tree_campaign.slug}/compare/{good.pk}/{bad.pk}/?figure=micro%7Cevalb%7C%7C",
                "results": f"/results/{tree_campaign.slug}/",
                "run": f"/runs/{bad.pk}/"}
        for name, url in urls.items():
            page.goto(live_server.url + url)
            _fits(page, width, name)
            page.screenshot(path=str(ARTIFACTS / f"{name}-trees-{width}.png"), full_page=True)
        page.goto(live_server.url + urls["compare"])
        assert page.locator('table.compare-cells td.sig[data-significant="yes"]').count() >= 1
        # the explanation of significance opens from the table's header link
        page.locator('table.compare-summary caption a[href="#explain-difference"]').click()
        # the script opens it on "hashchange", which fires after the click returns: wait for it
        expect(page.locator("details#explain-difference")).to_have_attribute("open", "")
        # a kind figure's explanation opens from its column header on the results page
        page.goto(live_server.url + urls["results"])
        assert page.locator("details#explain-layer-la-sentence").get_attribute("open") is None
        # not a headline figure: its column is shown once the reader asks for it
        page.locator("details.column-choice summary").first.click()
        choice = page.locator('details.column-choice input[data-layer="la-sentence"]').first
        if not choice.is_checked():
            choice.check()
        page.locator('table.overview th[data-layer="la-sentence"] a[href="#explain-layer-la-sentence"]').click()
        explanation = page.locator("details#explain-layer-la-sentence")
        expect(explanation).to_have_attribute("open", "")
        assert explanation.is_visible()
        page.close()
    connections.close_all()


def test_easy_results_fit_and_a_mode_explains_itself(live_server, chromium, storage, alice, bob,
                                                     django_capture_on_commit_callbacks):
    campaign = factories.make_easy_campaign(slug="easy-browser", name="EASY browser",
                                            metrics={"bootstrap": 50, "significance": {"resamples": 200}})
    org = factories.make_user("organiser")
    campaign.organisers.add(org)
    team_a = factories.make_team(campaign, alice, name="Team A")
    team_b = factories.make_team(campaign, bob, name="Team B")
    stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks, name="gold copy")
    perturbed = stored_run(campaign, team_b, bob, perturbed_zip(demo.TEAMS[3]["runs"][1]),
                           capture=django_capture_on_commit_callbacks, name="perturbed")
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in VIEWPORTS:
        page = _login(chromium, live_server, "organiser", width, height)
        for name, url in (("results", f"/results/{campaign.slug}/?mode=DEFHYP&match=FUZZY"),
                          ("ranking", f"/results/{campaign.slug}/ranking/"),
                          ("run", f"/runs/{perturbed.pk}/")):
            page.goto(live_server.url + url)
            _fits(page, width, f"EASY {name}")
            page.screenshot(path=str(ARTIFACTS / f"{name}-easy-{width}.png"), full_page=True)
        page.goto(live_server.url + f"/results/{campaign.slug}/?mode=DEFHYP&match=FUZZY")
        assert page.locator("details#explain-mode-DEFHYP").get_attribute("open") is None
        header = page.locator('table.ways-table[data-layer="relations"] th a[href="#explain-mode-DEFHYP"]').first
        if not header.is_visible():  # a column the chooser left out at this width: the reader adds it
            chooser = page.locator("#ways-relations details.column-choice")
            chooser.locator("summary").click()
            chooser.locator("label", has_text="DEFHYP").first.locator("input").check()
        header.click()
        explanation = page.locator("details#explain-mode-DEFHYP")
        expect(explanation).to_have_attribute("open", "")
        assert "reference group" in explanation.inner_text()
        page.close()
    connections.close_all()


def test_the_api_documentation_renders_offline(live_server, chromium, db):
    page = chromium.new_page(viewport={"width": 1280, "height": 800})
    outside = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(live_server.url) else None)
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)  # drawn by the sidecar's Swagger UI
    assert "Parser evaluation campaigns API" in page.locator(".swagger-ui .info .title").inner_text()
    assert outside == []  # nothing fetched from anywhere but the app
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "api-docs-1280.png"))
    page.close()
    connections.close_all()
