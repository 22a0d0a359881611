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
The database is dropped at the end.

    .venv/bin/python benchmarks/significance_storage.py [--runs 8] [--arrivals 4] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
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
    args = parser.parse_args(argv)
    web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    web_results._admin_sql(f"CREATE DATABASE {web_results.DB_NAME}")
    try:
        with tempfile.TemporaryDirectory(prefix="significance-storage-") as tmp:
            web_results._setup_django(str(Path(tmp) / "var"), web_results.DB_NAME)
            from django.contrib.auth import get_user_model
            from django.db import connection, connections

            from evaluation.models import SignificanceFigure, SignificanceSet, SignificanceTable
            from evaluation.significance import sets as significance

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

            print(f"{'step':<16}{'runs':>5}{'pairs':>7}{'sets':>6}{'figure rows':>13}{'table rows':>12}"
                  f"{'MB on disk':>12}{'after VACUUM':>14}")
            steps = ["first"] + ["arrival"] * args.arrivals + ["again"] * args.repeats
            for step in steps:
                if step == "arrival":
                    web_results.keep_rows(web_results.add_runs(campaign, document, 1, have), rows, have)
                    have += 1
                computed = significance.compute(campaign)
                mb = size()
                with connection.cursor() as cursor:
                    for table in tables:
                        cursor.execute(f'VACUUM "{table}"')
                n = len(computed.results)
                print(f"{step:<16}{n:>5}{n * (n - 1) // 2:>7}{SignificanceSet.objects.count():>6}"
                      f"{SignificanceFigure.objects.count():>13}{SignificanceTable.objects.count():>12}"
                      f"{mb:>12.1f}{size():>14.1f}", flush=True)
            connections.close_all()
    finally:
        web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
