"""Faults during scoring: every accepted upload ends scored (or invalid) with exactly one result.

Real processes throughout: Celery workers (prefork, as in production), Celery beat
running the recovery sweep, gunicorn, and for the Redis outage a Redis server of the
test's own on a spare loopback port (the shared one is never stopped). The lease,
heartbeat and sweep are shortened through the environment so that each test takes
seconds, not minutes; the mechanisms are the production ones.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile

from campaign.models import Run, RunStatus
from evaluation.models import Result
from tests import factories
from tests.integration.test_worker_scoring import Workers, api_for, forget_connections, queue_prefix, require_services

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

BOUND_SECONDS = 150
FINAL = (RunStatus.SCORED, RunStatus.INVALID, RunStatus.FAILED)
FAST = {  # production mechanisms, test-sized bounds
    "PARSEVAL_SCORING_LEASE_SECONDS": "6",
    "PARSEVAL_SCORING_HEARTBEAT_SECONDS": "1",
    "PARSEVAL_RECOVERY_SWEEP_SECONDS": "2",
    "PARSEVAL_OUTBOX_GRACE_SECONDS": "1",
    "CELERY_VISIBILITY_TIMEOUT": "20",
}
PREFORK = ("-P", "prefork", "-c", "1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OwnRedis:
    """A Redis server of this test, append-only like the compose file, that the test may stop and start."""

    def __init__(self, directory: Path):
        self.port, self.dir, self.proc = free_port(), directory, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--dir", str(self.dir), "--appendonly", "yes", "--save", ""],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if redis.Redis(port=self.port, socket_connect_timeout=1).ping():
                    return
            except redis.RedisError:
                time.sleep(0.1)
        pytest.fail(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


@pytest.fixture
def own_redis(tmp_path):
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def stack(transactional_db, storage, own_redis, settings):
    """Publishing from this process, workers and beat all on the test's own Redis and queues."""
    from config.celery import app

    require_services()
    queue = f"parseval-faults-{os.getpid()}"
    settings.PARSEVAL_QUEUE_PREFIX = queue_prefix(queue)
    saved = {k: app.conf.get(k) for k in ("task_always_eager", "broker_url", "result_backend", "task_default_queue")}
    app.conf.update(task_always_eager=False, broker_url=own_redis.url, result_backend=own_redis.url,
                    task_default_queue=queue)
    forget_connections(app)
    app._local.__dict__.pop("backend", None)  # a result backend built on an earlier test's Redis
    pool = Workers(storage, queue, broker_url=own_redis.url)
    try:
        yield pool
    finally:
        pool.stop_all()
        app.conf.update(saved)
        forget_connections(app)
        app._local.__dict__.pop("backend", None)


def start_beat(pool: Workers):
    return pool.spawn("beat", ["beat", "--loglevel=INFO", "--schedule", str(pool.var_dir / "beat-schedule")], **FAST)


def campaign_and_api(slug: str):
    campaign = factories.make_easy_campaign(factories.SMALL_EASY_FILES, slug=slug, runs_per_team=100)
    user = factories.make_user(f"{slug}-user")
    factories.make_team(campaign, user, name=f"{slug} team")
    return campaign, api_for(user)


def upload(api, campaign, name: str) -> int:
    response = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                        {"name": name, "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())},
                        format="multipart")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def wait_until(condition, what: str, logs: list[Path], seconds: float = BOUND_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    shown = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-6000:]}" for p in logs if p.exists())
    pytest.fail(f"{what} not reached within {seconds}s; runs: "
                f"{list(Run.objects.values_list('pk', 'status', 'status_reason'))}\n{shown}")


def assert_each_ended_once(run_ids, logs: list[Path]) -> None:
    wait_until(lambda: Run.objects.filter(pk__in=run_ids, status__in=FINAL).count() == len(run_ids),
               "every accepted run ended", logs)
    for run in Run.objects.filter(pk__in=run_ids):
        # The uploads are the gold itself: valid, so each must be scored, never failed.
        assert run.status == RunStatus.SCORED, (run.pk, run.status, run.status_reason)
        assert Result.objects.filter(run=run).count() == 1, run.pk


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def wait_for_children(worker) -> list[int]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = children(worker.pid)
        if found:
            return found
        time.sleep(0.1)
    pytest.fail("the worker started no pool process")


