"""Server time of every results page on a loaded demo (or any campaign database), as an organiser and as anyone.

Reads the database of ``DATABASE_URL`` as it is (``python manage.py load_demo`` builds the demo; nothing is
created or changed here), and for each campaign (``--slug`` for some only) times with Django's test Client,
in this process (server time: no network, no browser):

* the campaign's results page, one per-genre page of each other way of scoring (EASY: ``?mode=&match=``),
  each run's page, the results JSON,
* the ranking (default figure and every other figure), the comparison of two runs (every figure),
  ``significance.json``,
* the design aid (first view, another target, every pair of the default figure), the consensus page,

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
    import django

    django.setup()


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} cores)"


def pages(campaign) -> list[tuple[str, str, bool]]:
    """``(label, url, organisers only)`` of every results page of ``campaign``."""
    from urllib.parse import quote

    from evaluation.models import PairedDifference
    from evaluation.significance import sets as significance

    base = f"/results/{campaign.slug}/"
    out = [("results", base, False), ("results JSON", base + "data.json", False)]
    if campaign.kind == "easy":
        for mode, match in (("DEFHYP", "FUZZY"), ("REF", "INCLUDE")):
            out.append((f"results {mode} {match}", f"{base}?mode={mode}&match={match}", False))
    runs = list(campaign.runs.filter(results__isnull=False).distinct().order_by("pk").values_list("pk", flat=True))
    for pk in runs:
        out.append((f"run {pk}", f"{base}runs/{pk}/", False))
    computed = significance.latest_set(campaign)
    figures = sorted(set(PairedDifference.objects.filter(set=computed).values_list("figure", flat=True))) \
        if computed else []
    out.append(("ranking", base + "ranking/", False))
    for f in figures[:6]:
        out.append((f"ranking {f}", f"{base}ranking/?figure={quote(f)}", False))
    if len(runs) >= 2:
        out.append(("comparison", f"{base}compare/{runs[0]}/{runs[1]}/", False))
        for f in figures[:4]:
            out.append((f"comparison {f}", f"{base}compare/{runs[0]}/{runs[-1]}/?figure={quote(f)}", False))
    out.append(("significance.json", base + "significance.json", False))
    out.append(("design aid", base + "design/", True))
    out.append(("design aid target 2", base + "design/?target=2", True))
    if computed:
        first = PairedDifference.objects.filter(set=computed).values_list("figure", flat=True).first()
        pairs = PairedDifference.objects.filter(set=computed, figure=first).values_list("result_a", "result_b")
        for a, b in list(pairs)[:4]:
            out.append((f"design aid pair {a}-{b}", f"{base}design/?pair={a}-{b}", True))
    out.append(("consensus", base + "consensus/", False))
    return out


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
        for label, url, organisers in pages(campaign):
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
