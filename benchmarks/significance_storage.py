"""What the significance tables hold as runs arrive in one campaign and the tests are asked for again, on PostgreSQL.

Creates a dedicated database (``BENCH_DB``, default ``parseval_bench_sig_storage``, on the server of
``BENCH_POSTGRES``), scores ONE real run with the engine (the EASY reference corpus, as
``benchmarks/significance_speed.py`` does), gives N synthetic runs its per-sentence rows, computes the
campaign's significance, then lets K more runs arrive one by one (a computation after each) and asks R times
more with nothing new. After each computation it prints the sets, the rows of each significance table and the
tables' size on disk (as left, and after the VACUUM autovacuum would run). Before issue 39 a set was a row
per pair and figure (about 40 per pair with EASY) and every computation added a whole set; now a set is a row
per figure (the pairs' headlines) and the pairs' tables, a row per figure and run, are shared by the sets
that compare the same runs: a new run adds its rows, a repeated request none.
It prints the significance worker's cache of per-result figures too (``cache MB``:
evaluation/significance/run_cache.py). With ``--reseeds K`` the campaign's seed then changes K times (a
new context each, computed twice, as a second request would), and the cache is swept as the upkeep
(evaluation/upkeep.py) would find it an hour later, then with ``--cache-mb`` as its bound.
The database is dropped at the end.

    .venv/bin/python benchmarks/significance_storage.py [--runs 8] [--arrivals 4] [--repeats 3] [--reseeds 2]
        [--cache-mb 50]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import web_results  # noqa: E402  (after the path is set)

web_results.DB_NAME = os.environ.get("BENCH_DB", "parseval_bench_sig_storage")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--arrivals", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reseeds", type=int, default=0)
    parser.add_argument("--cache-mb", type=float, default=None)
    args = parser.parse_args(argv)
    web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    web_results._admin_sql(f"CREATE DATABASE {web_results.DB_NAME}")
    try:
        with tempfile.TemporaryDirectory(prefix="significance-storage-") as tmp:
            web_results._setup_django(str(Path(tmp) / "var"), web_results.DB_NAME)
            from django.contrib.auth import get_user_model
            from django.db import connection, connections

            from django.conf import settings

            from evaluation.models import SignificanceFigure, SignificanceSet, SignificanceTable
            from evaluation.significance import run_cache, sets as significance

            document, rows = web_results.engine_output(0, Path(tmp))
            organiser = get_user_model().objects.create_user("organiser", password=None)
            campaign = web_results.build_campaign(document, organiser)
            web_results.keep_rows(web_results.add_runs(campaign, document, args.runs, 0), rows, 0)
            have = args.runs
            models = (SignificanceSet, SignificanceFigure, SignificanceTable)
            tables = [m._meta.db_table for m in models]

            def size() -> float:
                with connection.cursor() as cursor:
                    total = 0
                    for table in tables:
                        cursor.execute("SELECT pg_total_relation_size(%s)", [table])
                        total += cursor.fetchone()[0]
                return total / 2 ** 20

            def cache_mb() -> float:
                return sum(p.stat().st_size for p in run_cache.cache_dir().iterdir()) / 2 ** 20

            print(f"{'step':<16}{'runs':>5}{'pairs':>7}{'sets':>6}{'figure rows':>13}{'table rows':>12}"
                  f"{'MB on disk':>12}{'after VACUUM':>14}{'cache MB':>10}")
            steps = (["first"] + ["arrival"] * args.arrivals + ["again"] * args.repeats
                     + ["new seed", "again"] * args.reseeds)
            seed = None
            for step in steps:
                if step == "arrival":
                    web_results.keep_rows(web_results.add_runs(campaign, document, 1, have), rows, have)
                    have += 1
                if step == "new seed":
                    seed = (seed or significance.settings_of(campaign)["seed"]) + 1
                    metrics = campaign.metrics or {}
                    campaign.metrics = {**metrics, "significance": {**(metrics.get("significance") or {}),
                                                                   "seed": seed}}
                    campaign.save(update_fields=["metrics"])
                computed = significance.compute(campaign)
                mb = size()
                with connection.cursor() as cursor:
                    for table in tables:
                        cursor.execute(f'VACUUM "{table}"')
                n = len(computed.results)
                print(f"{step:<16}{n:>5}{n * (n - 1) // 2:>7}{SignificanceSet.objects.count():>6}"
                      f"{SignificanceFigure.objects.count():>13}{SignificanceTable.objects.count():>12}"
                      f"{mb:>12.1f}{size():>14.1f}{cache_mb():>10.1f}", flush=True)
            later = time.time() + settings.CELERY_TASK_TIME_LIMIT + 1
            cpu = time.process_time()
            found = run_cache.sweep(limit=1 << 62, now=later)
            cpu = time.process_time() - cpu
            print(f"sweep an hour later: {found['entries']} entries, {found['bytes'] / 2 ** 20:.1f} MB; "
                  f"{found['stale']} no set compares removed; {found['bytes_left'] / 2 ** 20:.1f} MB left "
                  f"({cpu * 1000:.0f} ms CPU)")
            cpu = time.process_time()
            found = run_cache.sweep(limit=1 << 62)
            print(f"sweep with nothing to remove: {found['entries']} entries "
                  f"({(time.process_time() - cpu) * 1000:.0f} ms CPU)")
            if args.cache_mb is not None:
                found = run_cache.sweep(limit=int(args.cache_mb * 2 ** 20), now=later)
                print(f"sweep bound to {args.cache_mb:g} MB: {found['evicted']} least recently used removed; "
                      f"{found['bytes_left'] / 2 ** 20:.1f} MB left")
            connections.close_all()
    finally:
        web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
