"""What the upkeep of the analysis pages' kept values costs (evaluation.analysis.precomputed: ``read``, which marks
a value read at most once an hour, and ``sweep``, which deletes those no page read for the idle time).

In one transaction rolled back at the end (nothing is left in the database of ``DATABASE_URL``): one campaign
and result, ``--values`` kept values of ``--kb`` kB, half of them last read three days ago; then the sweep
(which deletes that half), ``--reads`` readings of values marked read lately (no write) and as many of values
marked two hours ago (one UPDATE each). Wall and CPU seconds of this process (the database's own work is not in
the CPU), and the load average before and after.

    PARSEVAL_DEVELOPMENT=1 DATABASE_URL=... .venv/bin/python benchmarks/analysis_value_upkeep.py [--values 2000]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--values", type=int, default=2000)
    parser.add_argument("--kb", type=int, default=50)
    parser.add_argument("--reads", type=int, default=100)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import transaction
    from django.utils import timezone

    from evaluation.analysis import precomputed
    from evaluation.models import AnalysisValue
    from tests.results import builders

    print("load average before:", open("/proc/loadavg").read().split()[0])
    with transaction.atomic():
        c = builders.campaign(slug=f"value-upkeep-{os.getpid()}")
        result = builders.scored_run(c, builders.team(c, "t")).results.get()
        data = json.dumps({"pad": "x" * (args.kb * 1000)})
        now = timezone.now()
        AnalysisValue.objects.bulk_create(
            [AnalysisValue(result=result, page="errors", key=precomputed.key_of("errors", [result.pk, k]), data=data,
                           read_at=now - timedelta(days=3 if k % 2 else 0)) for k in range(args.values)],
            batch_size=200)
        wall, cpu = time.perf_counter(), _cpu()
        found = precomputed.sweep()
        print(f"sweep of {found['values']} values ({args.kb} kB each): {found['idle']} removed in "
              f"{time.perf_counter() - wall:.3f} s wall, {_cpu() - cpu:.3f} s CPU")
        kept = range(0, 2 * args.reads, 2)
        for label in ("marked read lately, no write", "marked two hours ago, one UPDATE"):
            wall, cpu = time.perf_counter(), _cpu()
            for k in kept:
                assert precomputed.read("errors", [result.pk, k]) is not None
            print(f"read, {label}: {(time.perf_counter() - wall) / args.reads * 1000:.2f} ms wall, "
                  f"{(_cpu() - cpu) / args.reads * 1000:.2f} ms CPU each")
            AnalysisValue.objects.update(read_at=now - timedelta(hours=2))
        transaction.set_rollback(True)
    print("load average after:", open("/proc/loadavg").read().split()[0])


if __name__ == "__main__":
    main()
