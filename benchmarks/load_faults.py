"""Load and fault test of the production-like stack, on loopback only.

Starts its own Redis (spare port, append-only like the compose file), gunicorn
(3 workers), one Celery worker (prefork, concurrency 2) and Celery beat against a
scratch PostgreSQL database (``--db postgres``) or the embedded SQLite default
(``--db sqlite``: no broker, scoring in the web process). Readers and uploading
teams hit the web app while faults are injected on a schedule:

* ``pool``: SIGKILL of one pool process of the worker;
* ``worker``: SIGKILL of the whole worker (a supervisor restarts it 5 s later,
  as compose's ``restart:`` policy does);
* ``redis``: Redis stopped for 20 s, then started again on the same data;
* ``gunicorn``: SIGKILL of one gunicorn worker process.

Then it waits (bounded) for every accepted upload to end, and prints: requests,
errors by status, p50/p95 per endpoint class, uploads accepted, runs scored once,
stuck, duplicated, and the time to recovery after each fault (from the fault to
the moment every run accepted before it had ended).

    .venv/bin/python benchmarks/load_faults.py                       # PostgreSQL, ~4 minutes
    .venv/bin/python benchmarks/load_faults.py --db sqlite --faults gunicorn
    .venv/bin/python benchmarks/load_faults.py --duration 600 --readers 20 --teams 10
"""
from __future__ import annotations

import argparse
import io
import json
import os
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
FAULTS = ("pool", "worker", "redis", "gunicorn")


# -- processes ------------------------------------------------------------------------------------

