"""Serving the results pages at campaign scale, on PostgreSQL.

Creates a dedicated database (``parseval_bench`` on the PostgreSQL server of
``BENCH_POSTGRES``, default ``postgres://postgres@127.0.0.1:5432``), migrates
it, scores ONE real run with the engine (the EASY reference corpus, gold
perturbed as in the demo), then bulk-creates N synthetic runs whose results
are copies of that engine output with jittered figures. With Django's test
Client it then times, median of ``--repeat`` requests each:

* the campaign results page as an organiser (live rows),
* the same page after publication as anyone (from the snapshot),
* the campaign results JSON (``/results/<slug>/data.json``, every cell, and
  ``?mode=HYP&match=EQUAL``, the cells of one way) as an organiser and, after
  publication, as anyone,
* the REST API's results of one run (``/api/runs/<pk>/results/``),
* the ranking page (``/results/<slug>/ranking/``: clusters from the stored
  paired tests) and the comparison page of two runs, live and published,

and counts the SQL queries of the pages for 5 runs and for N runs (they
must not grow). It also times the paired significance tests of the campaign
(every pair, every figure, 1,000 paired bootstrap resamples by default) for
5 and for N runs: the synthetic runs' per-sentence rows are the real run's
count rows with found-correct counts thinned at random, kept as
``SentenceRows`` as a worker would. The database is dropped at the end.

    .venv/bin/python benchmarks/web_results.py [--runs 20] [--repeat 15] [--bootstrap 100]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SERVER = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
DB_NAME = "parseval_bench"


def _admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(statement)


def _setup_django(var_dir: str, db_name: str = DB_NAME) -> None:
    os.environ["DATABASE_URL"] = f"{SERVER}/{db_name}"
    os.environ["PARSEVAL_VAR_DIR"] = var_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")  # a throw-away database on this machine
    os.environ["DJANGO_LOG_LEVEL"] = "ERROR"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def engine_output(bootstrap: int, tmp: Path) -> dict:
    """One real result document: the whole reference corpus, a perturbed run."""
    from django.conf import settings

    from parseval.annotations.easy import read_document, write_document
    from campaign import demo
    from parseval.evaluation.easy.files import gold_sha256, genre_of
    from parseval.evaluation.easy.scoring import score_corpus

    ref = Path(settings.DATA_DIR) / "easy-ref" / "ref"
    paths = sorted(ref.glob("*.xml"))
    if not paths:
        sys.exit(f"web_results: no EASY reference files in {ref} (see data/README.md)")
    gold = {p.stem: read_document(p, gold=True, strict=True, name=p.name) for p in paths}
    recipe = demo.TEAMS[3]["runs"][1]  # every perturbation at 5%
    run_files = {}
    for name, doc in gold.items():
        run_files[name] = tmp / f"{name}.xml"
        write_document(demo.perturb(doc, recipe), run_files[name])
    document = score_corpus(gold, run_files, {n: genre_of(n) for n in gold}, bootstrap=bootstrap,
                            gold_sha256=gold_sha256(paths))
    return document, sentence_rows(gold, run_files, {n: genre_of(n) for n in gold})


def sentence_rows(gold, run_files, genres):
    """The real run's per-sentence rows (keys, strata, fc | fp | cr), as :mod:`evaluation.results.sentence_rows` keeps them."""
    from parseval.evaluation.easy.scoring import count_sentences
    from evaluation.kinds.easy.rows import counted_rows
    from evaluation.results.sentence_rows import sorted_rows

    kept = sorted_rows(*counted_rows(*count_sentences(gold, run_files, genres)))
    return kept.keys, kept.strata, kept.rows, kept.rows.shape[1] // 3


