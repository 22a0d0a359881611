"""The paired significance tests of a whole campaign, at 20 and at 100 runs, and one run more, on PostgreSQL.

Creates a dedicated database (``BENCH_DB``, default ``parseval_bench_significance``, on the server of
``BENCH_POSTGRES``, default ``postgres://postgres@127.0.0.1:5432``), scores ONE real run with the engine (the
whole EASY reference corpus, gold perturbed as in the demo) and gives N synthetic runs its per-sentence rows
with found-correct counts thinned at a random rate of 0.7 to 1 (as ``benchmarks/web_results.py`` does). Then
it times :func:`evaluation.significance.sets.compute` (every pair, every figure: 40 EASY figures, 1,000
paired bootstrap resamples, Holm across pairs, Benjamini–Hochberg across each table, agreement across genres,
stored) for 20 runs (190 pairs) and for 100 runs (4,950 pairs) computed at once (nothing stored before), and
the computation after one more run arrives (101 runs: the 100 pairs it adds; the others kept, and the other
runs' figures read from the per-result cache, evaluation/significance/run_cache.py), each with
its wall time, the CPU time of this process, the resident memory before and its peak during the
computation (Linux: VmHWM, reset before each), each computation in a process of its own as the significance
worker runs it, and the load average (1 minute) beside it. A computation "at
once" starts from nothing: no stored pair and no kept figures. It checks that the same seed gives the same
set, byte for byte (computed again with every run's figures kept: kept and recomputed figures give the same
set), and that the set extended by one run is the one computed at once from nothing. The database is
dropped at the end.

    .venv/bin/python benchmarks/significance_speed.py [--runs 20 100] [--more 1]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import web_results  # noqa: E402  (after the path is set)
from parseval.evaluation.threads import BLAS_THREADS  # noqa: E402

web_results.DB_NAME = os.environ.get("BENCH_DB", "parseval_bench_significance")


def measured(label: str, campaign, table: list) -> object:
    """One computation in a process of its own, as the significance worker runs it (Django set up, one BLAS
    thread, then :func:`compute`): wall, CPU of the computation, that process's resident memory before it and its peak
    during it, the load average beside it. This process's own memory (the set-up's engine run, the rows it
    hands out) is not counted."""
    from evaluation.models import SignificanceSet

    load = os.getloadavg()[0]
    # one BLAS thread, as config/celery.py sets for every worker process
    env = {**os.environ, **{name: "1" for name in BLAS_THREADS}}
    child = subprocess.run([sys.executable, "-c", CHILD, str(campaign.pk)], check=True, capture_output=True,
                           text=True, cwd=REPO, env=env)
    out = json.loads(child.stdout.strip().splitlines()[-1])
    computed = SignificanceSet.objects.get(pk=out["set"])
    n = len(computed.results)
    seconds, cpu, before, peak = out["wall"], out["cpu"], out["before"], out["peak"]
    table.append((label, n, n * (n - 1) // 2, computed.stored, seconds, cpu, before, peak, load,
                  os.getloadavg()[0]))
    print(f"{label}: {n} runs, {computed.stored:,} stored differences: {seconds:.1f} s wall, {cpu:.1f} s CPU, "
          f"RSS {before:.0f} MiB before, peak {peak:.0f} MiB during (load average {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after)", flush=True)
    return computed


CHILD = """
import gc, json, os, sys, time
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from benchmarks.significance_speed import _reset_peak, _status
from campaign.models import Campaign
from evaluation.significance import sets
campaign = Campaign.objects.get(pk=int(sys.argv[1]))
gc.collect()
before = _status("VmRSS")
_reset_peak()
t0, c0 = time.perf_counter(), time.process_time()
computed = sets.compute(campaign)
print(json.dumps({"set": computed.pk, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "before": before, "peak": _status("VmHWM")}))
"""


def _reset_peak() -> None:
    """Resets the process's peak RSS (VmHWM), so that each computation's own peak is read (Linux)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _status(field: str) -> float:
    """VmRSS or VmHWM of this process in MiB (Linux); the peak RSS so far elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--more", type=int, default=1, help="runs arriving one by one after the largest N")
    args = parser.parse_args(argv)
    web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    web_results._admin_sql(f"CREATE DATABASE {web_results.DB_NAME}")
    failed = False
    try:
        with tempfile.TemporaryDirectory(prefix="significance-bench-") as tmp:
            web_results._setup_django(str(Path(tmp) / "var"), web_results.DB_NAME)
            from django.contrib.auth import get_user_model
            from django.db import connections

            from evaluation.models import SignificanceTable
            from evaluation.significance import run_cache, sets as significance

            def from_nothing():  # no stored pair, no kept figures
                SignificanceTable.objects.all().delete()
                shutil.rmtree(run_cache.cache_dir())

            t0 = time.perf_counter()
            document, rows = web_results.engine_output(0, Path(tmp))
            print(f"one real engine output in {time.perf_counter() - t0:.1f} s; per-sentence rows: "
                  f"{rows[2].shape[0]:,} gold sentences x {rows[2].shape[1]} columns")
            organiser = get_user_model().objects.create_user("organiser", password=None)
            campaign = web_results.build_campaign(document, organiser)
            have, table = 0, []
            for n in sorted(args.runs):
                web_results.keep_rows(web_results.add_runs(campaign, document, n - have, have), rows, have)
                have = n
                from_nothing()  # every pair and every run's figures computed, as a first computation does
                computed = measured(f"at once ({n})", campaign, table)
                if n == min(args.runs):
                    first = significance.set_bytes(computed)
                    SignificanceTable.objects.all().delete()  # the runs' figures kept: read, not recomputed
                    again = significance.compute(campaign)  # seeded: the same set
                    same = significance.set_bytes(again) == first
                    failed |= not same
                    print(f"recomputed with the same seed from the kept figures: {'the same' if same else 'DIFFERENT'} "
                          f"set, byte for byte")
            for k in range(args.more):
                web_results.keep_rows(web_results.add_runs(campaign, document, 1, have), rows, have)
                have += 1
                computed = measured(f"one more ({have})", campaign, table)
            if args.more:
                extended = significance.set_bytes(computed)
                from_nothing()
                same = significance.set_bytes(significance.compute(campaign)) == extended
                failed |= not same
                print(f"the set extended run by run {'is' if same else 'is NOT'} the set computed at once, byte for byte")
            print(f"\n{'computation':<18}{'runs':>5}{'pairs':>7}{'stored':>9}{'wall (s)':>10}{'CPU (s)':>9}"
                  f"{'RSS before':>12}{'peak':>7}{'load before/after':>19}")
            for label, n, pairs, stored, seconds, cpu, before, peak, load0, load1 in table:
                print(f"{label:<18}{n:>5}{pairs:>7}{stored:>9}{seconds:>10.1f}{cpu:>9.1f}{before:>12.0f}{peak:>7.0f}"
                      f"{load0:>12.1f} / {load1:.1f}")
            print(f"{os.cpu_count()} cores; RSS in MiB of the computing process (Django set up): before the "
                  f"computation and its peak during it")
            connections.close_all()
    finally:
        web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
