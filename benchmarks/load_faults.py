"""Load and fault test of the production-like stack, on loopback only: one scenario after another.

Starts its own Redis (spare port, append-only like the compose file), gunicorn
(3 workers), a Celery worker per queue as the compose file runs them (validation,
scoring with concurrency 2, significance) and Celery beat, against a scratch
PostgreSQL database (``--db postgres``) or SQLite with tasks in process (``--db
sqlite``: no broker, validation and scoring in the web process; the scenarios that
need a broker or a worker are skipped; ``--scenarios embedded``: ``make demo``'s own processes). Each scenario puts load on the web app
(readers, and teams uploading every ``--upload-interval`` s for ``--phase`` s),
injects its fault a third of the way in, then waits (bounded by ``--drain``) for
every run accepted during the scenario to end:

* ``baseline``: no fault;
* ``pool``: SIGKILL of one pool process of the scoring worker;
* ``worker``: SIGKILL of the whole scoring worker (a supervisor restarts it
  5 s later, as compose's ``restart:`` policy does);
* ``redis``: Redis stopped for ``--redis-down`` s (60) at a moment a run is
  being scored (the busy-worker case), then started again on the same data;
* ``gunicorn``: SIGKILL of one gunicorn worker process;
* ``paused``: SIGSTOP, for ``--pause`` s (90, past the 60 s lease), of the pool
  process that holds a run, then SIGCONT (a stale holder resuming);
* ``redis-empty``: the significance worker stopped while runs are scored (their
  requests for the paired tests wait in Redis); once the load has ended and every
  run is scored, Redis restarted *empty* (its append-only file removed) and the
  worker started again: the requests are lost with the broker, no newer scored run
  asks again, and only the database's request counter says what is owed;
* ``db``: the scratch database refusing connections for ``--db-down`` s (30)
  (``ALLOW_CONNECTIONS false`` and its sessions ended; the server and the other
  databases untouched);
* ``fs``: the staging directory made unusable for ``--fs-down`` s (20): its path
  taken by a file, so neither uploads nor workers can stage or unpack there;
* ``sharded``: no fault, but a sharded run (every EASY reference document but one,
  3,487 sentences, in shards of about ``PARSEVAL_SHARD_SENTENCES`` = 300) uploaded
  beside the load, a third in: what the sharded run's own work costs the others;
* ``shard``: the same, and once a scoring pool process other than the run's
  coordinator counts one of its shards, that process gets SIGKILL. Prints how long
  after the kill the run was scored, and the other runs' upload-to-final p95 against
  the baseline's and the ``sharded`` scenario's;
* ``burst``: a deadline burst: ``--burst-teams`` teams (50) upload one run each at
  the same moment, with the paired significance tests on (every scored test run
  asks for them; one pending computation per campaign), on a campaign of its own.

Per scenario it prints: uploads accepted, answers by status, runs scored once,
stuck, duplicated (more than one result in a round), lost (accepted, then gone),
contradictions between status and results (scored without a result of its round,
or a result of its round under another status), the time to drain (from the
scenario's last upload, or the burst's first, until every run it accepted had
ended) and, for the burst, when the significance tests had caught up.

    .venv/bin/python benchmarks/load_faults.py                          # PostgreSQL, every scenario
    .venv/bin/python benchmarks/load_faults.py --db sqlite              # the embedded default (baseline, gunicorn, fs, burst)
    .venv/bin/python benchmarks/load_faults.py --scenarios redis,paused,fs,burst --phase 60
    .venv/bin/python benchmarks/load_faults.py --scenarios embedded    # make demo's server and worker, 10 teams bursting
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
FINAL = ("scored", "invalid", "failed")
SCENARIOS = ("baseline", "pool", "worker", "redis", "gunicorn", "paused", "fs", "burst", "sharded", "shard")
NEEDS_BROKER = {"pool", "worker", "redis", "paused", "sharded", "shard"}

# The outages of issue 35; for each (and for ``redis``), a second table: the log lines written from the fault to
# 30 s after it ended (a Celery task's "received"/"succeeded" lines, the ordinary work, left out), the outage answers
# (5xx) of the JSON routes and how many of them were HTML, and, once the broker is back, how long until every
# significance request made until then was covered by a finished computation.
OUTAGES = ("redis-empty", "db")
SCENARIOS += OUTAGES
NEEDS_BROKER |= set(OUTAGES)  # the production stack: Redis, PostgreSQL, a worker per queue
LOG_AFTER_FAULT = 30.0
TASK_LINE = re.compile(r"Task [\w.]+\[[0-9a-f-]+\] (received|succeeded)")


# -- processes ------------------------------------------------------------------------------------

class Stack:
    """The processes of the stack; each is started again by :meth:`supervise` if it dies (like compose)."""

    def __init__(self, args, var: Path, env: dict, repo: Path = REPO):
        self.args, self.var, self.env, self.repo = args, var, env, repo
        self.procs: dict[str, subprocess.Popen] = {}
        self.commands: dict[str, list[str]] = {}
        self.restarts = Counter()
        self.stopped_on_purpose: set[str] = set()
        self.lock = threading.Lock()

    def start(self, name: str, command: list[str], env: dict | None = None) -> subprocess.Popen:
        self.commands[name] = command
        log = open(self.var / f"{name}.log", "ab")
        proc = subprocess.Popen(command, cwd=self.repo, env=env or self.env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs[name] = proc
        return proc

    def restart(self, name: str) -> None:
        self.restarts[name] += 1
        self.start(name, self.commands[name])

    def supervise(self, stop: threading.Event) -> None:
        while not stop.wait(1.0):
            with self.lock:
                for name, proc in list(self.procs.items()):
                    if proc.poll() is not None and name not in self.stopped_on_purpose:
                        time.sleep(self.args.restart_delay)
                        self.restart(name)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def wait_http(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"{url} did not answer in {seconds}s")


def redis_ping(port: int) -> bool:
    return subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True).stdout.strip() == "PONG"


def stack_env(args, var: Path, db_url: str, *, broker: bool = True) -> dict:
    """The environment of the stack's processes: production settings (no development mode) on loopback, the
    upload throttles lifted, the broker and cache on the stack's own Redis (``args.redis_port``)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": db_url,
           "PARSEVAL_VAR_DIR": str(var), "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "load-faults-" + uuid.uuid4().hex,
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "PARSEVAL_THROTTLE_UPLOADS": "100000/hour",
           "PARSEVAL_THROTTLE_ANON": "1000000/minute", "PARSEVAL_THROTTLE_USER": "1000000/minute"}
    env.pop("PARSEVAL_DEVELOPMENT", None)
    if broker:
        url = f"redis://127.0.0.1:{args.redis_port}/0"
        env.update({"CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url,
                    "CACHE_URL": f"redis://127.0.0.1:{args.redis_port}/1", "CELERY_TASK_ALWAYS_EAGER": "0"})
    else:
        for key in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
            env.pop(key, None)
    return env


