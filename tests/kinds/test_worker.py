"""Through the real broker: a Celery worker process scores a constituency run uploaded through the API
and runs an error-lab job posted on the organiser page. Needs PostgreSQL and Redis; fails, never skips,
without them."""
from __future__ import annotations

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaign.models import CampaignKind, RunStatus
from evaluation.kinds import get
from evaluation.models import ErrorLabJob, ResultCell
from tests import factories
from tests.integration.test_worker_scoring import (  # noqa: F401 (fixtures)
    api_for, broker_queue, celery_worker, logged_success, wait_for_final_status, worker_storage, workers,
)

from .conftest import gold_bytes
from .helpers import damaged_trees

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_worker_scores_a_tree_run_and_runs_the_error_lab(celery_worker, tmp_path, client):  # noqa: F811
    proc, log_path = celery_worker
    organiser, user = factories.make_user("org-w"), factories.make_user("team-w")
    campaign = factories.make_campaign(slug="trees-w", kind=CampaignKind.CONSTITUENCY, organisers=[organiser])
    for name in ("annodis", "frwiki"):
        (tmp_path / f"{name}.mrg").write_bytes(gold_bytes(name))
    get("constituency").import_corpus(campaign, [tmp_path / "annodis.mrg", tmp_path / "frwiki.mrg"])
    factories.make_team(campaign, user, name="Worker team")
    files = {name: damaged_trees(tmp_path / name, "ATTACH I", seed=4).encode() for name in ("annodis.mrg", "frwiki.mrg")}
    response = api_for(user).post(f"/api/campaigns/{campaign.slug}/runs/",
                                  {"name": "damaged", "file": SimpleUploadedFile("run.zip", factories.zip_of(files))},
                                  format="multipart")
    assert response.status_code == 201, response.content
    run = wait_for_final_status(response.json()["id"], proc, log_path)
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{log_path.read_text(errors='replace')}"
    assert logged_success(log_path, run.task_id), log_path.read_text(errors="replace")  # scored by the worker
    assert 0.8 < ResultCell.objects.get(result__run=run, layer="evalb", genre="ALL").f < 1.0

    client.force_login(organiser)
    response = client.post(reverse("lab:error_lab", kwargs={"slug": campaign.slug}), {
        "treebank_a": SimpleUploadedFile("frwiki.mrg", gold_bytes("frwiki")),
        "preset": "penn", "seed": "3", "per_type": "4"})
    assert response.status_code == 302
    job = ErrorLabJob.objects.get()
    deadline = time.monotonic() + 120
    while not job.finished and time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the worker exited:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.5)
        job.refresh_from_db()
    assert job.status == ErrorLabJob.Status.DONE, f"{job.status} {job.status_reason}\n{log_path.read_text(errors='replace')}"
    assert job.task_id and logged_success(log_path, job.task_id), log_path.read_text(errors="replace")
    assert job.result["treebanks"]["frwiki.mrg"]["insertions"]["ATTACH I"]["made"] > 0