def keep_rows(runs, rows, seed: int) -> None:
    """Each run's rows: the real run's, found-correct counts thinned at a random rate of 0.7 to 1."""
    import io

    import numpy as np

    from evaluation.models import SentenceRows

    keys, strata, base, width = rows
    rng = np.random.default_rng(seed)
    kept = []
    for run in runs:
        mine = base.copy()
        mine[:, :width] = rng.binomial(base[:, :width], rng.uniform(0.7, 1.0))
        buffer = io.BytesIO()
        np.savez_compressed(buffer, keys=keys, strata=strata, rows=mine)
        kept.append(SentenceRows(result=run.results.get(), data=buffer.getvalue()))
    SentenceRows.objects.bulk_create(kept)


def time_significance(campaign, label: str) -> float:
    from evaluation.significance import sets as significance

    t0 = time.perf_counter()
    computed = significance.compute(campaign)
    seconds = time.perf_counter() - t0
    pairs = len(computed.results) * (len(computed.results) - 1) // 2
    print(f"\nsignificance, {label}: {pairs} pairs x {computed.stored // max(pairs, 1)} figures, "
          f"{computed.resamples} resamples ({computed.signature}): {seconds:.1f} s")
    return seconds


def build_campaign(document: dict, organiser):
    from campaign.models import Campaign, CampaignState, Genre

    campaign = Campaign.objects.create(name="Benchmark campaign", slug="bench", state=CampaignState.SCORED)
    campaign.organisers.add(organiser)
    genres = sorted({c["genre"] for c in document["cells"]} - {"ALL"})
    Genre.objects.bulk_create([Genre(campaign=campaign, code=g, name=g.capitalize(), order=i) for i, g in enumerate(genres)])
    return campaign


def add_runs(campaign, document: dict, count: int, start: int) -> list:
    """``count`` scored runs whose results copy ``document`` with jittered figures."""
    from django.contrib.auth import get_user_model

    from campaign.models import Membership, Run, RunStatus, Team
    from evaluation.models import Result, ResultCell

    rng = random.Random(start)
    runs = []
    for i in range(start, start + count):
        user = get_user_model().objects.create_user(f"member{i}", password=None)
        team = Team.objects.create(campaign=campaign, name=f"Team {i}", slug=f"team-{i}", code=f"T{i}")
        Membership.objects.create(team=team, user=user)
        runs.append(Run(campaign=campaign, team=team, uploaded_by=user, name=f"run-{i} (synthetic)", synthetic=True,
                        file=f"runs/bench/team-{i}/{i}.zip", original_filename=f"{i}.zip", sha256=f"{i:064x}",
                        size=1, status=RunStatus.SCORED))
    runs = Run.objects.bulk_create(runs)
    results = Result.objects.bulk_create([
        Result(run=run, metric="easy", signature=document["signature"], scorer_version=document["scorer_version"],
               gold_sha256=document["gold_sha256"], document=document)
        for run in runs
    ])
    cells = []
    for result in results:
        factor = rng.uniform(0.7, 1.0)
        for aggregation, key in (("micro", "cells"), ("macro", "macro")):
            for c in document[key]:
                f = None if c.get("f") is None else c["f"] * factor
                ci = c.get("ci") or (None, None)
                cells.append(ResultCell(
                    result=result, aggregation=aggregation, layer=c["layer"], mode=c.get("mode") or "",
                    match=c.get("match") or "", genre=c["genre"], type=c["type"], fc=c.get("fc"), fp=c.get("fp"),
                    cr=c.get("cr"), p=c.get("p"), r=c.get("r"), f=f,
                    ci_low=None if ci[0] is None else ci[0] * factor, ci_high=None if ci[1] is None else ci[1] * factor,
                ))
    ResultCell.objects.bulk_create(cells, batch_size=5000)
    return runs


