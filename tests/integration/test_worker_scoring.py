"""THE integration test: a real Celery worker scores a run uploaded through the API.

It needs PostgreSQL (the test database is shared with the worker process) and
Redis (the broker); it fails, never skips, when either is missing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils.functional import empty
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotations.easy import read_document
from campaign.models import Run, RunStatus
from evaluation.easy.files import gold_sha256, genre_of
from evaluation.easy.scoring import score_corpus
from evaluation.models import Result, ResultCell
from evaluation.services import scoring_parameters
from tests import factories
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

BROKER_URL = os.environ.get("PARSEVAL_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")
FILES = factories.SMALL_EASY_FILES
WAIT_SECONDS = 180


def require_services() -> None:
    if connection.vendor != "postgresql":
        pytest.fail("the worker integration test needs PostgreSQL: set DATABASE_URL=postgres://... (see Makefile)")
    import redis

    try:
        redis.Redis.from_url(BROKER_URL, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is not reachable at {BROKER_URL} ({exc}); start it (make services)")


def database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def worker_storage(settings, tmp_path):
    """Media and gold under one var dir that the worker process gets as PARSEVAL_VAR_DIR."""
    factories.use_storage(settings, tmp_path)
    yield tmp_path
    from annotations.models import gold_storage

    gold_storage._wrapped = empty


@pytest.fixture
def broker_queue():
    """Send tasks to Redis (not in process) on a queue of this test session only."""
    from config.celery import app

    queue = f"parseval-test-{os.getpid()}"
    saved = {k: app.conf.get(k) for k in ("task_always_eager", "broker_url", "result_backend", "task_default_queue")}
    app.conf.update(task_always_eager=False, broker_url=BROKER_URL, result_backend=BROKER_URL, task_default_queue=queue)
    app._pool = None  # connections are pooled per broker URL: start afresh
    yield queue
    app.conf.update(saved)
    app._pool = None


@pytest.fixture
def celery_worker(transactional_db, worker_storage, broker_queue):
    require_services()
    log_path = worker_storage / "worker.log"
    env = dict(os.environ)
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_RESULT_BACKEND": BROKER_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "PARSEVAL_VAR_DIR": str(worker_storage),
        "DATABASE_CONN_MAX_AGE": "0",
    })
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-c", "1",
             "--without-gossip", "--without-mingle", "--without-heartbeat", "-Q", broker_queue,
             "--loglevel=INFO", "-n", f"{broker_queue}@%h"],
            cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    try:
        yield proc, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def perturbed(name: str, old: str, new: str, count: int) -> bytes:
    return factories.gold_bytes(name).decode("utf-8").replace(old, new, count).encode("utf-8")


def wait_for_final_status(run_id: int, proc, log_path: Path) -> Run:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in (RunStatus.SCORED, RunStatus.INVALID, RunStatus.FAILED):
            return run
        if proc.poll() is not None:
            pytest.fail(f"the worker exited with {proc.returncode}:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.5)
    pytest.fail(f"run {run_id} still {Run.objects.get(pk=run_id).status} after {WAIT_SECONDS}s; worker log:\n"
                f"{log_path.read_text(errors='replace')}")


def test_worker_scores_an_api_upload_like_the_engine(celery_worker):
    proc, log_path = celery_worker
    campaign = factories.make_easy_campaign(FILES, slug="integration")
    user = factories.make_user("integration")
    factories.make_team(campaign, user, name="Integration team")
    run_files = {
        "general_elda.xml": perturbed("general_elda.xml", 'type="GN"', 'type="GP"', 40),
        "mail_10.xml": factories.gold_bytes("mail_10.xml"),
        "oral_delic_2.xml": perturbed("oral_delic_2.xml", 'type="NV"', 'type="GN"', 15),
    }

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    response = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                        {"name": "perturbed gold", "file": SimpleUploadedFile("run.zip", factories.zip_of(run_files))},
                        format="multipart")
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]

    run = wait_for_final_status(run_id, proc, log_path)
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{log_path.read_text(errors='replace')}"
    assert run.progress == 100 and run.validation_report["valid"] is True
    assert run.task_id
    log = log_path.read_text(errors="replace")
    assert f"[{run.task_id}] succeeded" in log, log  # scored by the worker process, not in this one

    # The engine, in this process, on the same files.
    gold_paths = factories.easy_gold_paths(FILES)
    run_dir = Path(log_path.parent / "expected-run")
    run_dir.mkdir()
    for name, data in run_files.items():
        (run_dir / name).write_bytes(data)
    params = scoring_parameters(campaign)
    expected = score_corpus(
        [read_document(p, gold=True) for p in gold_paths],
        {p.stem: run_dir / p.name for p in gold_paths},
        {p.stem: genre_of(p.name) for p in gold_paths},
        matches=params["matches"], modes=params["modes"], bootstrap=params["bootstrap"], seed=params["seed"],
        gold_sha256=gold_sha256(gold_paths),
    )
    expected = json.loads(json.dumps(expected))

    result = Result.objects.get(run=run)
    stored = result.document
    for key in ("signature", "scorer_version", "gold_sha256", "cells", "macro", "counts", "parameters"):
        assert stored[key] == expected[key], key
    assert stored == {**expected, "warnings": stored["warnings"], "documents": stored["documents"]}
    assert result.signature == expected["signature"] and result.gold_sha256 == expected["gold_sha256"]
    assert result.scorer_version == expected["scorer_version"]

    rows = {(c.aggregation, c.layer, c.mode, c.match, c.genre, c.type): c for c in ResultCell.objects.filter(result=result)}
    assert len(rows) == len(expected["cells"]) + len(expected["macro"])
    for aggregation, key in (("micro", "cells"), ("macro", "macro")):
        for cell in expected[key]:
            row = rows[(aggregation, cell["layer"], cell["mode"] or "", cell["match"], cell["genre"], cell["type"])]
            assert (row.fc, row.fp, row.cr, row.p, row.r, row.f) == \
                (cell["fc"], cell["fp"], cell["cr"], cell["p"], cell["r"], cell["f"])
            assert [row.ci_low, row.ci_high] == (cell["ci"] or [None, None])
    # the perturbation shows: constituents are no longer perfect, relations still are in REF mode
    overall = rows[("micro", "constituents", "", "EQUAL", "ALL", "ALL")]
    assert overall.f < 1.0
