"""In headless Chromium: the organisers' console and the campaign's state page show the measured secrecy budget
of the campaign's team-figures setting ("at most N of the T non-development sentences can be decoded by the
admitted teams under these quotas"), in red when it is above 1 bit per run or 1 %, and under the default, when
even one figure per primary run would be, that it is withheld. Screenshots of the line go to
test-artifacts/secrecy-budget-*.png."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaign.models import CampaignState
from campaign.subsets import sample_test_subset
from tests import factories
from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_organisers_see_the_budget_of_their_setting(live_server, chromium, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    boss = get_user_model().objects.create_user("olga", password="olga-pw-123456")
    campaign = factories.make_easy_campaign(slug="budget-line", state=CampaignState.DRAFT, organisers=[boss])
    sample_test_subset(campaign, ratio=0.5, dev_ratio=0.1)
    campaign.state = CampaignState.OPEN
    campaign.save()
    for name in ("Alpha", "Beta", "Gamma"):
        factories.make_team(campaign, factories.make_user(name.lower()), name=name)

    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "olga")
    page.fill("#id_password", "olga-pw-123456")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    ARTIFACTS.mkdir(exist_ok=True)
    texts = {}
    for setting in ("primary", "pooled"):
        campaign.team_figures = setting
        campaign.save(update_fields=["team_figures"])
        for where, url in (("console", f"/console/{campaign.slug}/"),
                           ("state", reverse("governance:state", kwargs={"slug": campaign.slug}))):
            page.goto(live_server.url + url)
            line = page.locator("#secrecy-budget")
            assert line.is_visible(), (setting, where)
            texts[setting, where] = line.inner_text()
            line.screenshot(path=str(ARTIFACTS / f"secrecy-budget-{where}-{setting}.png"))
    for where in ("console", "state"):
        # pooled: 15 bits per run; one F per primary run would still give 3 of 253 (above 1 %): withheld
        assert "non-development sentences can be decoded by the 3 admitted teams" in texts["pooled", where]
        assert "3 disclosed runs per team" in texts["pooled", where]
        assert "no figure before the gold release" in texts["primary", where] and "0 can be decoded" in \
            texts["primary", where]
    campaign.refresh_from_db()
    page.close()
