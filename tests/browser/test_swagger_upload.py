"""In headless Chromium: Swagger UI's "Try it out" uploads a run with a file picker (the schema types
the upload's file as binary), and the run is received as through the portal."""
from __future__ import annotations

import hashlib

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from campaign.models import Run
from tests import factories
from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_swagger_ui_uploads_a_run_from_a_file_picker(live_server, chromium, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    campaign = factories.make_easy_campaign(files=("mail_10.xml",), slug="swagger")
    member = get_user_model().objects.create_user("sam", password="sam-pw-123456")
    factories.make_team(campaign, member, name="Swagger team")
    run_file = tmp_path / "mail_10.xml"
    run_file.write_bytes(factories.gold_bytes("mail_10.xml"))

    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "sam")
    page.fill("#id_password", "sam-pw-123456")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()

    page.goto(f"{live_server.url}/api/docs/")
    upload = page.locator(".opblock-post", has=page.locator(".opblock-summary-path", has_text="/api/campaigns/{slug}/runs/"))
    upload.locator(".opblock-summary").click()
    upload.locator("button.try-out__btn").click()
    upload.locator("input[placeholder='slug']").fill(campaign.slug)
    picker = upload.locator("tr[data-property-name='file'] input[type=file]")
    assert picker.count() == 1  # a file picker, not a text box for a URI
    picker.set_input_files(str(run_file))
    upload.locator("tr[data-property-name='name'] input").fill("from swagger")
    upload.locator("button.execute").click()
    status = upload.locator(".live-responses-table tbody .response-col_status")
    status.first.wait_for(timeout=30_000)
    assert status.first.inner_text().strip() == "201", upload.locator(".live-responses-table").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "api-docs-upload-1280.png"), full_page=False)
    page.close()

    run = Run.objects.get(name="from swagger")
    assert run.campaign == campaign and run.original_filename == "mail_10.xml"
    assert run.sha256 == hashlib.sha256(run_file.read_bytes()).hexdigest()
    connections.close_all()
