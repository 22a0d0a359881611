"""A campaign's throughput through the production-like stack: N reference-size EASY runs uploaded in one burst.

Starts the stack of :mod:`benchmarks.load_faults` on loopback (its own Redis, gunicorn with 3 workers, one
Celery worker per queue as ``docker-compose.yml`` runs them: validation 1, scoring 2, significance 1,
periodic 1, and beat) against a scratch PostgreSQL database, on the code of ``--repo`` (this checkout by
default: another checkout measures another version with the same harness). A hidden-test campaign gets the
whole EASY reference corpus as gold (``data/easy-ref/ref``, 22 documents, 3,585 sentences) and
``--already`` runs scored beforehand, in process, with their significance computed once; then ``--runs``
runs are uploaded at the same moment through the API.

The runs are what parsers return, not the project's writer's output: the reference with realistic errors
written by lxml in another shape (:mod:`benchmarks.easy_corpus`), a dozen such parses mixed document by
document so that no two runs are alike, and every ``--damaged-every``-th run damaged (one form's text
changed in one document: refused at validation with a located problem).

Prints, in the same run: runs per minute validated, scored and covered by a significance set (from the burst
to the last of each), each queue's lag (seconds from the step before to the step starting, per run: upload
to validating, queued to scoring, scored to covered), the deepest each Redis queue got, the CPU each worker
spent per run, the peak memory of each worker's processes, and the load average (other work on the host
counts: the figures are this run's, not the host's best). Nothing is asserted.

    .venv/bin/python benchmarks/campaign_throughput.py --runs 24 --already 0
    .venv/bin/python benchmarks/campaign_throughput.py --runs 50 --already 50 --repo ../other-checkout   # the same harness on another version
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
import zipfile
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.easy_corpus import REF, other_writer, perturb  # noqa: E402
from benchmarks.load_faults import (  # noqa: E402
    REPO, Stack, children, django_shell, multipart, redis_ping, scratch_database, stack_env,
    start_stack, tear_down, wait_http,
)

QUEUES = ("validation", "scoring", "significance", "celery")
WORKERS = ("worker-validation", "worker-scoring", "worker-significance", "worker-periodic", "web")
FINAL = ("scored", "invalid", "failed")

SETUP = """
import json
from pathlib import Path
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from campaign import kinds
from campaign.models import Run
from campaign.services.runs import upload_run
from tests import factories
limits = dict(runs_per_team=30000, invalid_uploads_per_day=30000, uploads_per_day=30000)
files = sorted(p.name for p in factories.EASY_REF.glob("*.xml"))
campaign = factories.make_easy_campaign(files, slug="throughput", **limits)
user = factories.make_user("throughput-team")
team = factories.make_team(campaign, user, name="Throughput team")
token = Token.objects.create(user=user).key
# scored in this process (Celery eager), the significance tests computed once at the end of the block
with kinds.coalesced(kinds.SIGNIFICANCE_TASK):
    for i, path in enumerate(sorted(Path({folder!r}).glob("already-*.zip"))):
        upload_run(campaign=campaign, team=team, user=user, name=f"already {{i}}", scope="test",
                   uploaded_file=SimpleUploadedFile("run.zip", path.read_bytes(), content_type="application/zip"))
statuses = {{}}
for s in Run.objects.filter(campaign=campaign).values_list("status", flat=True):
    statuses[s] = statuses.get(s, 0) + 1
