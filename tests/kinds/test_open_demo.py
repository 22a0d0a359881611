"""The open demo campaign: every demo team can upload the shipped files, read validation, check a run on
the development sample and see its figures, and withdraw; the test subset stays hidden."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotations.models import GoldSentence
from campaign.demo_open import OPEN_SLUG, RUNS_DIR, dev_sids, load_open_demo, practice_files
from campaign.models import CampaignState, Run, RunStatus
from tests import factories
from tests.conftest import DATA

FILES = DATA / RUNS_DIR / OPEN_SLUG


@pytest.fixture
def practice(db, storage):
    organiser = factories.make_user("organiser")
    users = {name: factories.make_user(name) for name in ("alpha", "beta")}
    campaign = load_open_demo(organiser, users, {"alpha": "Alpha boundaries lab"}, lambda line: None)
    return campaign, users


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def test_the_campaign_is_open_with_a_hidden_test_subset_and_a_team_per_user(practice):
    campaign, users = practice
    assert campaign.state == CampaignState.OPEN and campaign.dev_sample_public
    subsets = list(GoldSentence.objects.filter(sentence__document__campaign=campaign).values_list("subset", flat=True))
    assert len(subsets) == 80
    assert 0 < subsets.count("test") < 80 and subsets.count("dev") > 0 and subsets.count("unused") > 0
    assert {t.name for t in campaign.teams.all()} == {"Alpha boundaries lab", "beta"}
    # open, unlike a real campaign's default: the demo users' teams may upload at once
    assert campaign.team_admission == "open" and all(t.admitted for t in campaign.teams.all())
    assert all(campaign.teams.filter(members=u).exists() for u in users.values())
    again = load_open_demo(factories.make_user("org2"), users, {}, lambda line: None)  # idempotent
    assert again.pk == campaign.pk and again.teams.count() == 2


def test_the_shipped_files_are_what_the_campaign_gives(practice):
    campaign, _ = practice
    made = practice_files(dev_sids(campaign))
    assert sorted(made) == sorted(p.name for p in FILES.glob("*.zip"))
    for name, data in made.items():
        assert members((FILES / name).read_bytes()) == members(data), name
    dev = members(made["dev-check.zip"])
    assert sum(text.count(b"# sent_id = ") for text in dev.values()) == len(dev_sids(campaign))


def upload(client, campaign, name: str, scope: str, capture):
    with capture(execute=True):
        return client.post(reverse("portal:run_upload", kwargs={"slug": campaign.slug}), {
            "name": name, "scope": scope, "system_description": "", "track": "gold-tokens",
            "file": SimpleUploadedFile(name, (FILES / name).read_bytes())})


def test_a_team_uploads_sees_validation_and_dev_figures_and_withdraws(practice, client,
                                                                        django_capture_on_commit_callbacks):
    campaign, users = practice
    client.force_login(users["alpha"])
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert reverse("portal:run_upload", kwargs={"slug": campaign.slug}) in page

    response = upload(client, campaign, "run.zip", Run.Scope.TEST, django_capture_on_commit_callbacks)
    assert response.status_code == 302
    run = Run.objects.get(name="run.zip")
    assert run.status in (RunStatus.SCORED, RunStatus.QUEUED, RunStatus.SCORING), run.status_reason
    assert run.validation_report["valid"]
    html = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert "accepted for scoring" in html.lower()

    upload(client, campaign, "invalid-run.zip", Run.Scope.TEST, django_capture_on_commit_callbacks)
    bad = Run.objects.get(name="invalid-run.zip")
    assert bad.status == RunStatus.INVALID
    files = {p["file"] for p in bad.validation_report["problems"]}
    assert files == {"gsd.conllu", "sequoia.conllu"}
    # the sentence left out of gsd.conllu is named, once; the sentences after it are not reported
    [missing] = [p for p in bad.validation_report["problems"] if p["file"] == "gsd.conllu"]
    assert missing["sentence"] == "fr-ud-test_00005" and "is missing between" in missing["message"]
    html = client.get(reverse("portal:run", kwargs={"pk": bad.pk})).content.decode()
    assert "gsd.conllu" in html and "sequoia.conllu" in html

    upload(client, campaign, "dev-check.zip", Run.Scope.DEV, django_capture_on_commit_callbacks)
    dev = Run.objects.get(name="dev-check.zip")
    assert dev.status == RunStatus.SCORED, (dev.status, dev.status_reason, dev.validation_report)
    las = dev.results.get().cells.get(layer="deps-las", genre="ALL", type="ALL").f
    assert 0.5 < las < 1.0  # the moved heads show
    html = client.get(reverse("portal:run", kwargs={"pk": dev.pk})).content.decode()
    assert f"{las:.4f}" in html or f"{100 * las:.2f}" in html

    response = client.post(reverse("portal:run_withdraw", kwargs={"pk": run.pk}))
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.withdrawn_at is not None
    assert "withdrawn" in client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode().lower()


def test_every_demo_team_can_upload_through_the_api(practice, django_capture_on_commit_callbacks):
    from rest_framework.test import APIClient

    campaign, users = practice
    api = APIClient()
    api.force_authenticate(users["beta"])
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/campaigns/{campaign.slug}/runs/", {
            "name": "beta try", "file": SimpleUploadedFile("run.zip", (FILES / "run.zip").read_bytes())},
            format="multipart")
    assert response.status_code == 201, response.content
    assert Run.objects.get(pk=response.json()["id"]).validation_report["valid"]


def test_the_readme_names_every_file():
    text = (DATA / RUNS_DIR / "README.md").read_text(encoding="utf-8")
    assert all(f"{OPEN_SLUG}/{p.name}" in text for p in Path(FILES).glob("*.zip"))
