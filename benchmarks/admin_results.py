"""The admin's Results list at 100 results of 1,000 cells each, on SQLite or PostgreSQL.

Builds a throw-away database (a temporary SQLite file, or ``parseval_admin_bench``
on the PostgreSQL server of ``BENCH_POSTGRES``), migrates it, stores 100 results
of 1,000 cells each (and a JSON document of the same 1,000 cells per result),
then with Django's test Client times, median of ``--repeat`` requests:

* ``/admin/evaluation/result/`` as a superuser (every campaign),
* the same list as an organiser (their campaign only; another campaign's 10
  results must not be listed),
* the same list filtered on the campaign,

against the target of one second, and, as the reference point in the same run,
the list-filter query of the previous admin (a COUNT of cells grouped over every
result column) on the same data. Prints the figures and their ratios; exits 1 if a
list takes a second or more. The database is dropped at the end.

    .venv/bin/python benchmarks/admin_results.py --database sqlite
    .venv/bin/python benchmarks/admin_results.py --database postgres
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SERVER = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
DB_NAME = "parseval_admin_bench"
TARGET_SECONDS = 1.0


def _pg_admin(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(statement)


def _setup(database: str, var_dir: str) -> None:
    if database == "postgres":
        _pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME}")
        _pg_admin(f"CREATE DATABASE {DB_NAME}")
        os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
    else:
        os.environ.pop("DATABASE_URL", None)  # the embedded default: SQLite in PARSEVAL_VAR_DIR
    os.environ["PARSEVAL_VAR_DIR"] = var_dir
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["PARSEVAL_DEVELOPMENT"] = "1"  # a throw-away database on this machine
    os.environ["DJANGO_DEBUG"] = "0"  # no query log
    os.environ["DJANGO_LOG_LEVEL"] = "ERROR"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


LAYERS = ("relations", "constituents")
MODES = ("HYP", "REF", "")
MATCHES = ("EQUAL", "INCL", "OVERLAP", "SAME_TYPE", "CROSS")
GENRES = ("general", "litteraire", "mail", "medical", "oral", "questions", "ALL")


def _keys(n: int) -> list[tuple]:
    keys = [(layer, mode, match, genre, f"T{t}") for layer in LAYERS for mode in MODES for match in MATCHES
            for genre in GENRES for t in range(20)]
    return keys[:n]


def build(results: int, cells: int, other: int):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    from campaign.models import Campaign, CampaignState, Run, RunStatus, Team
    from evaluation.models import Result, ResultCell

    User = get_user_model()
    superuser = User.objects.create_superuser("root", password=None)
    organiser = User.objects.create_user("org", password=None, is_staff=True)
    organiser.user_permissions.add(*Permission.objects.filter(content_type__app_label__in=["campaign", "evaluation"]))
    mine = Campaign.objects.create(name="Benchmark", slug="bench", state=CampaignState.SCORED)
    mine.organisers.add(organiser)
    theirs = Campaign.objects.create(name="Someone else's", slug="other", state=CampaignState.SCORED)
    keys = _keys(cells)
    assert len(keys) == cells
    for campaign, count in ((mine, results), (theirs, other)):
        teams = Team.objects.bulk_create([Team(campaign=campaign, name=f"Team {i}", slug=f"team-{i}", code=f"T{i}")
                                          for i in range(count)])
        runs = Run.objects.bulk_create([
            Run(campaign=campaign, team=t, name=f"run {i}", file=f"runs/{campaign.slug}/{i}.zip",
                original_filename=f"{i}.zip", sha256=f"{i:064x}", size=1, status=RunStatus.SCORED)
            for i, t in enumerate(teams)])
        for i, run in enumerate(runs):
            document = {"cells": [dict(zip(("layer", "mode", "match", "genre", "type"), k), f=0.5) for k in keys]}
            result = Result.objects.create(run=run, metric="easy", signature=f"sig {i}", scorer_version="1.0.0",
                                           gold_sha256="a" * 64, document=document)
            ResultCell.objects.bulk_create([
                ResultCell(result=result, layer=k[0], mode=k[1], match=k[2], genre=k[3], type=k[4],
                           fc=1, fp=2, cr=2, p=0.5, r=0.5, f=0.5) for k in keys])
    return superuser, organiser, mine


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--results", type=int, default=100)
    parser.add_argument("--cells", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="admin-bench-") as var_dir:
        _setup(args.database, var_dir)
        try:
            return _measure(args)
        finally:
            from django.db import connections

            connections.close_all()
            if args.database == "postgres":
                _pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME}")


def _measure(args) -> int:
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import setup_test_environment

    from evaluation.models import Result, ResultCell

    setup_test_environment()  # so that responses carry their template context (the row count)
    start = time.perf_counter()
    superuser, organiser, mine = build(args.results, args.cells, other=10)
    print(f"{connection.vendor}: built {Result.objects.count()} results, {ResultCell.objects.count():,} cells "
          f"in {time.perf_counter() - start:.1f} s")

    url = "/admin/evaluation/result/"
    failures = 0
    rows = []
    for label, user, query, expected in (
        ("superuser, all campaigns", superuser, "", args.results + 10),
        ("organiser, own campaign", organiser, "", args.results),
        ("organiser, filtered on the campaign", organiser, f"?run__campaign__id__exact={mine.pk}", args.results),
    ):
        client = Client()
        client.force_login(user)
        response = client.get(url + query)
        assert response.status_code == 200, response.status_code
        shown = response.context["cl"].result_count
        assert shown == expected, (label, shown, expected)
        seconds = _median(lambda: client.get(url + query), args.repeat)
        rows.append((label, seconds))
        failures += seconds >= TARGET_SECONDS

    def previous_filter_query():
        # The previous admin's "metric" list filter: distinct values over the Count(cells) annotation.
        list(Result.objects.defer("document").annotate(_cells=Count("cells")).distinct().order_by("metric")
             .values_list("metric", flat=True))

    reference = _median(previous_filter_query, max(1, args.repeat // 2))
    for label, seconds in rows:
        print(f"  {label:40s} {seconds * 1000:8.1f} ms  ({seconds / TARGET_SECONDS:.2f} of the 1 s target; "
              f"previous filter query alone {reference / seconds:.1f}x this page)")
    print(f"  previous admin's list-filter query alone: {reference * 1000:.1f} ms")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