def start_stack(stack: Stack, args, redis_cmd: list[str], *, broker: bool = True, tag: str = "stack",
                with_redis: bool = True) -> None:
    """Redis (unless ``with_redis`` is false: started before), gunicorn (3 workers), a Celery worker per queue as
    the compose file runs them (validation 1, scoring ``args.scoring_concurrency``, significance 1, periodic 1)
    and beat; without ``broker``, gunicorn alone (SQLite, tasks in the web process)."""
    if broker and with_redis:
        stack.start("redis", redis_cmd)
        for _ in range(50):
            if redis_ping(args.redis_port):
                break
            time.sleep(0.1)
    stack.start("web", [PY, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{args.web_port}",
                        "--workers", "3", "--timeout", "120"])
    if not broker:
        return
    for role, queue_list, concurrency in (("validation", "validation", 1),
                                          ("scoring", "scoring", args.scoring_concurrency),
                                          ("significance", "significance", 1),
                                          ("periodic", "celery", 1)):
        stack.start(f"worker-{role}", [PY, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
                                       "-Q", queue_list, "--concurrency", str(concurrency),
                                       "-n", f"{role}-{tag}@%h"])
    stack.start("beat", [PY, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
                         "--schedule", str(stack.var / "beat-schedule")])


# -- scratch database and fixtures ---------------------------------------------------------------------

