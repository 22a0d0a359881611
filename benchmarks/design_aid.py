"""The organisers' design aid (``/results/<slug>/design/``) on a stored significance set of campaign size.

Creates a dedicated database (``parseval_bench_design`` on the PostgreSQL server of ``BENCH_POSTGRES``,
default ``postgres://postgres@127.0.0.1:5432``), migrates it, and stores what the page reads: an EASY
campaign of ``--runs`` scored runs (the results tests' builders) and one significance set with a paired
difference for every pair of runs and every EASY figure (15 ways of relations, 5 of constituents, micro and
macro: 40 figures), each with its genre x type table (7 genres and ALL x 21 types and ALL, as the demo's
EASY campaign stores them). No test is computed: the page only reads stored tests. With Django's test
Client it then times, median of ``--repeat`` requests each:

* the page as first opened (the default figure and pair),
* the same figure with another difference to detect (the pair's errors read again, or from the cache),
* another pair of the same figure.

The cache is cleared before each timed request of the first kind. The set is stored as rows, without the
worker: the page first says its figures are being computed, then the set's summary is computed (timed, as the
worker does after storing a set: :mod:`evaluation.significance.precomputed`) and the views are timed. The load
average is printed at the start and the end. The database is dropped at the end.

    .venv/bin/python benchmarks/design_aid.py [--runs 11] [--repeat 7]
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
DB_NAME = os.environ.get("BENCH_DESIGN_DB", "parseval_bench_design")  # another name: two runs side by side
GENRES = 7
TYPES = 21


# The throw-away database's set-up is the results-page benchmark's, on a database of this benchmark's own.
from benchmarks.web_results import _admin_sql, _setup_django  # noqa: E402


def build(runs: int):
    """The campaign, its organiser, and one significance set over every pair of its runs."""
    import random

    from campaign.models import CampaignState
    import numpy as np

    from evaluation.models import SignificanceFigure, SignificanceSet, SignificanceTable
    from evaluation.significance import packing
    from tests.results import builders as b

    organiser = b.user("organiser")
    campaign = b.campaign(CampaignState.SCORED, organiser=organiser, slug="bench-design")
    teams = [b.team(campaign, f"Team {k}", code=chr(65 + k)) for k in range(runs)]
    results = [b.scored_run(campaign, t, f"run {k}", index=k + 1, layers=("relations",)).results.get()
               for k, t in enumerate(teams)]
    genres = [f"g{k}" for k in range(GENRES)] + ["ALL"]
    types = [f"T{k}" for k in range(TYPES)] + ["ALL"]
    figures = [f"{agg}|relations|{mode}|{match}" for agg in ("micro", "macro") for mode in b.MODES for match in b.MATCHES]
    figures += [f"{agg}|constituents||{match}" for agg in ("micro", "macro") for match in b.MATCHES]
    sentences = {g: 600 for g in genres[:-1]}
    sentences["ALL"] = 600 * GENRES
    computed = SignificanceSet.objects.create(campaign=campaign, method="bootstrap", resamples=1000, seed=1,
                                              alpha=0.05, signature="bench", results=[r.pk for r in results],
                                              sentences=sentences)
    rng = random.Random(1)
    # stored as the worker stores them (evaluation.significance.sets): a row per figure (every pair's headline)
    # and a row per figure and second result (the pairs' genre x type cells)
    ids = sorted(r.pk for r in results)
    pairs = len(ids) * (len(ids) - 1) // 2
    rows = []
    for figure in figures:
        SignificanceFigure.objects.create(
            set=computed, figure=figure, context="bench", results=ids, family=pairs,
            heads=packing.pack({"heads": np.array([[0.01, 0.01, 0.2]] * pairs), "p_holm": np.full(pairs, 0.4),
                                "agreement": np.zeros((pairs, 7), dtype=np.int32)}))
        for j, bb in enumerate(ids[1:], start=1):
            cells = np.array([[[[rng.uniform(-0.05, 0.05) for _ in types] for _ in genres],
                               [[rng.uniform(0.001, 0.02) for _ in types] for _ in genres],
                               [[rng.random() for _ in types] for _ in genres]] for _ in range(j)],
                             dtype=np.float32)
            rows.append(SignificanceTable(
                campaign=campaign, context="bench", figure=figure, result_b_id=bb, others=ids[:j], strata=genres,
                types=types, heads=packing.pack({"heads": np.array([[0.01, 0.01, 0.2]] * j),
                                                 "agreement": np.zeros((j, 7), dtype=np.int32)}),
                cells=packing.pack({"cells": cells})))
    SignificanceTable.objects.bulk_create(rows, batch_size=200)
    rows = [None] * (pairs * len(figures))  # the (pair, figure) tables stored
    return campaign, organiser, results, len(rows), computed


def median_ms(client, url: str, repeat: int, before=None) -> float:
    times = []
    for _ in range(repeat):
        if before:
            before()
        start = time.perf_counter()
        response = client.get(url)
        times.append(1000 * (time.perf_counter() - start))
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _admin_sql(f"CREATE DATABASE {DB_NAME}")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-design-") as var_dir:
            _setup_django(var_dir, DB_NAME)
            from django.core.cache import cache
            from django.db import connections
            from django.test import Client

            from evaluation.significance import precomputed

            print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores) "
                  "at the start")
            campaign, organiser, results, stored, computed = build(args.runs)
            client = Client()
            client.force_login(organiser)
            base = f"/results/{campaign.slug}/design/"
            page = client.get(base).content.decode()
            assert 'id="being-computed"' in page  # stored without the worker: no summary yet, nothing computed
            started = time.perf_counter()
            precomputed.store(computed)  # what the worker does right after storing a set
            print(f"the set's summary (evaluation.significance.precomputed): {time.perf_counter() - started:.1f} s")
            other = f"{results[-2].pk}-{results[-1].pk}"
            print(f"{args.runs} runs, {stored} stored paired differences "
                  f"({GENRES} genres x {TYPES} types each); median of {args.repeat} requests:")
            print(f"  first view (cache cleared)     {median_ms(client, base, args.repeat, cache.clear):8.1f} ms")
            print(f"  another difference to detect  {median_ms(client, base + '?target=2', args.repeat):8.1f} ms")
            print(f"  another pair                  "
                  f"{median_ms(client, base + '?pair=' + other, args.repeat, cache.clear):8.1f} ms")
            print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
            connections.close_all()
    finally:
        _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")


if __name__ == "__main__":
    main()
