"""In headless Chromium: a browser that asks for French reads the pages in French, figures with a decimal comma;
the switch in the header turns them into English and back. Screenshots go to test-artifacts/languages/."""
from __future__ import annotations

import re

import pytest
from django.db import connections

from tests.conftest import REPO_ROOT
from tests.significance.helpers import gold_and_damaged

ARTIFACTS = REPO_ROOT / "test-artifacts" / "languages"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_pages_in_french_with_a_decimal_comma_and_the_switch(live_server, chromium, tree_campaign, tree_gold,
                                                             alice, bob, organiser,
                                                             django_capture_on_commit_callbacks):
    good, bad = gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(locale="fr-FR", extra_http_headers={"Accept-Language": "fr-FR,fr;q=0.9"},
                                   viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.locator("header .brand").inner_text() == "Campagnes d'évaluation d'analyseurs syntaxiques"
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", "pw-for-tests-1")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    assert "Se déconnecter" in page.locator("header").inner_text()

    for name, url in {"results": f"/results/{tree_campaign.slug}/",
                      "ranking": f"/results/{tree_campaign.slug}/ranking/"}.items():
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        text = page.locator("main").inner_text()
        assert re.search(r"\b\d{1,3},\d\b", text), f"{name}: no decimal comma in the figures"
        assert not re.search(r"\b\d{1,2}\.\d\b", re.sub(r"\d+\.\d+\.\d+", "", text)), f"{name}: a decimal point left"
        page.screenshot(path=str(ARTIFACTS / f"{name}-fr-390.png"), full_page=True)
    assert "Classement" in page.locator("main h1").inner_text()

    # the first hour's pages, in French on a phone: screenshots for the record, French in every header
    slug = tree_campaign.slug
    for name, url in {"home": "/", "campaign": f"/campaigns/{slug}/", "run": f"/runs/{bad.pk}/",
                      "compare": f"/results/{slug}/compare/{good.pk}/{bad.pk}/", "design": f"/results/{slug}/design/",
                      "consensus": f"/results/{slug}/consensus/", "console": f"/console/{slug}/",
                      "guide": "/docs/teams.md"}.items():
        response = page.goto(live_server.url + url)
        assert response.status == 200, name
        assert page.locator("html").get_attribute("lang") == "fr", name
        assert "Se déconnecter" in page.locator("header").inner_text(), name
        page.screenshot(path=str(ARTIFACTS / f"{name}-fr-390.png"), full_page=True)
    page.goto(f"{live_server.url}/runs/{bad.pk}/")
    assert "Rapport de validation" in page.locator("main").inner_text()

    # the switch: English, then French again, on the same page
    page.goto(f"{live_server.url}/results/{slug}/ranking/")
    page.locator("form.language-switch button[value=en]").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "en"
    assert "Ranking" in page.locator("main h1").inner_text()
    assert re.search(r"\b\d{1,3}\.\d\b", page.locator("main").inner_text())
    page.locator("form.language-switch button[value=fr]").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "fr"
    context.close()
    connections.close_all()