def timed(client, url: str, repeat: int) -> tuple[float, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    size = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        response = client.get(url)
        body = response.content
        times.append(time.perf_counter() - t0)
        assert response.status_code == 200, (url, response.status_code)
        size = len(body)
    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    return statistics.median(times), len(ctx.captured_queries), size


def publish(campaign):
    import hashlib
    import json

    from campaign.models import CampaignState
    from evaluation.models import PublishedSnapshot
    from evaluation.results.summaries import campaign_results

    data = json.loads(json.dumps(campaign_results(campaign)))
    PublishedSnapshot.objects.create(campaign=campaign, data=data,
                                     sha256=hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest())
    campaign.state = CampaignState.PUBLISHED
    campaign.save(update_fields=["state"])


def measure(campaign, organiser, repeat: int, label: str) -> dict:
    from django.test import Client

    from campaign.models import CampaignState

    org = Client()
    org.force_login(organiser)
    anyone = Client()
    page = f"/results/{campaign.slug}/"
    first_run, second_run = campaign.runs.order_by("pk")[:2]
    figure = "?figure=micro%7Crelations%7CHYP%7CEQUAL"
    out = {}
    campaign.state = CampaignState.SCORED
    campaign.save(update_fields=["state"])
    out["organiser page (live)"] = timed(org, page, repeat)
    out["results JSON (live, all)"] = timed(org, f"{page}data.json", repeat)
    out["results JSON (one way)"] = timed(org, f"{page}data.json?mode=HYP&match=EQUAL", repeat)
    out["API run results"] = timed(org, f"/api/runs/{first_run.pk}/results/", repeat)
    out["ranking (live)"] = timed(org, f"{page}ranking/{figure}", repeat)
    out["comparison (live)"] = timed(org, f"{page}compare/{first_run.pk}/{second_run.pk}/{figure}", repeat)
    publish(campaign)
    out["public page (snapshot)"] = timed(anyone, page, repeat)
    out["public JSON (one way)"] = timed(anyone, f"{page}data.json?mode=HYP&match=EQUAL", repeat)
    out["ranking (snapshot)"] = timed(anyone, f"{page}ranking/{figure}", repeat)
    out["comparison (snapshot)"] = timed(anyone, f"{page}compare/{first_run.pk}/{second_run.pk}/{figure}", repeat)
    print(f"\n{label}")
    print(f"  {'request':<28}{'median ms':>10}{'queries':>9}{'KiB':>8}")
    for name, (median, queries, size) in out.items():
        print(f"  {name:<28}{1000 * median:>10.1f}{queries:>9}{size / 1024:>8.1f}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--bootstrap", type=int, default=100, help="bootstrap of the one real scoring")
    args = parser.parse_args(argv)

    _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _admin_sql(f"CREATE DATABASE {DB_NAME}")
    try:
        with tempfile.TemporaryDirectory(prefix="web-bench-") as tmp:
            _setup_django(str(Path(tmp) / "var"))
            from django.contrib.auth import get_user_model
            from django.db import connections

            t0 = time.perf_counter()
            document, rows = engine_output(args.bootstrap, Path(tmp))
            print(f"one real engine output: {len(document['cells'])} cells + {len(document['macro'])} macro "
                  f"in {time.perf_counter() - t0:.1f} s")
            organiser = get_user_model().objects.create_user("organiser", password=None)
            campaign = build_campaign(document, organiser)
            print(f"per-sentence rows: {rows[2].shape[0]:,} gold sentences x {rows[2].shape[1]} columns")
            keep_rows(add_runs(campaign, document, 5, 0), rows, 0)
            time_significance(campaign, "5 runs")
            five = measure(campaign, organiser, args.repeat, "5 runs")
            keep_rows(add_runs(campaign, document, args.runs - 5, 5), rows, 5)
            time_significance(campaign, f"{args.runs} runs")
            many = measure(campaign, organiser, args.repeat, f"{args.runs} runs")
            print("\nSQL queries per page, 5 vs", args.runs, "runs:")
            grew = False
            for name in five:
                q5, qn = five[name][1], many[name][1]
                grew |= qn > q5
                print(f"  {name:<28}{q5:>5} -> {qn:<5}{'GROWS' if qn > q5 else 'constant'}")
            connections.close_all()
            return 1 if grew else 0
    finally:
        _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")


if __name__ == "__main__":
    sys.exit(main())
