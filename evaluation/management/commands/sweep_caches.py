"""Remove, now, the stored run and gold indexes, superseded conversions, this host's significance figures and
the analysis pages' kept values that nothing will read again.

What beat's ``storage-upkeep`` entry does every hour (:mod:`evaluation.upkeep`); run it on the host of the
significance worker to sweep that worker's disk (``--only`` picks one of the three sweeps).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from evaluation import upkeep
from evaluation.analysis import precomputed
from evaluation.significance import run_cache


class Command(BaseCommand):
    help = ("Remove the run and gold indexes no scoring reads, superseded conversions, this host's significance "
            "figures no set compares, then the least recently used figures past the size bound, and the analysis "
            "values no page read lately: docs/deployment.md, \"Disk upkeep\".")

    def add_arguments(self, parser):
        parser.add_argument("--only", choices=("run-indexes", "significance", "analysis-values"),
                            help="one of the three sweeps (run-indexes: the kinds' stored files)")
        parser.add_argument("--max-bytes", type=int, default=None,
                            help="the significance figures' bound (default: PARSEVAL_SIGNIFICANCE_CACHE_BYTES)")

    def handle(self, *args, only=None, max_bytes=None, **options):
        if only in (None, "run-indexes"):
            found = {k: 0 for k in ("indexes", "orphaned", "withdrawn", "stale", "conversions", "superseded",
                                    "gold_indexes", "gold_stale")} | upkeep.sweep_run_indexes()
            self.stdout.write(f"run indexes: {found['indexes']} found; removed {found['orphaned']} without their "
                              f"run or its file, {found['withdrawn']} of withdrawn runs, {found['stale']} of "
                              f"another key")
            self.stdout.write(f"conversions: {found['conversions']} found; removed {found['superseded']} no run names")
            self.stdout.write(f"gold indexes: {found['gold_indexes']} found; removed {found['gold_stale']} of another "
                              f"key or document")
        if only in (None, "significance"):
            found = run_cache.sweep(max_bytes)
            self.stdout.write(f"significance figures: {found['entries']} entries, {found['bytes'] / 2**20:.1f} MB; "
                              f"removed {found['stale']} unused and {found['evicted']} least recently used; "
                              f"{found['bytes_left'] / 2**20:.1f} MB left")
        if only in (None, "analysis-values"):
            found = precomputed.sweep()
            self.stdout.write(f"analysis values: {found['values']} kept; removed {found['idle']} no page read lately")
