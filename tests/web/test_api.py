"""The REST API: token auth, campaigns, upload, own runs, status, results, withdrawal, schema, throttle."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from campaign.models import AuditEntry, Run
from tests import factories
from tests.web.helpers import stored_run


@pytest.fixture(autouse=True)
def fresh_throttle_counts():
    cache.clear()
    yield
    cache.clear()


def token_client(user) -> APIClient:
    api = APIClient()
    response = api.post("/api/token/", {"username": user.username, "password": "pw-for-tests-1"})
    assert response.status_code == 200, response.content
    api.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return api


def upload(api, campaign, data: bytes, filename="run.zip", name="api run"):
    return api.post(f"/api/campaigns/{campaign.slug}/runs/",
                    {"name": name, "system_description": "via the API", "file": SimpleUploadedFile(filename, data)},
                    format="multipart")


def test_campaign_list_and_detail(campaign, db):
    draft = factories.make_campaign(slug="secret-draft", state="draft")
    api = APIClient()
    body = api.get("/api/campaigns/").json()
    slugs = [c["slug"] for c in body["results"]]
    assert campaign.slug in slugs and draft.slug not in slugs
    assert body["count"] == len(slugs)
    detail = api.get(f"/api/campaigns/{campaign.slug}/").json()
    assert {g["code"] for g in detail["genres"]} == {"general", "mail", "oral"}
    assert {d["name"] for d in detail["documents"]} == {"general_elda", "mail_10", "oral_delic_2"}
    assert api.get(f"/api/campaigns/{draft.slug}/").status_code == 404


def test_upload_poll_and_results(campaign, team_a, alice, django_capture_on_commit_callbacks):
    api = token_client(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(api, campaign, factories.gold_run_zip())
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]
    assert response.json()["sha256"] == Run.objects.get(pk=run_id).sha256
    assert AuditEntry.objects.filter(action="run.upload", target=f"run {run_id}").exists()
    status = api.get(f"/api/runs/{run_id}/").json()
    assert Run.objects.get(pk=run_id).status == "scored"
    # before release the team sees "accepted", not how scoring went nor when (docs/governance.md)
    assert status["status"] == "accepted" and status["progress"] == 100 and status["validation_report"]["valid"]
    assert "status_changed_at" not in status and "checked_at" not in status["validation_report"]
    # and says why the time is left out, in the answer itself
    why = status["sealed"]["status_changed_at"]
    assert "not shown to teams until the gold is released" in why and "test sentences" in why
    listed = api.get(f"/api/campaigns/{campaign.slug}/runs/").json()
    assert [r["id"] for r in listed["results"]] == [run_id]
    # scores are not released yet: refused without a figure in the body
    refused = api.get(f"/api/runs/{run_id}/results/")
    assert refused.status_code == 403
    assert b"cells" not in refused.content and b"1.0" not in refused.content
    campaign.state = "released"
    campaign.save()
    assert api.get(f"/api/runs/{run_id}/").json()["status"] == "scored"
    body = api.get(f"/api/runs/{run_id}/results/").json()
    cells = body["result"]["cells"]
    assert any(c["genre"] == "ALL" and c["type"] == "ALL" and c["f"] == 1.0 for c in cells)
    assert "warnings" not in body["result"] and "documents" not in body["result"]  # they reveal the test subset


def test_api_upload_refusals_are_clear(campaign, team_a, alice, storage):
    api = token_client(alice)
    response = upload(api, campaign, factories.zip_of({"../general_elda.xml": b"<x/>"}))
    assert response.status_code == 400
    assert "unsafe path" in response.json()["file"][0]
    campaign.state = "closed"
    campaign.save()
    response = upload(api, campaign, factories.gold_run_zip())
    assert response.status_code == 400 and "accept" in response.json()["file"][0]
    assert not Run.objects.exists()
    assert factories.files_under(storage / "media" / "runs") == []


def test_api_upload_needs_a_team(campaign, alice):
    api = token_client(alice)
    response = upload(api, campaign, factories.gold_run_zip())
    assert response.status_code == 403 and "team" in response.json()["detail"]


def test_api_requires_authentication_for_runs(campaign):
    api = APIClient()
    assert api.get(f"/api/campaigns/{campaign.slug}/runs/").status_code == 401
    assert upload(api, campaign, b"<x/>", "general_elda.xml").status_code == 401


def test_team_b_cannot_reach_team_a_run(campaign, team_a, team_b, alice, bob, django_capture_on_commit_callbacks):
    run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)
    campaign.state = "released"
    campaign.save()
    api = token_client(bob)
    for url in (f"/api/runs/{run.pk}/", f"/api/runs/{run.pk}/results/"):
        response = api.get(url)
        assert response.status_code == 404 and run.sha256.encode() not in response.content
    assert api.post(f"/api/runs/{run.pk}/withdraw/").status_code == 404
    assert api.get(f"/api/campaigns/{campaign.slug}/runs/").json()["results"] == []


def test_api_withdraw(campaign, team_a, alice, django_capture_on_commit_callbacks):
    run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks)
    api = token_client(alice)
    response = api.post(f"/api/runs/{run.pk}/withdraw/")
    assert response.status_code == 200 and response.json()["withdrawn"] is True
    again = api.post(f"/api/runs/{run.pk}/withdraw/")
    assert again.status_code == 409 and "already withdrawn" in again.json()["detail"]


def test_schema_lists_the_routes(db):
    response = APIClient().get("/api/schema/")
    assert response.status_code == 200
    text = response.content.decode()
    for route in ("/api/campaigns/{slug}/runs/", "/api/runs/{id}/results/", "/api/runs/{id}/withdraw/"):
        assert route in text


def test_upload_throttle(campaign, team_a, alice, monkeypatch, storage):
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, "uploads": "2/hour"})
    api = token_client(alice)
    codes = [upload(api, campaign, b"not xml", "general_elda.xml").status_code for _ in range(3)]
    assert codes == [400, 400, 429]
    # reading is not throttled by the upload scope
    assert api.get(f"/api/campaigns/{campaign.slug}/runs/").status_code == 200