def scratch_database(args, var: Path, name: str | None = None) -> str:
    if args.db == "sqlite":
        return f"sqlite:///{var / 'db.sqlite3'}"
    import psycopg

    name = name or f"parseval_loadfaults_{os.getpid()}"
    with psycopg.connect(args.pg_admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return args.pg_admin_url.rsplit("/", 1)[0] + "/" + name


def drop_scratch_database(args, url: str) -> None:
    if args.db != "postgres" or args.keep:
        return
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(args.pg_admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def tear_down(args, stack, db_url: str, var) -> None:
    """What every run of the stack ends with, whatever happened: the processes stopped, the scratch database
    dropped, the folder removed (or named, with ``--keep``)."""
    stack.stop_all()
    drop_scratch_database(args, db_url)
    if args.keep:
        print(f"kept {var}")
    else:
        shutil.rmtree(var, ignore_errors=True)


SETUP = """
import json, sys
from rest_framework.authtoken.models import Token
from tests import factories
limits = dict(runs_per_team=10000, invalid_uploads_per_day=10000, uploads_per_day=30000)
campaign = factories.make_easy_campaign(slug="loadfaults", **limits)
# The burst has a campaign of its own: its significance table holds the burst's runs only.
burst = factories.make_easy_campaign(slug="deadline-burst", **limits)
tokens = []
for i in range({teams}):
    user = factories.make_user(f"team{{i}}")
    factories.make_team(campaign, user, name=f"Load team {{i}}")
    factories.make_team(burst, user, name=f"Burst team {{i}}")
    tokens.append(Token.objects.create(user=user).key)
open({run_zip!r}, "wb").write(factories.gold_run_zip())  # every team uploads the gold itself: a valid run
print("JSON:" + json.dumps({{"slug": campaign.slug, "burst_slug": burst.slug, "burst_id": burst.pk, "tokens": tokens}}))
"""

HOLDERS = """
import json
from campaign.models import Run
print("JSON:" + json.dumps(list(Run.objects.filter(status__in=("validating", "scoring")).exclude(claimed_by="")
                                .values_list("pk", "status", "claimed_by"))))
"""

REPORT = """
import json
from django.db.models import Count, F, Q
from campaign.models import Run
from evaluation.models import SignificanceRequest
rows = list(Run.objects.annotate(n=Count("results"), this_round=Count("results", filter=Q(results__scoring_round=F("scoring_round"))))
            .values_list("pk", "status", "n", "this_round", "uploaded_at", "status_changed_at", "status_reason"))
marks = {m.campaign_id: [m.requested, m.computed, m.computed_at.timestamp() if m.computed_at else None]
         for m in SignificanceRequest.objects.all()}
print("JSON:" + json.dumps({"runs": [[pk, s, n, r, u.timestamp(), c.timestamp(), why] for pk, s, n, r, u, c, why in rows],
                            "significance": marks}))
"""


def django_shell(env: dict, code: str, repo: Path = REPO) -> str:
    out = subprocess.run([PY, "manage.py", "shell", "-c", code], cwd=repo, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"manage.py shell failed:\n{out.stderr}")
    return [line for line in out.stdout.splitlines() if line.startswith("JSON:")][-1][5:]


# -- load ------------------------------------------------------------------------------------------

class Load:
    def __init__(self, base: str, slug: str, tokens: list[str], run_zip: bytes):
        self.base, self.slug, self.tokens, self.run_zip = base, slug, tokens, run_zip
        self.latency = defaultdict(list)
        self.statuses = defaultdict(Counter)
        self.scenario = ""
        self.accepted: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self.answers: dict[str, Counter] = defaultdict(Counter)  # upload answers by scenario
        # Outage answers (5xx) of the JSON routes by scenario, and how many of them had an HTML body.
        self.json_5xx: Counter = Counter()
        self.html_on_json: Counter = Counter()
        self.lock = threading.Lock()

    def request(self, kind: str, path: str, *, data: bytes | None = None, headers: dict | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        start = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, body = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        except Exception as exc:  # refused, reset, cut short: the client side of a fault
            status, body = f"conn:{type(exc).__name__}", b""
        with self.lock:
            self.latency[kind].append(time.monotonic() - start)
            self.statuses[kind][status] += 1
            if (kind in ("api", "json", "upload") and isinstance(status, int) and status >= 500):
                self.json_5xx[self.scenario] += 1
                self.html_on_json[self.scenario] += body.lstrip()[:1] == b"<"
        return status, body

    def reader(self, stop: threading.Event, n: int) -> None:
        paths = [("api", "/api/campaigns/"), ("api", f"/api/campaigns/{self.slug}/"),
                 ("page", f"/campaigns/{self.slug}/"), ("page", "/"),
                 ("json", f"/results/{self.slug}/data.json"), ("json", f"/results/{self.slug}/significance.json")]
        i = n
        while not stop.wait(0.5):
            kind, path = paths[i % len(paths)]
            self.request(kind, path)
            i += 1

    def upload(self, n: int, slug: str | None = None) -> None:
        body, ctype = multipart({"name": f"run {uuid.uuid4().hex[:8]}", "scope": "test"},
                                ("file", "run.zip", self.run_zip))
        scenario = self.scenario
        status, answer = self.request("upload", f"/api/campaigns/{slug or self.slug}/runs/", data=body,
                                      headers={"Authorization": f"Token {self.tokens[n]}", "Content-Type": ctype})
        with self.lock:
            self.answers[scenario][status] += 1
            if status == 201:
                self.accepted[scenario].append((json.loads(answer)["id"], time.time()))

    def team(self, stop: threading.Event, n: int, interval: float, teams: int) -> None:
        time.sleep(n * interval / max(teams, 1))
        while not stop.is_set():
            self.upload(n)
            stop.wait(interval)


def multipart(fields: dict, file: tuple[str, str, bytes]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for key, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode())
    field, filename, data = file
    out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
              f'Content-Type: application/zip\r\n\r\n'.encode())
    out.write(data + b"\r\n" + f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


# -- faults ----------------------------------------------------------------------------------------

def wait_for(condition, seconds: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def stop_redis(stack: Stack, args, redis_cmd: list[str], seconds: float) -> None:
    with stack.lock:
        stack.stopped_on_purpose.add("redis")
        proc = stack.procs["redis"]
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    time.sleep(seconds)
    with stack.lock:
        stack.start("redis", redis_cmd)
        stack.stopped_on_purpose.discard("redis")


class OutageWatch:
    """What an outage scenario measures: the lines every process logs from the fault to ``LOG_AFTER_FAULT`` s after
    it ended, and (when the broker comes back) the time until every significance request made until then was
    covered by a finished computation, read from the database's counters every second."""

    def __init__(self, stack: Stack, env: dict):
        self.stack, self.env = stack, env
        self.begun = {log: log.stat().st_size for log in stack.var.glob("*.log")}
        self.lines: list[str] | None = None
        self.broker_back: float | None = None
        self.covered_after: float | None = None
        self.owed: dict = {}

    def ended(self, broker_back: bool) -> None:
        threading.Timer(LOG_AFTER_FAULT, self._count_lines).start()
        if broker_back:
            self.broker_back = time.time()
            self.owed = self._marks()
            threading.Thread(target=self._await_coverage, daemon=True).start()

    def _count_lines(self) -> None:
        lines = []
        for log in sorted(self.stack.var.glob("*.log")):
            if log.stem == "redis":
                continue  # the server's own start-up banner: not the app's
            with open(log, "rb") as f:
                f.seek(self.begun.get(log, 0))
                lines += [f"{log.stem}: {line}" for line in f.read().decode("utf-8", "replace").splitlines()
                          if not TASK_LINE.search(line)]
        self.lines = lines

    @classmethod
    def unwatched(cls) -> "OutageWatch":
        """For a scenario whose fault this does not watch (its JSON routes' answers are counted all the same)."""
        watch = cls.__new__(cls)
        watch.lines, watch.broker_back, watch.covered_after, watch.owed, watch.stack = None, None, None, {}, None
        return watch

    def asked_again_after(self) -> float | None:
        """Seconds from the broker's return to the first sweep that asked again for an owed computation."""
        if self.broker_back is None:
            return None
        log = self.stack.var / "worker-periodic.log"
        if not log.exists():
            return None
        for line in log.read_text(errors="replace").splitlines():
            found = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+: .*'asked_again': ([1-9])", line)
            if found:
                at = time.mktime(time.strptime(found.group(1), "%Y-%m-%d %H:%M:%S"))
                if at >= self.broker_back - 1:
                    return at - self.broker_back
        return None

    def _marks(self) -> dict:
        import psycopg

        with psycopg.connect(self.env["DATABASE_URL"], autocommit=True) as conn:
            return {c: (r, d) for c, r, d in conn.execute(
                "SELECT campaign_id, requested, computed FROM evaluation_significancerequest")}

    def _await_coverage(self) -> None:
        deadline = time.time() + 600
        while time.time() < deadline:
            try:
                marks = self._marks()
            except Exception:
                marks = {}
            if marks and all(marks.get(c, (0, 0))[1] >= requested for c, (requested, _) in self.owed.items()):
                self.covered_after = time.time() - self.broker_back
                return
            time.sleep(1)


def outage(fault: str, stack: Stack, args, env: dict, redis_cmd: list[str]) -> str:
    import psycopg

    watch = args.watch = OutageWatch(stack, env)
    if fault == "db":
        name = env["DATABASE_URL"].rsplit("/", 1)[1]
        with psycopg.connect(args.pg_admin_url, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                         "AND pid <> pg_backend_pid()", (name,))
            time.sleep(args.db_down)
            conn.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')
        watch.ended(broker_back=False)
        return f"database refusing connections for {args.db_down:.0f}s"
    # redis-empty: the significance requests of the runs scored meanwhile wait in Redis, which then loses them. Stopped
    # as compose stops a container: SIGTERM to the worker (a warm shutdown), SIGKILL of what is left 10 s later.
    with stack.lock:
        stack.stopped_on_purpose.add("worker-significance")
        significance = stack.procs["worker-significance"]
        os.kill(significance.pid, signal.SIGTERM)
        try:
            significance.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(significance.pid, signal.SIGKILL)
            significance.wait(timeout=10)
    # Until the load's end and every run ended: the lost requests are then the last ones, and no newer scored run
    # asks for the tests again; only the database's counter says they are owed (the case of issue 35).
    time.sleep(args.phase * 2 / 3)
    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
        wait_for(lambda: not conn.execute("SELECT 1 FROM campaign_run WHERE status IN "
                                          "('uploaded', 'validating', 'queued', 'scoring')").fetchone(), args.drain, 1)
    time.sleep(5)  # the last scored run's own request for the tests, sent just after its status
    with stack.lock:
        stack.stopped_on_purpose.add("redis")
        os.killpg(stack.procs["redis"].pid, signal.SIGTERM)
        stack.procs["redis"].wait(timeout=20)
        shutil.rmtree(stack.var / "appendonlydir", ignore_errors=True)
        stack.start("redis", redis_cmd)
        stack.stopped_on_purpose.discard("redis")
    wait_for(lambda: redis_ping(args.redis_port), 20, 0.1)
    watch.ended(broker_back=True)
    with stack.lock:
        stack.start("worker-significance", stack.commands["worker-significance"])
        stack.stopped_on_purpose.discard("worker-significance")
    return (f"significance worker stopped until the load's end and every run scored, then Redis restarted empty "
            f"(requests owed: {watch.owed})")


def inject(fault: str, stack: Stack, args, env: dict, redis_cmd: list[str]) -> str:
    scorer = stack.procs.get("worker-scoring")
    if fault == "pool":
        pool = children(scorer.pid) if scorer else []
        if not pool:
            return "no pool process found"
        os.kill(pool[0], signal.SIGKILL)
        return f"killed scoring pool process {pool[0]}"
    if fault == "worker":
        os.killpg(scorer.pid, signal.SIGKILL)
        return f"killed the scoring worker {scorer.pid} and its pool"
    if fault == "gunicorn":
        workers = children(stack.procs["web"].pid)
        if not workers:
            return "no gunicorn worker found"
        os.kill(workers[0], signal.SIGKILL)
        return f"killed gunicorn worker {workers[0]}"
    if fault == "redis":
        busy = wait_for(lambda: any(s == "scoring" for _, s, _ in json.loads(django_shell(env, HOLDERS))), 60, 0.5)
        args.watch = OutageWatch(stack, env)
        stop_redis(stack, args, redis_cmd, args.redis_down)
        args.watch.ended(broker_back=True)
        return f"Redis stopped for {args.redis_down:.0f}s " + ("while a run was being scored" if busy else
                                                              "(no run was being scored at that moment)")
    if fault in OUTAGES:
        return outage(fault, stack, args, env, redis_cmd)
    if fault == "paused":
        pools = {pid for name in ("worker-validation", "worker-scoring") if name in stack.procs
                 for pid in children(stack.procs[name].pid)}
        holder: list[int] = []

        def held_by_a_pool_process() -> bool:
            for _, _, token in json.loads(django_shell(env, HOLDERS)):
                pid = int(token.split(":")[1])
                if pid in pools:
                    holder.append(pid)
                    return True
            return False

        if not wait_for(held_by_a_pool_process, 60, 0.2):
            return "no run held by a pool process"
        os.kill(holder[0], signal.SIGSTOP)
        time.sleep(args.pause)
        os.kill(holder[0], signal.SIGCONT)
        return f"pool process {holder[0]} paused {args.pause:.0f}s while holding a run"
    if fault in ("sharded", "shard"):
        return sharded_run(stack, args, env, kill=fault == "shard")
    if fault == "fs":
        staging = Path(env["PARSEVAL_VAR_DIR"]) / "media" / ".staging"
        aside = staging.with_name(".staging-aside")
        staging.mkdir(parents=True, exist_ok=True)
        staging.rename(aside)
        staging.write_text("in the way")
        time.sleep(args.fs_down)
        staging.unlink()
        aside.rename(staging)
        return f"staging directory unusable for {args.fs_down:.0f}s"
    raise ValueError(fault)


# -- a sharded run with one shard worker killed ----------------------------------------------------------

# Every reference document but oral_delic_1 (its repeated relation ids are tolerated in gold only): a run that is
# the gold itself is valid. The load's campaign (280 sentences) stays below the threshold: one task per run.
SHARDED_FILES = [p.name for p in sorted((REPO / "data" / "easy-ref" / "ref").glob("*.xml"))
                 if p.name != "oral_delic_1.xml"]
SHARD_SENTENCES = 300

SHARD_SETUP = """
import json
from rest_framework.authtoken.models import Token
from tests import factories
campaign = factories.make_easy_campaign({files!r}, slug="sharded-loadfaults", runs_per_team=100)
user = factories.make_user("sharded-team")
factories.make_team(campaign, user, name="Sharded team")
open({run_zip!r}, "wb").write(factories.gold_run_zip({files!r}))
print("JSON:" + json.dumps({{"slug": campaign.slug, "token": Token.objects.create(user=user).key}}))
"""


def sharded_run(stack: Stack, args, env: dict, *, kill: bool) -> str:
    """Upload the sharded run; if ``kill``, SIGKILL the scoring pool process counting one of its shards, not the
    process of its coordinator."""
    import psycopg

    run_zip = Path(env["PARSEVAL_VAR_DIR"]) / "sharded-run.zip"
    if not run_zip.exists():
        args.sharded_fixtures = json.loads(django_shell(env, SHARD_SETUP.format(files=SHARDED_FILES,
                                                                                run_zip=str(run_zip))))
    fixtures = args.sharded_fixtures
    body, ctype = multipart({"name": f"sharded {uuid.uuid4().hex[:8]}", "scope": "test"},
                            ("file", "run.zip", run_zip.read_bytes()))
    req = urllib.request.Request(f"http://127.0.0.1:{args.web_port}/api/campaigns/{fixtures['slug']}/runs/", data=body,
                                 headers={"Authorization": f"Token {fixtures['token']}", "Content-Type": ctype})
    with urllib.request.urlopen(req, timeout=60) as resp:
        run_id = json.loads(resp.read())["id"]
    args.sharded_runs = {**getattr(args, "sharded_runs", {}), ("shard" if kill else "sharded"): {"id": run_id}}
    if not kill:
        return f"sharded run {run_id} uploaded"
    pid = lambda token: int(token.split(":")[1])  # noqa: E731 (host:pid:task:nonce)
    deadline = time.monotonic() + args.drain
    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute("SELECT status, claimed_by FROM campaign_run WHERE id = %s", (run_id,)).fetchone()
            if row[0] in FINAL:
                return f"sharded run {run_id} ended ({row[0]}) before a shard was seen counted by another process"
            pools = set(children(stack.procs["worker-scoring"].pid))
            if row[0] == "scoring" and row[1]:
                takers = conn.execute("SELECT taken_by FROM evaluation_scoringshard WHERE run_id = %s AND "
                                      "status = 'running'", (run_id,)).fetchall()
                victims = [pid(t) for (t,) in takers if pid(t) in pools and pid(t) != pid(row[1])]
                if victims:
                    os.kill(victims[0], signal.SIGKILL)
                    args.sharded_runs["shard"]["killed_at"] = time.time()
                    shards = conn.execute("SELECT count(*) FROM evaluation_scoringshard WHERE run_id = %s",
                                          (run_id,)).fetchone()[0]
                    return (f"sharded run {run_id} ({shards} shards): killed scoring pool process {victims[0]} "
                            f"while it counted a shard")
            time.sleep(0.02)
    return f"sharded run {run_id}: no shard seen counted by a process other than its coordinator"


def up_to_final_p95(outcome: dict) -> float | None:
    accepted = set(outcome["accepted"])
    spans = sorted(c - u for pk, s, _, _, u, c, _ in outcome["state"].get("runs", []) if pk in accepted and s in FINAL)
    return spans[min(len(spans) - 1, int(0.95 * len(spans)))] if spans else None


def shard_report(args, outcomes: list[dict], env: dict) -> None:
    """The sharded runs' ends (the killed one's after the kill), and the other runs' upload-to-final p95 in the
    baseline and in the scenarios with a sharded run."""
    runs = getattr(args, "sharded_runs", {})
    if not runs:
        return
    p95 = {o["scenario"]: up_to_final_p95(o) for o in outcomes if o["scenario"] in ("baseline", "sharded", "shard")}
    found = {}
    wait_for(lambda: found.update({r[0]: r for r in json.loads(django_shell(env, REPORT))["runs"]}) or
             all(found.get(r["id"], [None, ""])[1] in FINAL for r in runs.values()), args.drain, 2)
    for name, shard in runs.items():
        run = found.get(shard["id"])
        if run is None or run[1] not in FINAL:
            print(f"{name}: the sharded run {shard['id']} is {run[1] if run else 'missing'}")
            continue
        since = (f"{run[5] - shard['killed_at']:.1f} s after the kill" if "killed_at" in shard
                 else f"{run[5] - run[4]:.1f} s after its upload")
        print(f"{name}: the sharded run {shard['id']} ended {run[1]} {since}, with {run[2]} result(s)")
    print("other runs' upload-to-final p95: " + ", ".join(f"{k} {v:.1f} s" if v is not None else f"{k} n/a"
                                                         for k, v in p95.items()))


# -- scenarios -------------------------------------------------------------------------------------

def run_scenario(name: str, stack: Stack, load: Load, args, env: dict, redis_cmd: list[str]) -> dict:
    load.scenario = name
    started = time.time()
    what = ""
    if name == "burst":
        teams = [threading.Thread(target=load.upload, args=(i, args.burst_slug)) for i in range(args.burst_teams)]
        for t in teams:
            t.start()
        for t in teams:
            t.join()
        last_upload = started
    else:
        stop = threading.Event()
        threads = [threading.Thread(target=load.team, args=(stop, i, args.upload_interval, args.teams), daemon=True)
                   for i in range(args.teams)]
        for t in threads:
            t.start()
        if name != "baseline":
            time.sleep(args.phase / 3)
            what = inject(name, stack, args, env, redis_cmd)
        time.sleep(max(0.0, started + args.phase - time.time()))
        stop.set()
        for t in threads:
            t.join(timeout=90)
        last_upload = time.time()
    accepted = [pk for pk, _ in load.accepted[name]]
    state = {}
    deadline = time.time() + args.drain
    drained_at = None
    while time.time() < deadline:
        state = json.loads(django_shell(env, REPORT))
        status = {r[0]: r[1] for r in state["runs"]}
        if all(status.get(pk) in FINAL or pk not in status for pk in accepted):
            drained_at = time.time()
            break
        time.sleep(2)
    outcome = {"scenario": name, "what": what, "answers": dict(load.answers[name]), "accepted": accepted,
               "state": state, "drain": (drained_at - last_upload) if drained_at else None, "started": started,
               "ended": time.time()}
    watch = vars(args).pop("watch", None)
    if watch is not None:
        wait_for(lambda: watch.lines is not None and (watch.broker_back is None or watch.covered_after is not None),
                 args.drain, 1)
        outcome["watch"] = watch
    if name == "burst" and drained_at and args.db == "postgres":
        # The paired tests catch up once a computation that started after the last scored run has finished.
        def caught_up() -> bool:
            mark = json.loads(django_shell(env, REPORT))["significance"].get(str(args.burst_id))
            return bool(mark) and mark[1] >= mark[0]
        outcome["significance"] = (time.time() - started) if wait_for(caught_up, args.drain, 2) else None
    return outcome


def summary(outcome: dict) -> dict:
    runs = {r[0]: r for r in outcome["state"].get("runs", [])}
    accepted = outcome["accepted"]
    rows = [runs.get(pk) for pk in accepted]
    present = [r for r in rows if r is not None]
    return {
        "accepted": len(accepted),
        "refused": sum(n for s, n in outcome["answers"].items() if s != 201),
        "scored once": sum(1 for r in present if r[1] == "scored" and r[2] == 1),
        "stuck": sum(1 for r in present if r[1] not in FINAL),
        "duplicated": sum(1 for r in present if r[3] > 1),
        "lost": len(rows) - len(present),
        "contradictions": sum(1 for r in present if (r[1] == "scored") != (r[3] >= 1)),
        "failed": sum(1 for r in present if r[1] == "failed"),
    }


def report(args, outcomes: list[dict], load: Load, stack: Stack) -> None:
    print(f"\n== load_faults: db={args.db} phase={args.phase:.0f}s teams={args.teams} every {args.upload_interval:.0f}s "
          f"readers={args.readers} burst={args.burst_teams} teams")
    head = ["scenario", "accepted", "scored once", "stuck", "duplicated", "lost", "contradictions", "time to drain"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for o in outcomes:
        s = summary(o)
        drain = f"{o['drain']:.0f} s" if o["drain"] is not None else f"not drained in {args.drain:.0f} s"
        print(f"| {o['scenario']} | {s['accepted']} | {s['scored once']} | {s['stuck']} | {s['duplicated']} | "
              f"{s['lost']} | {s['contradictions']} | {drain} |")
    for o in outcomes:
        s = summary(o)
        extra = []
        if o["what"]:
            extra.append(o["what"])
        other = {k: v for k, v in o["answers"].items() if k != 201}
        if other:
            extra.append("upload answers other than 201: " + ", ".join(f"{k} x{v}" for k, v in other.items()))
        sharded = {s["id"] for s in getattr(args, "sharded_runs", {}).values()}  # uploaded apart from the load
        unanswered = [r for r in o["state"].get("runs", []) if o["started"] <= r[4] < o["ended"]
                      and r[0] not in set(o["accepted"]) | sharded]
        if unanswered:  # stored by the server, but the client never saw the 201 (it timed out, or was cut)
            extra.append(f"{len(unanswered)} more run(s) stored without a 201 reaching the client: "
                         + str(dict(Counter(r[1] for r in unanswered))))
        if s["failed"]:
            reasons = Counter(r[6][:90] for r in o["state"]["runs"] if r[0] in o["accepted"] and r[1] == "failed")
            extra.append(f"failed: {dict(reasons)}")
        if "significance" in o:
            sig = o["significance"]
            extra.append("paired tests caught up " + (f"{sig:.0f} s after the burst" if sig is not None else "never"))
        if extra:
            print(f"{o['scenario']}: " + "; ".join(extra))
    shard_report(args, outcomes, stack.env)
    print(f"process restarts by the supervisor: {dict(stack.restarts) or 'none'}")
    errors = {f"{kind} {status}": n for kind, counts in load.statuses.items() for status, n in counts.items()
              if status not in (200, 201) and kind != "upload"}
    print("reader errors: " + (", ".join(f"{k} x{v}" for k, v in sorted(errors.items())) or "none"))
    log_problems = Counter()
    for log in stack.var.glob("*.log"):
        text = log.read_text(errors="replace")
        for needle in ("database is locked", "Unrecoverable error", "has no attribute 'hostname'",
                       "writes nothing more"):
            if needle in text:
                log_problems[f"{log.stem}: {needle}"] += text.count(needle)
    if log_problems:
        print("in the logs: " + "; ".join(f"{k} x{v}" for k, v in sorted(log_problems.items())))


# -- the embedded default: make demo's server and worker, teams bursting ------------------------------

EMBEDDED_REPORT = """
import json
from campaign.models import Run
from evaluation.models import SignificanceSet
print("JSON:" + json.dumps({"runs": {pk: [s, u.timestamp(), c.timestamp()] for pk, s, u, c in
                                     Run.objects.values_list("pk", "status", "uploaded_at", "status_changed_at")},
                            "sets": list(SignificanceSet.objects.values_list("campaign_id", flat=True))}))
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def embedded_team(load: Load, stop: threading.Event, n: int, interval: float) -> None:
    """One team of the burst: its first upload at the same moment as every other team's, then one every ``interval``."""
    while not stop.is_set():
        load.upload(n)
        stop.wait(interval)


def embedded_bursting(args) -> None:
    """``make demo``'s own processes under load: ``manage.py serve_embedded`` (runserver, and one Celery worker of
    every queue with beat inside) on kombu's filesystem transport and SQLite, in development mode as the Makefile
    runs it. ``--teams`` teams upload at the same moment, then each every ``--upload-interval`` s for ``--phase`` s,
    with ``--readers`` readers. Prints the upload latencies at the client, how many accepted runs reached a final
    state (waiting at most ``--drain`` s), the time from upload to final state, and how many significance sets
    the worker computed for the campaign (eager mode computed one per scored run, inside the upload)."""
    var = Path(tempfile.mkdtemp(prefix="load-faults-embedded-"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CELERY_") and k not in ("DATABASE_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "PARSEVAL_DEVELOPMENT": "1", "PARSEVAL_VAR_DIR": str(var),
                "PARSEVAL_THROTTLE_UPLOADS": "100000/hour",
                "PARSEVAL_THROTTLE_ANON": "1000000/minute", "PARSEVAL_THROTTLE_USER": "1000000/minute"})
    stack = Stack(args, var, env)
    stop = threading.Event()
    try:
        subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
        fixtures = json.loads(django_shell(env, SETUP.format(teams=args.teams, run_zip=str(var / "run.zip"))))
        stack.start("web", [PY, "manage.py", "serve_embedded", f"127.0.0.1:{args.web_port}", "--noreload"])
        base = f"http://127.0.0.1:{args.web_port}"
        wait_http(base + "/accounts/login/", 60)
        time.sleep(3)  # the worker connects
        load = Load(base, fixtures["slug"], fixtures["tokens"], (var / "run.zip").read_bytes())
        load.scenario = "embedded"
        started = time.time()
        threads = [threading.Thread(target=load.reader, args=(stop, i), daemon=True) for i in range(args.readers)]
        threads += [threading.Thread(target=embedded_team, args=(load, stop, i, args.upload_interval), daemon=True)
                    for i in range(args.teams)]
        for t in threads:
            t.start()
        time.sleep(args.phase)
        stop.set()
        for t in threads:
            t.join(timeout=90)
        last_upload = time.time()
        accepted = [pk for pk, _ in load.accepted["embedded"]]
        state: dict = {}
        drained_at = None
        while time.time() < last_upload + args.drain:
            state = json.loads(django_shell(env, EMBEDDED_REPORT))
            if all(state["runs"].get(str(pk), ["gone"])[0] in FINAL for pk in accepted):
                drained_at = time.time()
                break
            time.sleep(2)
        runs = [state["runs"].get(str(pk)) for pk in accepted]
        final = [r for r in runs if r and r[0] in FINAL]
        up = load.latency["upload"]
        print(f"\n== load_faults: embedded default (make demo: serve_embedded, filesystem transport, SQLite), "
              f"{args.teams} teams bursting then every {args.upload_interval:.0f}s for {args.phase:.0f}s, "
              f"readers={args.readers}")
        print(f"uploads: {len(up)} sent, answers {dict(load.answers['embedded'])}; latency at the client "
              f"p50 {percentile(up, .5):.2f} s, p95 {percentile(up, .95):.2f} s, max {max(up, default=float('nan')):.2f} s")
        burst, later = up[:args.teams], up[args.teams:]  # answered in this order: the burst's before the next round
        print(f"  the burst's {len(burst)}: p50 {percentile(burst, .5):.2f} s, max {max(burst, default=float('nan')):.2f} s; "
              f"the {len(later)} after it: p50 {percentile(later, .5):.2f} s, p95 {percentile(later, .95):.2f} s")
        print(f"  load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
        print(f"runs accepted {len(accepted)}, final {len(final)} ({dict(Counter(r[0] for r in final))}), "
              f"not final {len(accepted) - len(final)}; "
              + (f"all final {drained_at - last_upload:.0f} s after the last upload" if drained_at
                 else f"not all final {args.drain:.0f} s after the last upload"))
        to_final = [r[2] - r[1] for r in final]
        print(f"upload to final state: p50 {percentile(to_final, .5):.1f} s, p95 {percentile(to_final, .95):.1f} s, "
              f"max {max(to_final, default=float('nan')):.1f} s")
        scored = sum(1 for r in final if r[0] == "scored")
        sets = state.get("sets", []).count(json.loads(django_shell(env, (
            "import json; from campaign.models import Campaign; "
            f"print('JSON:' + json.dumps(Campaign.objects.get(slug={fixtures['slug']!r}).pk))"))))
        print(f"significance sets computed for the campaign: {sets}, for {scored} scored runs")
        readers = {f"{kind} {status}": n for kind, counts in load.statuses.items() for status, n in counts.items()
                   if kind != "upload" and status != 200}
        print("reader errors: " + (", ".join(f"{k} x{v}" for k, v in sorted(readers.items())) or "none"))
        log = (var / "web.log").read_text(errors="replace")
        problems = {needle: log.count(needle) for needle in ("database is locked", "Traceback", "Unrecoverable error")
                    if needle in log}
        print("in the log of the server and worker: " + (str(problems) if problems else "no lock error, no traceback"))
        print(f"elapsed {time.time() - started:.0f} s")
    finally:
        stop.set()
        stack.stop_all()
        if args.keep:
            print(f"kept {var}")
        else:
            shutil.rmtree(var, ignore_errors=True)


# Scenarios that start a stack of their own, and so run alone: name -> function of the parsed arguments.
STANDALONE = {"embedded": embedded_bursting}


def outage_report(args, outcomes: list[dict], load: Load) -> None:
    watched = [o for o in outcomes if "watch" in o or load.json_5xx[o["scenario"]]]
    if not watched:
        return
    print(f"\n| scenario | log lines, fault to {LOG_AFTER_FAULT:.0f} s after | JSON-route outage answers (5xx) | "
          "of them HTML | significance asked again / covered, after the broker's return |")
    print("|---|---|---|---|---|")
    for o in watched:
        w = o.get("watch") or OutageWatch.unwatched()
        lines = "not counted" if w.lines is None else str(len(w.lines))
        asked = w.asked_again_after()
        covered = ("n/a" if w.broker_back is None else
                   (f"{asked:.0f} s" if asked is not None else "not asked again") + " / "
                   + (f"{w.covered_after:.0f} s" if w.covered_after is not None else "not within the wait"))
        print(f"| {o['scenario']} | {lines} | {load.json_5xx[o['scenario']]} | {load.html_on_json[o['scenario']]} | "
              f"{covered} |")
    for o in (o for o in watched if "watch" in o):
        lines = o["watch"].lines or []
        per_log = Counter(line.split(":", 1)[0] for line in lines)
        print(f"{o['scenario']}: log lines by process {dict(per_log)}; tracebacks "
              f"{sum('Traceback' in line for line in lines)}, CRITICAL {sum('CRITICAL' in line for line in lines)}")
        if args.keep:
            out = Path(tempfile.gettempdir()) / f"load-faults-{o['scenario']}-lines.txt"
            out.write_text("\n".join(lines))
            print(f"   the lines: {out}")


# -- main ------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--pg-admin-url", default=os.environ.get("PARSEVAL_BENCH_PG", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--redis-port", type=int, default=6393)
    parser.add_argument("--web-port", type=int, default=8093)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated, in order: " + ",".join(SCENARIOS))
    parser.add_argument("--phase", type=float, default=60, help="seconds of load per scenario (the fault a third in)")
    parser.add_argument("--drain", type=float, default=300, help="bound on waiting for a scenario's runs to end")
    parser.add_argument("--readers", type=int, default=10)
    parser.add_argument("--teams", type=int, default=10)
    parser.add_argument("--upload-interval", type=float, default=15.0, help="seconds between a team's uploads")
    parser.add_argument("--burst-teams", type=int, default=50)
    parser.add_argument("--redis-down", type=float, default=60.0)
    parser.add_argument("--pause", type=float, default=90.0)
    parser.add_argument("--fs-down", type=float, default=20.0)
    parser.add_argument("--db-down", type=float, default=30.0)
    parser.add_argument("--scoring-concurrency", type=int, default=2)
    parser.add_argument("--restart-delay", type=float, default=5.0)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory and database")
    args = parser.parse_args()
    args.scenarios = [f for f in args.scenarios.split(",") if f]
    if set(args.scenarios) & set(STANDALONE):
        if len(args.scenarios) > 1:
            parser.error(f"{', '.join(STANDALONE)}: a scenario with a stack of its own runs alone")
        return STANDALONE[args.scenarios[0]](args)
    for f in args.scenarios:
        if f not in SCENARIOS:
            parser.error(f"unknown scenario {f!r}")
    if args.db == "sqlite":
        unsupported = NEEDS_BROKER & set(args.scenarios)
        if unsupported:
            print(f"(sqlite: no broker or worker in the embedded default; skipping {sorted(unsupported)})")
            args.scenarios = [f for f in args.scenarios if f not in unsupported]

    var = Path(tempfile.mkdtemp(prefix="load-faults-"))
    db_url = scratch_database(args, var)
    env = stack_env(args, var, db_url, broker=args.db == "postgres")
    if {"sharded", "shard"} & set(args.scenarios):
        env["PARSEVAL_SHARD_SENTENCES"] = str(SHARD_SENTENCES)
    stack = Stack(args, var, env)
    stop = threading.Event()
    try:
        subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
        teams = max(args.teams, args.burst_teams)
        fixtures = json.loads(django_shell(env, SETUP.format(teams=teams, run_zip=str(var / "run.zip"))))
        args.burst_slug, args.burst_id = fixtures["burst_slug"], fixtures["burst_id"]
        redis_cmd = ["redis-server", "--port", str(args.redis_port), "--bind", "127.0.0.1", "--dir", str(var),
                     "--appendonly", "yes", "--save", ""]
        start_stack(stack, args, redis_cmd, broker=args.db == "postgres", tag=f"loadfaults{os.getpid()}")
        base = f"http://127.0.0.1:{args.web_port}"
        wait_http(base + "/accounts/login/", 60)
        time.sleep(3)  # the workers connect

        load = Load(base, fixtures["slug"], fixtures["tokens"], (var / "run.zip").read_bytes())
        threads = [threading.Thread(target=stack.supervise, args=(stop,), daemon=True)]
        threads += [threading.Thread(target=load.reader, args=(stop, i), daemon=True) for i in range(args.readers)]
        for t in threads:
            t.start()
        outcomes = []
        for name in args.scenarios:
            print(f"-- scenario {name}", flush=True)
            outcomes.append(run_scenario(name, stack, load, args, env, redis_cmd))
            s = summary(outcomes[-1])
            print(f"   {s}; drained in {outcomes[-1]['drain']}", flush=True)
        stop.set()
        report(args, outcomes, load, stack)
        outage_report(args, outcomes, load)
    finally:
        stop.set()
        tear_down(args, stack, db_url, var)


if __name__ == "__main__":
    main()