def first_in_progress(run_ids):
    return Run.objects.filter(pk__in=run_ids, status__in=(RunStatus.VALIDATING, RunStatus.QUEUED,
                                                            RunStatus.SCORING)).first()


def test_a_pool_process_killed_mid_run(stack):
    """SIGKILL of the pool process: the message comes straight back and is scored once, after the lease."""
    campaign, api = campaign_and_api("pool-kill")
    run_ids = [upload(api, campaign, f"run {i}") for i in range(3)]  # queued before the worker starts
    worker, log = stack.start("pool", pool=PREFORK, **FAST)
    wait_until(lambda: first_in_progress(run_ids) is not None, "a run in progress", [log])
    (child,) = children(worker.pid)
    os.kill(child, signal.SIGKILL)
    assert_each_ended_once(run_ids, [log])
    assert worker.poll() is None, "the worker itself survives its pool process"


def test_the_whole_worker_killed_is_recovered_by_the_sweep(stack):
    """SIGKILL of the worker and its pool; a replacement and beat recover the runs, each scored once."""
    campaign, api = campaign_and_api("worker-kill")
    run_ids = [upload(api, campaign, f"run {i}") for i in range(3)]
    worker, log = stack.start("doomed", pool=PREFORK, **FAST)
    wait_until(lambda: first_in_progress(run_ids) is not None, "a run in progress", [log])
    for pid in [*children(worker.pid), worker.pid]:
        os.kill(pid, signal.SIGKILL)
    worker.wait(timeout=10)
    # A long visibility timeout: the runs come back through the sweep (lease ran out), not through Redis.
    _, second_log = stack.start("replacement", pool=PREFORK, **{**FAST, "CELERY_VISIBILITY_TIMEOUT": "3600"})
    _, beat_log = start_beat(stack)
    assert_each_ended_once(run_ids, [log, second_log, beat_log])


def test_redis_stopped_while_scoring_and_an_upload_made_meanwhile(stack, own_redis):
    """Redis away 20 s while tasks run and finish: the same worker process lives on and consumes again once
    Redis is back; the upload made meanwhile is kept and scored later; each run is scored once."""
    campaign, api = campaign_and_api("redis-down")
    run_ids = [upload(api, campaign, f"run {i}") for i in range(6)]
    worker, log = stack.start("survivor", pool=("-P", "prefork", "-c", "2"), **FAST)
    _, beat_log = start_beat(stack)
    wait_until(lambda: first_in_progress(run_ids) is not None, "a run in progress", [log])
    own_redis.stop()
    during = upload(api, campaign, "uploaded while Redis is down")
    assert Run.objects.get(pk=during).dispatch_pending, "the outbox mark stays until the run is queued"
    time.sleep(20)
    own_redis.start()
    assert_each_ended_once([*run_ids, during], [log, beat_log])
    after = upload(api, campaign, "uploaded once Redis is back")  # consumed by the same process, nobody else's
    assert_each_ended_once([after], [log, beat_log])
    assert worker.poll() is None, f"the worker died:\n{log.read_text(errors='replace')[-6000:]}"
    text = log.read_text(errors="replace")
    assert "Unrecoverable error" not in text and "has no attribute 'hostname'" not in text
    assert not Run.objects.get(pk=during).dispatch_pending


