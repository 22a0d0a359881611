"""Server time of every results page on a loaded demo (or any campaign database), as an organiser and as anyone.

Reads the database of ``DATABASE_URL`` as it is (``python manage.py load_demo`` builds the demo; nothing is
created or changed here), and for each campaign (``--slug`` for some only) times with Django's test Client,
in this process (server time: no network, no browser):

* the campaign's results page, one per-genre page of each other way of scoring (EASY: ``?mode=&match=``),
  each run's page, the results JSON (every cell, and one way's),
* the ranking (default figure and every other figure), the comparison of two runs (every figure),
  ``significance.json`` (every figure, and one) and the API's significance document,
* the design aid (first view, another target, every pair of the default figure), the consensus page,
* the analysis explorer of the first two runs with a stored analysis (the explorer, by an attribute, the
  JSON, the confusions, the errors, the sentences of the largest bucket, a sentence, the two runs compared
  and the sentences of a bucket of that comparison); no analysis is computed here, and the values the errors
  page and the two-run comparison read (:mod:`evaluation.analysis.precomputed`: what a worker computes once
  and keeps, which a page without one says is being computed) are computed before the timings, in this process
  as Celery eager does, their time printed apart (``kept values``),

each the first time after the cache is cleared (``first``) and the median of ``--repeat`` more (``median``),
in wall seconds and in CPU seconds of this process (``cpu``: the web's own work, which a busy host does not
stretch; the database's work is not in it). The load average is printed before and after (the host's other
work slows the wall times alike). Pages over
``--limit`` seconds (default 0.5, issue 39's target) are marked and counted; the exit status is 1 if any is.

    PARSEVAL_DEVELOPMENT=1 DATABASE_URL=... .venv/bin/python benchmarks/demo_pages.py [--repeat 3] [--slug S]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_LOG_LEVEL"] = "ERROR"
    import logging

    import django

    django.setup()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # the 404s of pages anyone may not see


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} cores)"


def pages(campaign) -> list[tuple[str, str, bool]]:
    """``(label, url, organisers only)`` of every results page of ``campaign`` (every route of the results app
    but the downloads of files: the bundle and the consensus treebank), and the API's significance document."""
    from urllib.parse import quote

    from evaluation.analysis import store as analysis_store
    from evaluation.models import Result
    from evaluation.significance import headlines, sets as significance

    base = f"/results/{campaign.slug}/"
    out = [("results", base, False), ("results JSON", base + "data.json", False)]
    if campaign.kind == "easy":
        for mode, match in (("DEFHYP", "FUZZY"), ("REF", "INCLUDE")):
            out.append((f"results {mode} {match}", f"{base}?mode={mode}&match={match}", False))
        out.append(("results JSON DEFHYP FUZZY", f"{base}data.json?mode=DEFHYP&match=FUZZY", False))
    runs = list(campaign.runs.filter(results__isnull=False).distinct().order_by("pk").values_list("pk", flat=True))
    for pk in runs:
        out.append((f"run {pk}", f"{base}runs/{pk}/", False))
    computed = significance.latest_set(campaign)
    figures = significance.stored_figures(computed)
    out.append(("ranking", base + "ranking/", False))
    for f in figures[:6]:
        out.append((f"ranking {f}", f"{base}ranking/?figure={quote(f)}", False))
    if len(runs) >= 2:
        out.append(("comparison", f"{base}compare/{runs[0]}/{runs[1]}/", False))
        for f in figures[:4]:
            out.append((f"comparison {f}", f"{base}compare/{runs[0]}/{runs[-1]}/?figure={quote(f)}", False))
    out.append(("significance.json", base + "significance.json", False))
    if figures:
        out.append((f"significance.json {figures[0]}", f"{base}significance.json?figure={quote(figures[0])}", False))
    out.append(("API significance", f"/api/campaigns/{campaign.slug}/significance/", False))
    out.append(("design aid", base + "design/", True))
    out.append(("design aid target 2", base + "design/?target=2", True))
    if computed and figures:
        for pair in headlines.figure_pairs(computed, figures[0])[:4]:
            a, b = pair["a"], pair["b"]
            out.append((f"design aid pair {a}-{b}", f"{base}design/?figure={quote(figures[0])}&pair={a}-{b}", True))
    out.append(("consensus", base + "consensus/", False))
    # The analysis explorer of the first two runs with a stored analysis (none is computed here: a run without
    # one would be computed by its first view, which is the worker's work, not a page's).
    analysed = []
    for pk in runs:
        result = Result.objects.filter(run_id=pk).order_by("-created_at", "-pk").first()
        kept = analysis_store.analysis_of(result, compute=False) if result else None
        if kept is not None:
            analysed.append((pk, kept))
        if len(analysed) == 2:
            break
    for pk, kept in analysed:
        explorer = f"{base}runs/{pk}/analysis"
        attributes = [a["name"] for a in kept.document.get("attributes", [])]
        out += [(f"analysis {pk}", f"{explorer}/", False), (f"analysis JSON {pk}", f"{explorer}.json", False),
                (f"analysis confusions {pk}", f"{explorer}/confusions/", False),
                (f"analysis errors {pk}", f"{explorer}/errors/", False)]
        if attributes:
            by = attributes[0]
            out.append((f"analysis {pk} by {by}", f"{explorer}/?by={quote(by)}", False))
            buckets = kept.index["buckets"].get(by) or {}
            # the largest bucket: the longest list of sentences
            bucket = max(buckets, key=lambda b: len(buckets[b]["s"]), default=None)
            if bucket is not None:
                out.append((f"analysis sentences {pk} {by}={bucket}",
                            f"{explorer}/sentences/?by={quote(by)}&bucket={quote(bucket)}", False))
        keys = kept.index["keys"]
        if keys:
            out.append((f"analysis sentence {pk}", f"{explorer}/sentence/?key={quote(keys[0])}", False))
    if len(analysed) == 2:
        (a, kept), (b, _kept) = analysed
        attributes = [x["name"] for x in kept.document.get("attributes", [])]
        compare = f"{base}analysis/compare/{a}/{b}/"
        out.append((f"analysis compare {a}-{b}", compare, False))
        if attributes:
            buckets = kept.index["buckets"].get(attributes[0]) or {}
            bucket = max(buckets, key=lambda x: len(buckets[x]["s"]), default=None)
            if bucket is not None:
                out.append((f"analysis compare sentences {a}-{b}",
                            f"{compare}sentences/?by={quote(attributes[0])}&bucket={quote(bucket)}", False))
    return out


