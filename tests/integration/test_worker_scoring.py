"""THE integration test: a real Celery worker scores a run uploaded through the API.

It needs PostgreSQL (the test database is shared with the worker process) and
Redis (the broker); it fails, never skips, when either is missing.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from parseval.annotations.easy import read_document
from config import queues
from campaign.models import Run, RunStatus
from parseval.evaluation.easy.files import gold_sha256, genre_of
from parseval.evaluation.easy.scoring import score_corpus
from evaluation.models import Result, ResultCell
from evaluation.pipeline.services import scoring_parameters
from tests import factories
from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

BROKER_URL = os.environ.get("PARSEVAL_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")
FILES = factories.SMALL_EASY_FILES
WAIT_SECONDS = 180
# The killed delivery's claim lapses after the lease; a short one keeps the test short.
LEASE_6S = {"PARSEVAL_SCORING_LEASE_SECONDS": "6", "PARSEVAL_SCORING_HEARTBEAT_SECONDS": "1"}


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
def worker_storage(storage):
    """Media and gold under one var dir that the worker process gets as PARSEVAL_VAR_DIR."""
    return storage


@pytest.fixture
def broker_queue(settings):
    """Send tasks to Redis (not in process) on queues of this test session only."""
    from config.celery import app

    queue = f"parseval-test-{os.getpid()}"
    settings.PARSEVAL_QUEUE_PREFIX = queue_prefix(queue)  # validation, scoring, significance: queues of this session
    saved = {k: app.conf.get(k) for k in ("task_always_eager", "broker_url", "result_backend", "task_default_queue")}
    app.conf.update(task_always_eager=False, broker_url=BROKER_URL, result_backend=BROKER_URL, task_default_queue=queue)
    forget_connections(app)
    yield queue
    app.conf.update(saved)
    forget_connections(app)


def queue_prefix(queue: str) -> str:
    return f"{queue}."


def forget_connections(app) -> None:
    """Drop the pooled connections, producers and queue table made under the previous configuration.

    An earlier test of the session may have published with the eager settings; the app
    caches what it built then (a producer pool on the old broker, the old default queue).
    """
    app._pool = None
    app.__dict__.pop("amqp", None)  # a cached property: rebuilt with its queues, router and producer pool


class Workers:
    """Starts worker (and beat, web) processes on the test database and queue; stops them all at the end."""

    def __init__(self, var_dir: Path, queue: str, broker_url: str = BROKER_URL):
        self.var_dir, self.queue, self.broker_url, self.procs = var_dir, queue, broker_url, []

    def env(self, var_dir: Path | None = None, **extra_env) -> dict:
        env = dict(os.environ)
        env.update({
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PARSEVAL_DEVELOPMENT": "1",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": self.broker_url,
            "CELERY_RESULT_BACKEND": self.broker_url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "CELERY_TASK_DEFAULT_QUEUE": self.queue,
            "PARSEVAL_QUEUE_PREFIX": queue_prefix(self.queue),
            "PARSEVAL_VAR_DIR": str(var_dir or self.var_dir),
            "DATABASE_CONN_MAX_AGE": "0",
            **extra_env,
        })
        return env

    def start(self, name: str = "worker", *, pool: tuple[str, ...] = ("-P", "solo", "-c", "1"),
              roles: tuple[str, ...] = queues.ROLES, var_dir: Path | None = None,
              **extra_env) -> tuple[subprocess.Popen, Path]:
        """A worker of the given ``roles`` (config.queues; all of them by default), as the compose file runs them,
        with ``extra_env`` added to its environment. ``var_dir``: a var folder of its own (its log stays in the
        pool's), as a worker on another machine has; the pool's by default."""
        consumed = [queue_prefix(self.queue) + role for role in roles]
        if queues.PERIODIC in roles:  # the default queue, named after this pool
            consumed = [self.queue if role == queues.PERIODIC else name for role, name in zip(roles, consumed)]
        return self.spawn(name, ["worker", *pool, "--without-gossip", "--without-mingle", "--without-heartbeat",
                                 "-Q", ",".join(consumed), "--loglevel=INFO", "-n", f"{name}-{self.queue}@%h"],
                          var_dir=var_dir, **extra_env)

    def spawn(self, name: str, celery_args: list[str], *, command: list[str] | None = None,
              var_dir: Path | None = None, **extra_env) -> tuple[subprocess.Popen, Path]:
        log_path = self.var_dir / f"{name}.log"
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                command or [sys.executable, "-m", "celery", "-A", "config", *celery_args],
                cwd=REPO_ROOT, env=self.env(var_dir, **extra_env), stdout=log, stderr=subprocess.STDOUT,
            )
        self.procs.append(proc)
        return proc, log_path

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@pytest.fixture
def workers(transactional_db, worker_storage, broker_queue):
    require_services()
    pool = Workers(worker_storage, broker_queue)
    try:
        yield pool
    finally:
        pool.stop_all()


@pytest.fixture
def celery_worker(workers):
    return workers.start()


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


def logged_success(log_path: Path, task_id: str, seconds: float = 20) -> bool:
    """The worker logs a task's success only after the task's last database write, so a test
    that saw the final status may read the log a moment too early: wait for the line."""
    deadline = time.monotonic() + seconds
    while f"[{task_id}] succeeded" not in log_path.read_text(errors="replace"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def api_for(user) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return api


def perturbed_run_files() -> dict[str, bytes]:
    """The small corpus's gold with constituents and relations changed in two documents, one left as the gold."""
    return {
        "general_elda.xml": perturbed("general_elda.xml", 'type="GN"', 'type="GP"', 40),
        "mail_10.xml": factories.gold_bytes("mail_10.xml"),
        "oral_delic_2.xml": perturbed("oral_delic_2.xml", 'type="NV"', 'type="GN"', 15),
    }


def worker_scores_a_perturbed_upload(worker: tuple[subprocess.Popen, Path], slug: str):
    """A team of a new campaign uploads :func:`perturbed_run_files` through the API and ``worker`` (started by
    :meth:`Workers.start`, with whatever environment the test gives it) scores it; the campaign, the scored run
    and the uploaded files."""
    proc, log_path = worker
    campaign = factories.make_easy_campaign(FILES, slug=slug)
    user = factories.make_user(slug)
    factories.make_team(campaign, user, name=f"{slug.capitalize()} team")
    run_files = perturbed_run_files()
    response = api_for(user).post(f"/api/campaigns/{campaign.slug}/runs/",
                                  {"name": "perturbed gold",
                                   "file": SimpleUploadedFile("run.zip", factories.zip_of(run_files))},
                                  format="multipart")
    assert response.status_code == 201, response.content
    run = wait_for_final_status(response.json()["id"], proc, log_path)
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{log_path.read_text(errors='replace')}"
    assert run.task_id
    # scored by the worker process, not in this one
    assert logged_success(log_path, run.task_id), log_path.read_text(errors="replace")
    return campaign, run, run_files


def engine_document(campaign, run_files: dict[str, bytes], folder: Path) -> dict:
    """The engine, in this process, on the same files (written to ``folder``), as the database's JSON gives it back."""
    gold_paths = factories.easy_gold_paths(FILES)
    folder.mkdir()
    for name, data in run_files.items():
        (folder / name).write_bytes(data)
    params = scoring_parameters(campaign)
    expected = score_corpus(
        [read_document(p, gold=True) for p in gold_paths],
        {p.stem: folder / p.name for p in gold_paths},
        {p.stem: genre_of(p.name) for p in gold_paths},
        matches=params["matches"], modes=params["modes"], bootstrap=params["bootstrap"], seed=params["seed"],
        gold_sha256=gold_sha256(gold_paths),
    )
    return json.loads(json.dumps(expected))


def test_worker_scores_an_api_upload_like_the_engine(celery_worker):
    _, log_path = celery_worker
    campaign, run, run_files = worker_scores_a_perturbed_upload(celery_worker, "integration")
    assert run.progress == 100 and run.validation_report["valid"] is True

    expected = engine_document(campaign, run_files, log_path.parent / "expected-run")
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


def test_a_worker_killed_mid_run_leaves_the_run_to_be_redelivered(workers):
    """SIGKILL during validation: nothing half-written; a new worker scores the run once."""
    campaign = factories.make_easy_campaign(FILES, slug="killed")
    user = factories.make_user("killed")
    factories.make_team(campaign, user, name="Killed team")
    first, first_log = workers.start("first", CELERY_VISIBILITY_TIMEOUT="3", **LEASE_6S)
    api = api_for(user)
    response = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                        {"name": "gold", "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())},
                        format="multipart")
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]

    deadline = time.monotonic() + WAIT_SECONDS
    while Run.objects.get(pk=run_id).status == RunStatus.UPLOADED:
        if time.monotonic() > deadline or first.poll() is not None:
            pytest.fail(f"the first worker never started the run:\n{first_log.read_text(errors='replace')}")
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    run = Run.objects.get(pk=run_id)
    assert run.status in (RunStatus.VALIDATING, RunStatus.QUEUED, RunStatus.SCORING), \
        f"the run finished before the kill ({run.status}); the kill came too late to test anything"
    assert not Result.objects.filter(run_id=run_id).exists()

    second, second_log = workers.start("second", CELERY_VISIBILITY_TIMEOUT="3", **LEASE_6S)
    run = wait_for_final_status(run_id, second, second_log)
    assert run.status == RunStatus.SCORED, f"{run.status}: {run.status_reason}\n{second_log.read_text(errors='replace')}"
    assert Result.objects.filter(run_id=run_id).count() == 1
    result = Result.objects.get(run_id=run_id)
    assert ResultCell.objects.filter(result=result).count() == len(result.document["cells"]) + len(result.document["macro"])