def test_a_paused_holder_taken_over_writes_nothing_when_it_resumes(stack):
    """SIGSTOP of the pool process holding a run, past its lease: the sweep hands the run to another worker,
    which scores it; the paused process, resumed, finds its claim gone and writes nothing: the run stays
    scored with its one result (it used to end failed, "interrupted 3 times", with its result present)."""
    campaign, api = campaign_and_api("paused-holder")
    run_id = upload(api, campaign, "run")
    paused_worker, paused_log = stack.start("paused", pool=PREFORK, **FAST)
    (child,) = wait_for_children(paused_worker)
    # Paused once its claim and its "validating" write are committed: a process stopped inside a write's
    # transaction would hold the run's row lock, and nobody could take the run over until it resumed.
    wait_until(lambda: Run.objects.filter(pk=run_id, claimed_by__contains=f":{child}:",
                                          status=RunStatus.VALIDATING).exists(),
               "the run held by the pool process, validating", [paused_log], seconds=60)
    os.kill(child, signal.SIGSTOP)
    try:
        run = Run.objects.get(pk=run_id)
        assert f":{child}:" in run.claimed_by and run.status not in FINAL, \
            f"the run left the paused process before the pause ({run.status}); the pause came too late"
        _, other_log = stack.start("taker", pool=PREFORK, **FAST)
        _, beat_log = start_beat(stack)
        assert_each_ended_once([run_id], [paused_log, other_log, beat_log])
    finally:
        os.kill(child, signal.SIGCONT)
    wait_until(lambda: "this delivery writes nothing more" in paused_log.read_text(errors="replace"),
               "the resumed holder giving up", [paused_log])
    time.sleep(3)  # anything else it would write comes now
    run = Run.objects.get(pk=run_id)
    assert run.status == RunStatus.SCORED, (run.status, run.status_reason)
    assert Result.objects.filter(run=run, scoring_round=run.scoring_round).count() == 1
    assert paused_worker.poll() is None


def test_a_file_system_fault_in_the_worker_is_retried_until_it_clears(stack, storage):
    """A real fault: the staging directory's path is taken by a file, so the worker cannot unpack the run. The
    task is retried with back-off (not failed, not counted as an interrupted attempt); once the fault clears
    the run is scored once."""
    import shutil

    from campaign.services.runs import staging_dir

    campaign, api = campaign_and_api("fs-fault")
    run_id = upload(api, campaign, "run")
    staging = staging_dir()
    shutil.rmtree(staging)
    staging.write_text("in the way")
    _, log = stack.start("retrying", pool=PREFORK, PARSEVAL_RETRY_BACKOFF_SECONDS="1", **FAST)
    wait_until(lambda: log.read_text(errors="replace").count("FileExistsError") >= 2, "two retried attempts", [log])
    run = Run.objects.get(pk=run_id)
    # an attempt being made holds one; a retried one gives it back
    assert run.status in (RunStatus.UPLOADED, RunStatus.VALIDATING) and run.scoring_attempts <= 1, \
        (run.status, run.scoring_attempts)
    staging.unlink()
    assert_each_ended_once([run_id], [log])


def test_a_gunicorn_worker_killed_under_uploads(stack, live_server_port):
    """SIGKILL of a gunicorn worker while teams upload: every upload answered 201 is scored once."""
    import requests

    _, log = stack.start("scorer", pool=PREFORK, **FAST)
    _, beat_log = start_beat(stack)
    web, web_log = stack.spawn("web", [], command=[
        os.sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{live_server_port}",
        "--workers", "2", "--timeout", "60"], DJANGO_DEBUG="0", DJANGO_SECRET_KEY="faults-" + "x" * 40, **FAST)
    campaign, _ = campaign_and_api("web-kill")
    from rest_framework.authtoken.models import Token

    token = Token.objects.get(user__username="web-kill-user").key
    base = f"http://127.0.0.1:{live_server_port}"
    wait_until(lambda: _answers(base), "gunicorn answering", [web_log], seconds=60)
    accepted, answers = [], []

    def team():
        for i in range(8):
            try:
                r = requests.post(f"{base}/api/campaigns/{campaign.slug}/runs/", headers={"Authorization": f"Token {token}"},
                                  data={"name": f"web run {i}"}, files={"file": ("run.zip", factories.gold_run_zip())},
                                  timeout=60)
                answers.append(r.status_code)
                if r.status_code == 201:
                    accepted.append(r.json()["id"])
            except requests.RequestException as exc:
                answers.append(type(exc).__name__)
            time.sleep(0.3)

    uploader = threading.Thread(target=team)
    uploader.start()
    wait_until(lambda: len(answers) >= 2, "two uploads answered", [web_log])
    os.kill(children(web.pid)[0], signal.SIGKILL)
    uploader.join(timeout=BOUND_SECONDS)
    assert accepted, answers
    assert_each_ended_once(accepted, [log, beat_log, web_log])
    # A run stored by the killed worker whose answer was lost is recovered too (outbox): none is left working.
    wait_until(lambda: not Run.objects.exclude(status__in=FINAL).exists(), "no run left working", [beat_log])
    assert all(Result.objects.filter(run=r).count() == 1 for r in Run.objects.all())


