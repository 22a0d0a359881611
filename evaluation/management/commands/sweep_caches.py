"""Remove, now, the stored run indexes and this host's significance figures that nothing will read again.

What beat's ``storage-upkeep`` entry does every hour (:mod:`evaluation.upkeep`); run it on the host of the
significance worker to sweep that worker's disk (``--only`` picks one of the two).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from evaluation import upkeep
from evaluation.significance import run_cache


class Command(BaseCommand):
    help = ("Remove the run indexes no scoring reads and this host's significance figures no set compares, then "
            "the least recently used figures past the size bound: docs/deployment.md, \"Disk upkeep\".")

    def add_arguments(self, parser):
        parser.add_argument("--only", choices=("run-indexes", "significance"), help="one of the two sweeps")
        parser.add_argument("--max-bytes", type=int, default=None,
                            help="the significance figures' bound (default: PARSEVAL_SIGNIFICANCE_CACHE_BYTES)")

    def handle(self, *args, only=None, max_bytes=None, **options):
        if only != "significance":
            found = upkeep.sweep_run_indexes()
            self.stdout.write(f"run indexes: {found['indexes']} found; removed {found['orphaned']} without their "
                              f"run or its file, {found['withdrawn']} of withdrawn runs, {found['stale']} of "
                              f"another key")
        if only != "run-indexes":
            found = run_cache.sweep(max_bytes)
            self.stdout.write(f"significance figures: {found['entries']} entries, {found['bytes'] / 2**20:.1f} MB; "
                              f"removed {found['stale']} unused and {found['evicted']} least recently used; "
                              f"{found['bytes_left'] / 2**20:.1f} MB left")