print("JSON:" + json.dumps({{"slug": campaign.slug, "id": campaign.pk, "token": token, "already": statuses}}))
"""


# -- the runs ----------------------------------------------------------------------------------------------

def parses(count: int, seed: int) -> list[dict[str, bytes]]:
    """``count`` realistic parses of the reference: ``{file name: EASY XML}`` each (see the module)."""
    from parseval.annotations.easy.reader import read_document

    rnd = random.Random(seed)
    out: list[dict[str, bytes]] = [{} for _ in range(count)]
    for k, path in enumerate(sorted(REF.glob("*.xml"))):
        ref = read_document(path, gold=True)
        for i in range(count):
            out[i][path.name] = other_writer([perturb(s, rnd) for s in ref.sentences], path.name,
                                             single_quotes=(i + k) % 2 == 1)
    return out


def damaged(files: dict[str, bytes], rnd: random.Random) -> dict[str, bytes]:
    """The same run with one form's text changed in one document (a run that does not match the corpus)."""
    name = rnd.choice(sorted(files))
    data = files[name]
    at = data.index(b"<F ", len(data) // 2)
    at = data.index(b">", at) + 1
    return {**files, name: data[:at] + b"X" + data[at:]}


def run_zips(total: int, damaged_every: int, skip: int = 0, base: int = 12, seed: int = 39) -> list[tuple[bytes, bool]]:
    """``total`` run archives, each document taken from one of ``base`` parses (so no two runs are alike), every
    ``damaged_every``-th after the first ``skip`` damaged; ``(zip bytes, damaged)``."""
    pool = parses(min(base, total), seed)
    rnd = random.Random(seed)
    names = sorted(pool[0])
    zips = []
    for i in range(total):
        files = {name: pool[rnd.randrange(len(pool))][name] for name in names}
        bad = damaged_every > 0 and i >= skip and (i - skip) % damaged_every == damaged_every - 1
        if bad:
            files = damaged(files, rnd)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in files.items():
                z.writestr(name, data)
        zips.append((buffer.getvalue(), bad))
    return zips


# -- what is measured --------------------------------------------------------------------------------------

def tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def cpu_seconds(pid: int) -> float:
    """CPU of a process, its live descendants and its reaped children (user + system)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        total += (utime + stime + cutime + cstime) / tick
    return total


def peak_mb(pid: int) -> float:
    """The largest high-water mark (VmHWM) of a worker's processes."""
    best = 0.0
    for p in tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    best = max(best, int(line.split()[1]) / 1024)
        except OSError:
            pass
    return best


class Watch:
    """Samples every second: each run's status (when first seen in each), the significance sets, the queues'
    depths and each worker's peak memory."""

    def __init__(self, db_url: str, campaign_id: int, redis_port: int, stack: Stack):
        import psycopg
        import redis

        self.conn = psycopg.connect(db_url, autocommit=True)
        self.redis = redis.Redis(host="127.0.0.1", port=redis_port, db=0)
        self.campaign_id, self.stack = campaign_id, stack
        self.seen: dict[int, dict[str, float]] = {}  # run -> status -> first seen
        self.covered: dict[int, float] = {}  # run -> first complete significance set with its latest result
        self.depth = Counter()
        self.peak: dict[str, float] = {}
        self.watched: set[int] = set()

    def sample(self) -> None:
        now = time.time()
        for pk, status in self.conn.execute("SELECT id, status FROM campaign_run WHERE campaign_id = %s",
                                            (self.campaign_id,)):
            self.seen.setdefault(pk, {}).setdefault(status, now)
        results = dict(self.conn.execute(
            "SELECT r.id, r.run_id FROM evaluation_result r JOIN campaign_run u ON u.id = r.run_id "
            "WHERE u.campaign_id = %s", (self.campaign_id,)).fetchall())
        for (ids,) in self.conn.execute("SELECT results FROM evaluation_significanceset WHERE campaign_id = %s "
                                        "AND complete", (self.campaign_id,)):
            for rid in ids or ():
                run = results.get(rid)
                if run is not None:
                    self.covered.setdefault(run, now)
        for q in QUEUES:
            self.depth[q] = max(self.depth[q], self.redis.llen(q))
        for name in WORKERS:
            proc = self.stack.procs.get(name)
            if proc is not None:
                self.peak[name] = max(self.peak.get(name, 0.0), peak_mb(proc.pid))

    def done(self, watched: set[int]) -> bool:
        final = all(any(s in FINAL for s in self.seen.get(pk, {})) for pk in watched)
        scored = [pk for pk in watched if "scored" in self.seen.get(pk, {})]
        return final and all(pk in self.covered for pk in scored)


def minutes_rate(count: int, start: float, times: list[float]) -> str:
    if not times:
        return "n/a"
    span = max(times) - start
    return f"{count / (span / 60):.1f}" if span > 0 else "n/a"


def quantiles(values: list[float]) -> str:
    if not values:
        return "n/a"
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]  # noqa: E731
    return f"{pick(.5):.0f} / {pick(.95):.0f} / {ordered[-1]:.0f}"