def _answers(base: str) -> bool:
    import urllib.error
    import urllib.request

    try:
        urllib.request.urlopen(base + "/accounts/login/", timeout=2)
        return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


@pytest.fixture
def live_server_port():
    return free_port()


def _lines_since(log: Path, offset: int) -> list[str]:
    with open(log, "rb") as f:
        f.seek(offset)
        return f.read().decode("utf-8", errors="replace").splitlines()


def test_a_redis_outage_under_requests_writes_a_bounded_log(stack, own_redis, live_server_port):
    """Redis (the cache and the broker) stopped while readers and uploads keep coming: each process says once that
    it is away and once that it is back, with the duration, and nothing more; no traceback, however many requests
    (they used to write a ConnectionInterrupted traceback per cache call and a ConnectionRefusedError per upload)."""
    import requests

    worker, log = stack.start("scorer", pool=PREFORK, **FAST)
    cache_url = f"redis://127.0.0.1:{own_redis.port}/1"
    _, web_log = stack.spawn("web", [], command=[
        os.sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{live_server_port}",
        "--workers", "1", "--timeout", "60"], DJANGO_DEBUG="0", DJANGO_SECRET_KEY="faults-" + "x" * 40,
        CACHE_URL=cache_url, **FAST)
    campaign, _ = campaign_and_api("quiet-outage")
    from rest_framework.authtoken.models import Token

    token = Token.objects.get(user__username="quiet-outage-user").key
    base = f"http://127.0.0.1:{live_server_port}"
    wait_until(lambda: _answers(base), "gunicorn answering", [web_log], seconds=60)
    wait_until(lambda: "ready." in log.read_text(errors="replace"), "the worker consuming", [log], seconds=60)

    def upload(i: int) -> int | str:
        r = requests.post(f"{base}/api/campaigns/{campaign.slug}/runs/", headers={"Authorization": f"Token {token}"},
                          data={"name": f"run {i}"}, files={"file": ("run.zip", factories.gold_run_zip())}, timeout=60)
        return r.json()["id"] if r.status_code == 201 else r.status_code

    def read() -> None:
        for path in ("/api/campaigns/", f"/api/campaigns/{campaign.slug}/", f"/campaigns/{campaign.slug}/", "/"):
            assert requests.get(base + path, timeout=30).status_code == 200, path

    accepted = [upload(0)]
    read()
    offsets = {p: p.stat().st_size for p in (web_log, log)}
    own_redis.stop()
    requests_made = 0
    for i in range(1, 6):  # uploads kept by the outbox, readers served without the cache
        accepted.append(upload(i))
        for _ in range(10):
            read()
            requests_made += 4
    assert requests_made >= 200 and all(isinstance(a, int) for a in accepted), accepted
    time.sleep(5)  # the worker's reconnection attempts
    own_redis.start()
    wait_until(lambda: any("Connected to" in line for line in _lines_since(log, offsets[log])), "the worker back",
               [log, web_log])
    read()
    accepted.append(upload(99))
    _, beat_log = start_beat(stack)  # the outbox's runs are queued by the sweep
    assert_each_ended_once(accepted, [log, web_log, beat_log])

    web = _lines_since(web_log, offsets[web_log])
    worker_lines = [line for line in _lines_since(log, offsets[log])
                    if " Task " not in line]  # a task received and done: the ordinary work, one line each
    shown = "\n".join(["--- web", *web, "--- worker", *worker_lines])
    assert not any("Traceback" in line or "CRITICAL" in line for line in web + worker_lines), shown
    for what in ("cache unreachable since", "cache reachable again after", "broker unreachable since",
                 "broker reachable again after"):
        assert sum(what in line for line in web) == 1, (what, shown)
    said = [line.split("] ")[0].split("/")[-1] for line in worker_lines if "broker unreachable since" in line]
    assert "MainProcess" in said and len(said) == len(set(said)), shown  # once per process (the pool's has its own)
    # the four transitions, gunicorn's own lines, a line per upload kept by the outbox at most
    assert len(web) <= 15, shown
    assert len(worker_lines) <= 15, shown
    assert worker.poll() is None
