"""In headless Chromium: the run page follows the run's status without being reloaded by the user."""
from __future__ import annotations

from unittest import mock

import pytest
from django.db import connections

from campaign.models import Run, RunStatus
from tests import factories
from tests.web.helpers import stored_run


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]



def test_status_and_progress_update_live(live_server, storage, chromium):
    campaign = factories.make_easy_campaign(["mail_10.xml"], slug="live")
    user = factories.make_user("live", password="live-pw-123456")
    team = factories.make_team(campaign, user)
    with mock.patch("campaign.services.runs.enqueue_scoring"):  # the test moves the run itself
        run = stored_run(campaign, team, user, factories.gold_bytes("mail_10.xml"), "mail_10.xml")

    # Playwright's wait_for_function compiles its predicate with eval, which the site's CSP rightly refuses.
    page = chromium.new_page(bypass_csp=True)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "live")
    page.fill("#id_password", "live-pw-123456")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    assert page.locator(".status-label").get_attribute("data-status") == "uploaded"
    page.evaluate("window.__sameDocument = true")  # vanishes if the page is reloaded

    # (validation, not scoring: before release a team never sees a test run being scored)
    Run.objects.get(pk=run.pk).set_status(RunStatus.VALIDATING, progress=40)
    page.wait_for_selector('.status-label[data-status="validating"]', timeout=10_000)
    page.wait_for_function("document.querySelector('.status-progress').value === 40", timeout=10_000)
    assert page.locator(".status-label").inner_text() == "Validating"
    assert page.evaluate("window.__sameDocument") is True

    Run.objects.get(pk=run.pk).set_status(RunStatus.INVALID, reason="3 problem(s) found", progress=100)
    # finished: the page reloads itself once to show the server-rendered report
    page.wait_for_function("window.__sameDocument === undefined", timeout=10_000)
    page.wait_for_selector('#run-status[data-finished="true"]', timeout=10_000)
    assert "3 problem(s) found" in page.locator(".status-reason").inner_text()
    connections.close_all()
