"""A real worker process scores a run whose files are objects of the S3 test server.

The web side (this process) and the worker share the database, the broker and the bucket, and nothing
else: the worker gets a var folder of its own, which ends as empty of stored files as the web's.
"""
from __future__ import annotations

import time

import pytest

from annotations.models import GoldDocument
from evaluation.models import Result
from tests import factories

from .test_worker_scoring import (  # noqa: F401 - fixtures
    broker_queue, engine_document, worker_scores_a_perturbed_upload, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_worker_on_another_var_folder_scores_a_run_stored_in_the_bucket(s3_storage, workers, tmp_path):  # noqa: F811
    server, bucket = s3_storage
    worker_var = tmp_path / "worker-var"  # the worker's own machine, as it were: no shared folder
    worker_var.mkdir()
    worker = workers.start(var_dir=worker_var, **server.env(bucket))
    campaign, run, run_files = worker_scores_a_perturbed_upload(worker, "bucket")

    # The engine, here, on the same files: the same document.
    expected = engine_document(campaign, run_files, tmp_path / "expected-run")
    stored = Result.objects.get(run=run).document
    assert stored == {**expected, "warnings": stored["warnings"], "documents": stored["documents"]}

    # Stored files are objects; neither var folder holds one. The worker's copies are in its own cache.
    keys = server.keys(bucket)
    assert f"media/{run.file.name}" in keys
    golds = GoldDocument.objects.filter(document__campaign=campaign)
    assert {f"gold/{g.file.name}" for g in golds} <= set(keys)
    # The worker takes every queue: after the scoring it runs the run's analysis and the significance, which
    # unpack the run into its staging folder again; "ends empty" is once those steps are over (a folder that
    # is never emptied still fails, a minute later).
    deadline = time.monotonic() + 60
    while factories.files_under(worker_var / "media") and time.monotonic() < deadline:
        time.sleep(0.5)
    for var in (tmp_path, worker_var):
        assert factories.files_under(var / "media") == [], var
        assert factories.files_under(var / "gold") == [], var
    cached = {p.name for p in factories.files_under(worker_var / "cache" / "files")}
    assert cached == {f"{g.sha256}.gold.xml" for g in golds} | {f"{run.sha256}.zip"}
