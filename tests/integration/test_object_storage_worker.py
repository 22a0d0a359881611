"""A real worker process scores a run whose files are objects of the S3 test server.

The web side (this process) and the worker share the database, the broker and the bucket, and nothing
else: the worker gets a var folder of its own, which ends as empty of stored files as the web's.
"""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.easy import read_document
from annotations.models import GoldDocument
from campaign.models import RunStatus
from evaluation.easy.files import gold_sha256, genre_of
from evaluation.easy.scoring import score_corpus
from evaluation.models import Result
from evaluation.services import scoring_parameters
from tests import factories

from .test_worker_scoring import (  # noqa: F401 - fixtures
    FILES, api_for, broker_queue, logged_success, perturbed, wait_for_final_status, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_worker_on_another_var_folder_scores_a_run_stored_in_the_bucket(s3_storage, workers, tmp_path):  # noqa: F811
    server, bucket = s3_storage
    worker_var = tmp_path / "worker-var"  # the worker's own machine, as it were: no shared folder
    worker_var.mkdir()
    workers.var_dir = worker_var
    proc, log_path = workers.start(**server.env(bucket))

    campaign = factories.make_easy_campaign(FILES, slug="bucket")
    user = factories.make_user("bucket")
    factories.make_team(campaign, user, name="Bucket team")
    run_files = {
        "general_elda.xml": perturbed("general_elda.xml", 'type="GN"', 'type="GP"', 40),
        "mail_10.xml": factories.gold_bytes("mail_10.xml"),
        "oral_delic_2.xml": perturbed("oral_delic_2.xml", 'type="NV"', 'type="GN"', 15),
    }
    response = api_for(user).post(f"/api/campaigns/{campaign.slug}/runs/",
                                  {"name": "perturbed", "file": SimpleUploadedFile("run.zip", factories.zip_of(run_files))},
                                  format="multipart")
    assert response.status_code == 201, response.content
    run = wait_for_final_status(response.json()["id"], proc, log_path)
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{log_path.read_text(errors='replace')}"
    assert logged_success(log_path, run.task_id), log_path.read_text(errors="replace")

    # The engine, here, on the same files: the same document.
    gold_paths = factories.easy_gold_paths(FILES)
    run_dir = tmp_path / "expected-run"
    run_dir.mkdir()
    for name, data in run_files.items():
        (run_dir / name).write_bytes(data)
    params = scoring_parameters(campaign)
    expected = json.loads(json.dumps(score_corpus(
        [read_document(p, gold=True) for p in gold_paths], {p.stem: run_dir / p.name for p in gold_paths},
        {p.stem: genre_of(p.name) for p in gold_paths}, matches=params["matches"], modes=params["modes"],
        bootstrap=params["bootstrap"], seed=params["seed"], gold_sha256=gold_sha256(gold_paths))))
    stored = Result.objects.get(run=run).document
    assert stored == {**expected, "warnings": stored["warnings"], "documents": stored["documents"]}

    # Stored files are objects; neither var folder holds one. The worker's copies are in its own cache.
    keys = server.keys(bucket)
    assert f"media/{run.file.name}" in keys
    golds = GoldDocument.objects.filter(document__campaign=campaign)
    assert {f"gold/{g.file.name}" for g in golds} <= set(keys)
    for var in (tmp_path, worker_var):
        assert factories.files_under(var / "media") == [], var
        assert factories.files_under(var / "gold") == [], var
    cached = {p.name for p in factories.files_under(worker_var / "cache" / "files")}
    assert cached == {f"{g.sha256}.gold.xml" for g in golds} | {f"{run.sha256}.zip"}