# the pages that read a value a worker keeps (evaluation.analysis.precomputed); "analysis compare sentences" too,
# which reads none, but asking for it costs nothing
KEPT = ("analysis errors", "analysis compare")


def timed(client, url: str, repeat: int) -> tuple[float, float, float, float, int]:
    """Wall and CPU seconds of this process (the web's share: not the database's, and not the time waiting
    for a core on a busy host) of the first request after the cache is cleared, and their medians over
    ``repeat`` more."""
    from django.core.cache import cache

    cache.clear()
    t0, c0 = time.perf_counter(), time.process_time()
    response = client.get(url)
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    times, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        client.get(url)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return (first, statistics.median(times) if times else first, first_cpu,
            statistics.median(cpu) if cpu else first_cpu, response.status_code)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slug", action="append", help="only these campaigns (repeatable)")
    parser.add_argument("--limit", type=float, default=0.5)
    args = parser.parse_args(argv)
    _setup()
    from django.test import Client

    from campaign.models import Campaign

    campaigns = Campaign.objects.order_by("pk")
    if args.slug:
        campaigns = campaigns.filter(slug__in=args.slug)
    Client().get("/")  # the process's first request loads templates and modules: not a page's time
    print(load(), "at the start")
    over, total = 0, 0
    for campaign in campaigns:
        organiser = campaign.organisers.order_by("pk").first()
        org, anyone = Client(), Client()
        if organiser:
            org.force_login(organiser)
        print(f"\n{campaign.slug} ({campaign.kind}, {campaign.state}, {campaign.runs.count()} runs)")
        print(f"  {'page':<44}{'who':<11}{'status':>7}{'first s':>9}{'median s':>10}{'cpu first':>10}"
              f"{'cpu median':>11}")
        listed = pages(campaign)
        t0, c0 = time.perf_counter(), time.process_time()
        for label, url, organisers in listed:  # the worker's work, before the pages read it
            if label.startswith(KEPT):
                for client in (org,) if organisers else (org, anyone):
                    client.get(url)
        print(f"  kept values (the errors pages, the two-run comparisons) computed first in "
              f"{time.perf_counter() - t0:.3f} s, {time.process_time() - c0:.3f} s CPU")
        for label, url, organisers in listed:
            for who, client in (("organiser", org), ("anyone", anyone)):
                if organisers and who == "anyone":
                    continue
                first, median, first_cpu, median_cpu, status = timed(client, url, args.repeat)
                slow = max(first, median) > args.limit
                over += slow
                total += 1
                print(f"  {label[:43]:<44}{who:<11}{status:>7}{first:>9.3f}{median:>10.3f}{first_cpu:>10.3f}"
                      f"{median_cpu:>11.3f}{'  OVER' if slow else ''}")
    print(f"\n{over} of {total} page requests over {args.limit} s; {load()} at the end")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