# -- main --------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=24, help="runs uploaded in the burst (N)")
    ap.add_argument("--already", type=int, default=0, help="runs scored in the campaign before the burst (M)")
    ap.add_argument("--damaged-every", type=int, default=8, help="every k-th run of the burst is damaged (0: none)")
    ap.add_argument("--repo", type=Path, default=REPO, help="the checkout whose code the stack runs")
    ap.add_argument("--db", default="postgres", help=argparse.SUPPRESS)
    ap.add_argument("--pg-admin-url", default=os.environ.get("PARSEVAL_BENCH_PG",
                                                             "postgres://postgres@127.0.0.1:5432/postgres"))
    ap.add_argument("--db-name", default=f"parseval_throughput_{os.getpid()}")
    ap.add_argument("--redis-port", type=int, default=6396)
    ap.add_argument("--web-port", type=int, default=8096)
    ap.add_argument("--scoring-concurrency", type=int, default=2)
    ap.add_argument("--wait", type=float, default=3600, help="bound on waiting for the burst's runs (s)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory and database")
    args = ap.parse_args(argv)
    args.repo = args.repo.resolve()
    # stopped by a signal (a background job ignores SIGINT): the stack, the database and the folder go all the same
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    started = time.time()
    zips = run_zips(args.already + args.runs, args.damaged_every, skip=args.already)
    already, burst = [z for z, _ in zips[:args.already]], zips[args.already:]
    print(f"{len(zips)} runs written in {time.time() - started:.0f} s "
          f"({sum(len(z) for z, _ in zips) / len(zips) / 1e6:.1f} MB zipped each)", flush=True)

    var = Path(tempfile.mkdtemp(prefix="campaign-throughput-"))
    for i, data in enumerate(already):
        (var / f"already-{i:03d}.zip").write_bytes(data)
    db_url = scratch_database(args, var, args.db_name)
    env = stack_env(args, var, db_url)
    stack = Stack(args, var, env, repo=args.repo)
    redis_cmd = ["redis-server", "--port", str(args.redis_port), "--bind", "127.0.0.1", "--dir", str(var),
                 "--appendonly", "yes", "--save", ""]
    stop = threading.Event()
    try:
        import subprocess

        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=args.repo, env=env,
                       check=True)
        # The campaign and its runs already in are made before the workers start: a periodic sweep or the
        # significance worker must not meet the set the setup's own computation is writing.
        stack.start("redis", redis_cmd)
        for _ in range(50):
            if redis_ping(args.redis_port):
                break
            time.sleep(0.1)
        t = time.time()
        fixtures = json.loads(django_shell({**env, "CELERY_TASK_ALWAYS_EAGER": "1"}, SETUP.format(folder=str(var)),
                                           repo=args.repo))
        print(f"campaign set up with {args.already} runs scored in process and their significance computed, in "
              f"{time.time() - t:.0f} s: {fixtures['already']}", flush=True)
        start_stack(stack, args, redis_cmd, tag=f"throughput{os.getpid()}", with_redis=False)
        base = f"http://127.0.0.1:{args.web_port}"
        wait_http(base + "/accounts/login/", 60)
        time.sleep(3)  # the workers connect

        watch = Watch(db_url, fixtures["id"], args.redis_port, stack)
        cpu0 = {name: cpu_seconds(stack.procs[name].pid) for name in WORKERS}
        load0 = os.getloadavg()
        accepted: list[int] = []
        refused = Counter()
        lock = threading.Lock()

        def upload(i: int, data: bytes) -> None:
            body, ctype = multipart({"name": f"burst {i} {uuid.uuid4().hex[:6]}", "scope": "test"},
                                    ("file", "run.zip", data))
            req = urllib.request.Request(f"{base}/api/campaigns/{fixtures['slug']}/runs/", data=body,
                                         headers={"Authorization": f"Token {fixtures['token']}",
                                                  "Content-Type": ctype})
            try:
                with urllib.request.urlopen(req, timeout=300) as resp:
                    pk = json.loads(resp.read())["id"]
                with lock:
                    accepted.append(pk)
            except Exception as exc:  # counted, not raised: the table says how many were refused
                with lock:
                    refused[type(exc).__name__] += 1

        t0 = time.time()
        threads = [threading.Thread(target=upload, args=(i, z)) for i, (z, _) in enumerate(burst)]
        for th in threads:
            th.start()
        sampler_done = threading.Event()

        def sampler():
            while not stop.is_set():
                try:
                    watch.sample()
                except Exception as exc:  # a sample missed is not a result missed
                    print(f"(sample failed: {exc})", flush=True)
                if sampler_done.is_set():
                    return
                stop.wait(1.0)

        sampling = threading.Thread(target=sampler, daemon=True)
        sampling.start()
        for th in threads:
            th.join()
        uploaded_at = time.time()
        loads = []
        deadline = t0 + args.wait
        while time.time() < deadline:
            loads.append(os.getloadavg()[0])
            if accepted and watch.done(set(accepted)):
                break
            time.sleep(2)
        sampler_done.set()
        sampling.join(timeout=30)
        watch.sample()
        cpu = {name: cpu_seconds(stack.procs[name].pid) - cpu0[name] for name in WORKERS}
        peaks = dict(watch.peak)
        report(args, watch, accepted, refused, burst, t0, uploaded_at, cpu, peaks, load0, loads)
    finally:
        stop.set()
        tear_down(args, stack, db_url, var)
    return 0