class Stack:
    """The processes of the stack; each is started again by :meth:`supervise` if it dies (like compose)."""

    def __init__(self, args, var: Path, env: dict):
        self.args, self.var, self.env = args, var, env
        self.procs: dict[str, subprocess.Popen] = {}
        self.commands: dict[str, list[str]] = {}
        self.restarts = Counter()
        self.stopped_on_purpose: set[str] = set()
        self.lock = threading.Lock()

    def start(self, name: str, command: list[str], env: dict | None = None) -> subprocess.Popen:
        self.commands[name] = command
        log = open(self.var / f"{name}.log", "ab")
        proc = subprocess.Popen(command, cwd=REPO, env=env or self.env, stdout=log, stderr=subprocess.STDOUT,
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


# -- scratch database and fixtures ---------------------------------------------------------------------

def scratch_database(args, var: Path) -> str:
    if args.db == "sqlite":
        return f"sqlite:///{var / 'db.sqlite3'}"
    import psycopg

    name = f"parseval_loadfaults_{os.getpid()}"
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


SETUP = """
import json, sys
from rest_framework.authtoken.models import Token
from tests import factories
campaign = factories.make_easy_campaign(slug="loadfaults", runs_per_team=10000, invalid_uploads_per_day=10000)
tokens = []
for i in range({teams}):
    user = factories.make_user(f"team{{i}}")
    factories.make_team(campaign, user, name=f"Load team {{i}}")
    tokens.append(Token.objects.create(user=user).key)
open({run_zip!r}, "wb").write(factories.gold_run_zip())  # every team uploads the gold itself: a valid run
print("JSON:" + json.dumps({{"slug": campaign.slug, "tokens": tokens}}))
"""

IN_PROGRESS = """
import json
from campaign.models import Run
print("JSON:" + json.dumps(list(Run.objects.filter(status__in=("validating", "queued", "scoring")).values_list("pk", flat=True))))
"""

REPORT = """
import json, sys
from django.db.models import Count
from campaign.models import Run
from evaluation.models import Result
rows = list(Run.objects.annotate(n=Count("results")).values_list("pk", "status", "n", "uploaded_at", "status_changed_at"))
print("JSON:" + json.dumps([[pk, s, n, u.timestamp(), c.timestamp()] for pk, s, n, u, c in rows]))
"""


def django_shell(env: dict, code: str) -> str:
    out = subprocess.run([PY, "manage.py", "shell", "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"manage.py shell failed:\n{out.stderr}")
    return [line for line in out.stdout.splitlines() if line.startswith("JSON:")][-1][5:]


# -- load ------------------------------------------------------------------------------------------

class Load:
    def __init__(self, base: str, slug: str, tokens: list[str], run_zip: bytes):
        self.base, self.slug, self.tokens, self.run_zip = base, slug, tokens, run_zip
        self.latency = defaultdict(list)
        self.statuses = defaultdict(Counter)
        self.accepted: list[tuple[int, float]] = []
        self.lock = threading.Lock()

    def request(self, kind: str, path: str, *, data: bytes | None = None, headers: dict | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        start = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, body = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        except Exception as exc:  # refused, reset, cut short: the client side of a fault
            status, body = f"conn:{type(exc).__name__}", b""
        with self.lock:
            self.latency[kind].append(time.monotonic() - start)
            self.statuses[kind][status] += 1
        return status, body

    def reader(self, stop: threading.Event, n: int) -> None:
        paths = [("api", "/api/campaigns/"), ("api", f"/api/campaigns/{self.slug}/"),
                 ("page", f"/campaigns/{self.slug}/"), ("page", "/")]
        i = n
        while not stop.wait(0.5):
            kind, path = paths[i % len(paths)]
            self.request(kind, path)
            i += 1

    def team(self, stop: threading.Event, n: int, interval: float) -> None:
        token = self.tokens[n]
        auth = {"Authorization": f"Token {token}"}
        mine: list[int] = []
        time.sleep(n * interval / max(len(self.tokens), 1))
        while not stop.is_set():
            body, ctype = multipart({"name": f"run {uuid.uuid4().hex[:8]}", "scope": "test"},
                                    ("file", "run.zip", self.run_zip))
            status, answer = self.request("upload", f"/api/campaigns/{self.slug}/runs/", data=body,
                                          headers={**auth, "Content-Type": ctype})
            if status == 201:
                pk = json.loads(answer)["id"]
                mine.append(pk)
                with self.lock:
                    self.accepted.append((pk, time.time()))
            stop.wait(interval / 2)
            for pk in mine[-2:]:
                self.request("status", f"/api/runs/{pk}/", headers=auth)
            stop.wait(interval / 2)


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

def inject(fault: str, stack: Stack, args, redis_cmd: list[str]) -> str:
    if fault == "pool":
        worker = stack.procs.get("worker")
        pool = children(worker.pid) if worker else []
        if not pool:
            return "no pool process found"
        os.kill(pool[0], signal.SIGKILL)
        return f"killed pool process {pool[0]}"
    if fault == "worker":
        worker = stack.procs["worker"]
        os.killpg(worker.pid, signal.SIGKILL)
        return f"killed worker {worker.pid} and its pool"
    if fault == "gunicorn":
        workers = children(stack.procs["web"].pid)
        if not workers:
            return "no gunicorn worker found"
        os.kill(workers[0], signal.SIGKILL)
        return f"killed gunicorn worker {workers[0]}"
    if fault == "redis":
        with stack.lock:
            stack.stopped_on_purpose.add("redis")
            proc = stack.procs["redis"]
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        time.sleep(args.redis_down)
        with stack.lock:
            stack.start("redis", redis_cmd)
            stack.stopped_on_purpose.discard("redis")
        return f"Redis stopped for {args.redis_down:.0f}s"
    raise ValueError(fault)


# -- report ----------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def report(args, load: Load, runs: list, faults: list[tuple[str, float, float, str]], stack: Stack, elapsed: float) -> None:
    accepted = {pk for pk, _ in load.accepted}
    by_pk = {r[0]: r for r in runs}
    total = sum(sum(c.values()) for c in load.statuses.values())
    errors = Counter()
    for kind, counts in load.statuses.items():
        for status, n in counts.items():
            if status not in (200, 201):
                errors[f"{kind} {status}"] += n
    print(f"\n== load_faults: db={args.db} duration={args.duration:.0f}s readers={args.readers} teams={args.teams} "
          f"faults={','.join(args.faults) or 'none'} (wall {elapsed:.0f}s)")
    print(f"requests: {total}   errors: {sum(errors.values())}  " + "  ".join(f"[{k}]={v}" for k, v in sorted(errors.items())))
    print(f"{'endpoint class':<15}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}  statuses")
    for kind in sorted(load.latency):
        lat = load.latency[kind]
        print(f"{kind:<15}{len(lat):>9}{percentile(lat, .5) * 1000:>9.0f}{percentile(lat, .95) * 1000:>9.0f}  "
              + " ".join(f"{s}:{n}" for s, n in sorted(load.statuses[kind].items(), key=str)))
    final = [pk for pk in accepted if pk in by_pk and by_pk[pk][1] in FINAL]
    once = [pk for pk in accepted if pk in by_pk and by_pk[pk][1] == "scored" and by_pk[pk][2] == 1]
    duplicated = [pk for pk in accepted if pk in by_pk and by_pk[pk][2] > 1]
    stuck = sorted(pk for pk in accepted if pk not in by_pk or by_pk[pk][1] not in FINAL)
    status_counts = Counter(by_pk[pk][1] for pk in accepted if pk in by_pk)
    print(f"uploads accepted: {len(accepted)}   ended: {len(final)} ({dict(status_counts)})")
    print(f"runs scored once: {len(once)}   duplicated: {len(duplicated)}   stuck: {len(stuck)}"
          + (f" {stuck[:10]}" if stuck else ""))
    print(f"process restarts by the supervisor: {dict(stack.restarts) or 'none'}")
    # Recovery after a fault: from the fault until every run being scored at that moment had ended, and until
    # the first run ended after the fault was over (scoring going again).
    for fault, started, ended, what, being_scored in faults:
        rows = [by_pk.get(pk) for pk in being_scored]
        never = [pk for pk, r in zip(being_scored, rows) if r is None or r[1] not in FINAL]
        if never:
            recovery = f"not recovered: {len(never)} of {len(rows)} run(s) being scored never ended"
        else:
            recovery = (f"{max([r[4] for r in rows] + [ended]) - started:.1f}s for the {len(rows)} run(s) "
                        f"being scored")
        resumed = [r[4] for r in runs if r[1] in FINAL and r[4] > ended]
        resumed_in = f"{min(resumed) - started:.1f}s" if resumed else "never"
        print(f"fault {fault:<9} at +{started - load.t0:5.0f}s  {what}; recovery: {recovery}; "
              f"next run ended after {resumed_in}")
    log_problems = Counter()
    for log in stack.var.glob("*.log"):
        text = log.read_text(errors="replace")
        for needle in ("database is locked", "Unrecoverable error", "has no attribute 'hostname'"):
            if needle in text:
                log_problems[f"{log.stem}: {needle}"] += text.count(needle)
    if log_problems:
        print("in the logs: " + "; ".join(f"{k} x{v}" for k, v in sorted(log_problems.items())))


# -- main ------------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--pg-admin-url", default=os.environ.get("PARSEVAL_BENCH_PG", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--redis-port", type=int, default=6393)
    parser.add_argument("--web-port", type=int, default=8093)
    parser.add_argument("--duration", type=float, default=150, help="seconds of load (faults spread over it)")
    parser.add_argument("--drain", type=float, default=240, help="bound on waiting for accepted runs to end")
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--teams", type=int, default=10)
    parser.add_argument("--upload-interval", type=float, default=10.0, help="seconds between a team's uploads")
    parser.add_argument("--faults", default=",".join(FAULTS), help="comma-separated, in order: " + ",".join(FAULTS))
    parser.add_argument("--redis-down", type=float, default=20.0)
    parser.add_argument("--restart-delay", type=float, default=5.0)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory and database")
    args = parser.parse_args()
    args.faults = [f for f in args.faults.split(",") if f]
    for f in args.faults:
        if f not in FAULTS:
            parser.error(f"unknown fault {f!r}")
    if args.db == "sqlite":
        unsupported = {"pool", "worker", "redis"} & set(args.faults)
        if unsupported:
            print(f"(sqlite: no broker or worker in the embedded default; skipping {sorted(unsupported)})")
            args.faults = [f for f in args.faults if f not in unsupported]

    var = Path(tempfile.mkdtemp(prefix="load-faults-"))
    db_url = scratch_database(args, var)
    broker = f"redis://127.0.0.1:{args.redis_port}/0"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": db_url,
           "PARSEVAL_VAR_DIR": str(var), "DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "load-faults-" + uuid.uuid4().hex,
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "PARSEVAL_THROTTLE_UPLOADS": "100000/hour",
           "PARSEVAL_THROTTLE_ANON": "1000000/minute", "PARSEVAL_THROTTLE_USER": "1000000/minute"}
    if args.db == "postgres":
        env.update({"CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": broker, "CACHE_URL": f"redis://127.0.0.1:{args.redis_port}/1",
                    "CELERY_TASK_ALWAYS_EAGER": "0"})
    else:
        for key in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
            env.pop(key, None)
    stack = Stack(args, var, env)
    stop = threading.Event()
    started = time.time()
    try:
        subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
        fixtures = json.loads(django_shell(env, SETUP.format(teams=args.teams, run_zip=str(var / "run.zip"))))
        redis_cmd = ["redis-server", "--port", str(args.redis_port), "--bind", "127.0.0.1", "--dir", str(var),
                     "--appendonly", "yes", "--save", ""]
        if args.db == "postgres":
            stack.start("redis", redis_cmd)
            for _ in range(50):
                if redis_ping(args.redis_port):
                    break
                time.sleep(0.1)
        stack.start("web", [PY, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{args.web_port}",
                            "--workers", "3", "--timeout", "120"])
        if args.db == "postgres":
            stack.start("worker", [PY, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
                                   "--concurrency", "2", "-n", f"loadfaults{os.getpid()}@%h"])
            stack.start("beat", [PY, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
                                 "--schedule", str(var / "beat-schedule")])
        base = f"http://127.0.0.1:{args.web_port}"
        wait_http(base + "/accounts/login/", 60)
        time.sleep(3)  # the worker connects

        run_zip = (var / "run.zip").read_bytes()
        load = Load(base, fixtures["slug"], fixtures["tokens"], run_zip)
        load.t0 = time.time()
        threads = [threading.Thread(target=stack.supervise, args=(stop,), daemon=True)]
        threads += [threading.Thread(target=load.reader, args=(stop, i), daemon=True) for i in range(args.readers)]
        threads += [threading.Thread(target=load.team, args=(stop, i, args.upload_interval), daemon=True)
                    for i in range(args.teams)]
        for t in threads:
            t.start()
        faults = []
        slots = len(args.faults) + 1
        for i, fault in enumerate(args.faults, 1):
            target = load.t0 + args.duration * i / slots
            time.sleep(max(0.0, target - time.time()))
            being_scored = json.loads(django_shell(env, IN_PROGRESS))
            t_fault = time.time()
            what = inject(fault, stack, args, redis_cmd)
            faults.append((fault, t_fault, time.time(), what, being_scored))
            print(f"+{t_fault - load.t0:.0f}s {what}", flush=True)
        time.sleep(max(0.0, load.t0 + args.duration - time.time()))
        stop.set()
        # Keep supervising while the accepted runs drain.
        drain_stop = threading.Event()
        threading.Thread(target=stack.supervise, args=(drain_stop,), daemon=True).start()
        deadline = time.time() + args.drain
        runs = []
        while time.time() < deadline:
            runs = json.loads(django_shell(env, REPORT))
            states = {r[0]: r[1] for r in runs}
            if all(states.get(pk) in FINAL for pk, _ in load.accepted):
                break
            time.sleep(5)
        drain_stop.set()
        report(args, load, runs, faults, stack, time.time() - started)
    finally:
        stop.set()
        stack.stop_all()
        drop_scratch_database(args, db_url)
        if args.keep:
            print(f"kept {var}")
        else:
            shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
