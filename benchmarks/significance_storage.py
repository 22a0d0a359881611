"""What the significance tables hold after a few recomputations of one campaign, on PostgreSQL.

Creates a dedicated database (``parseval_bench_sig_storage`` on the server of ``BENCH_POSTGRES``), scores
ONE real run with the engine (the EASY reference corpus, as ``benchmarks/significance_speed.py`` does),
gives N synthetic runs its per-sentence rows, then computes the campaign's significance K times and prints,
after each computation, the sets, the stored paired differences and the tables' size on disk. Before issue
39 every computation added a whole set; now each one replaces the previous, so the figures stay flat.
The database is dropped at the end.

    .venv/bin/python benchmarks/significance_storage.py [--runs 10] [--computations 4]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import web_results  # noqa: E402  (after the path is set)

web_results.DB_NAME = "parseval_bench_sig_storage"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--computations", type=int, default=4)
    args = parser.parse_args(argv)
    web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    web_results._admin_sql(f"CREATE DATABASE {web_results.DB_NAME}")
    try:
        with tempfile.TemporaryDirectory(prefix="significance-storage-") as tmp:
            web_results._setup_django(str(Path(tmp) / "var"))
            from django.contrib.auth import get_user_model
            from django.db import connection, connections

            from evaluation.models import PairedDifference, SignificanceSet
            from evaluation.significance import sets as significance

            document, rows = web_results.engine_output(0, Path(tmp))
            organiser = get_user_model().objects.create_user("organiser", password=None)
            campaign = web_results.build_campaign(document, organiser)
            web_results.keep_rows(web_results.add_runs(campaign, document, args.runs, 0), rows, 0)

            def size(table: str) -> int:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_total_relation_size(%s)", [table])
                    return cursor.fetchone()[0]

            print(f"{args.runs} runs, {args.runs * (args.runs - 1) // 2} pairs")
            # Deleted rows leave dead tuples until (auto)vacuum marks their space reusable: the table's size
            # is shown as it is right after the computation, and after the VACUUM that autovacuum would run.
            tables = [PairedDifference._meta.db_table, SignificanceSet._meta.db_table]
            print(f"{'computation':>12}{'sets':>6}{'rows':>9}{'MB on disk':>12}{'after VACUUM':>14}")
            for k in range(1, args.computations + 1):
                significance.compute(campaign)
                mb = sum(size(t) for t in tables) / 2 ** 20
                with connection.cursor() as cursor:
                    for table in tables:
                        cursor.execute(f'VACUUM "{table}"')
                vacuumed = sum(size(t) for t in tables) / 2 ** 20
                print(f"{k:>12}{SignificanceSet.objects.count():>6}{PairedDifference.objects.count():>9}"
                      f"{mb:>12.1f}{vacuumed:>14.1f}", flush=True)
            connections.close_all()
    finally:
        web_results._admin_sql(f"DROP DATABASE IF EXISTS {web_results.DB_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