def report(args, watch: Watch, accepted, refused, burst, t0, uploaded_at, cpu, peaks, load0, loads) -> None:
    seen = {pk: watch.seen.get(pk, {}) for pk in accepted}
    validated = [min(s.get("queued", 1e18), s.get("invalid", 1e18), s.get("scoring", 1e18), s.get("scored", 1e18))
                 for s in seen.values() if any(k in s for k in ("queued", "invalid", "scoring", "scored"))]
    scored = [s["scored"] for s in seen.values() if "scored" in s]
    covered = [watch.covered[pk] for pk in accepted if "scored" in seen[pk] and pk in watch.covered]
    statuses = Counter(next((k for k in FINAL if k in s), "not final") for s in seen.values())
    n_bad = sum(1 for _, bad in burst if bad)
    print(f"\n== campaign_throughput: {len(burst)} reference-size EASY runs ({n_bad} damaged) uploaded at once to a "
          f"hidden-test campaign with {args.already} runs already in; code of {args.repo}")
    print(f"uploads accepted {len(accepted)} in {uploaded_at - t0:.0f} s"
          + (f", refused {dict(refused)}" if refused else "") + f"; final statuses {dict(statuses)}")
    print("| step | runs | last at (s after the burst) | runs per minute |")
    print("|---|---|---|---|")
    for label, times in (("validated", validated), ("scored", scored), ("covered by significance", covered)):
        last = f"{max(times) - t0:.0f}" if times else "n/a"
        print(f"| {label} | {len(times)} | {last} | {minutes_rate(len(times), t0, times)} |")
    lag = {"validation (upload to validating)": [s["validating"] - s["uploaded"] for s in seen.values()
                                                 if "validating" in s and "uploaded" in s],
           "validation work (validating to queued or invalid)": [
               min(s.get("queued", 1e18), s.get("invalid", 1e18), s.get("scoring", 1e18)) - s["validating"]
               for s in seen.values() if "validating" in s and any(k in s for k in ("queued", "invalid", "scoring"))],
           "scoring (queued to scoring)": [s["scoring"] - s["queued"] for s in seen.values()
                                           if "scoring" in s and "queued" in s],
           "scoring work (scoring to scored)": [s["scored"] - s["scoring"] for s in seen.values()
                                                if "scored" in s and "scoring" in s],
           "significance (scored to covered)": [watch.covered[pk] - s["scored"] for pk, s in seen.items()
                                                if "scored" in s and pk in watch.covered]}
    print("\n| queue lag, seconds (1 s samples) | p50 / p95 / max |")
    print("|---|---|")
    for label, values in lag.items():
        print(f"| {label} | {quantiles(values)} |")
    print("deepest queue seen: " + ", ".join(f"{q} {watch.depth[q]}" for q in QUEUES))
    n_valid = max(1, len(scored))
    per = {"web": len(burst), "worker-validation": len(burst), "worker-scoring": n_valid,
           "worker-significance": n_valid, "worker-periodic": len(burst)}
    print("\n| process | CPU s | runs | CPU s per run | peak memory of one process (MB) |")
    print("|---|---|---|---|---|")
    for name in WORKERS:
        print(f"| {name} | {cpu[name]:.1f} | {per[name]} | {cpu[name] / per[name]:.2f} | {peaks.get(name, 0):.0f} |")
    print(f"\nload average: {' '.join(f'{x:.2f}' for x in load0)} before the burst; 1-minute average during it "
          f"mean {sum(loads) / max(1, len(loads)):.2f}, max {max(loads, default=0):.2f}; {os.cpu_count()} cores "
          "(other work on the host shares them)")


if __name__ == "__main__":
    sys.exit(main())
