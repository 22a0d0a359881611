"""``python manage.py demo_runs``: write the open demo campaign's files to try, from its development sample.

They are shipped in ``data/demo-runs/<slug>/``; run this after changing :mod:`campaign.demo_open`
(a test checks the shipped files are what the campaign gives).
"""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from campaign.demo_open import OPEN_SLUG, RUNS_DIR, dev_sids, practice_files
from campaign.models import Campaign


class Command(BaseCommand):
    help = "Write the open demo campaign's files to try (run, invalid run, development check) under data/demo-runs/."

    def add_arguments(self, parser):
        parser.add_argument("--out", help=f"folder (default: DATA_DIR/{RUNS_DIR}/{OPEN_SLUG})")

    def handle(self, *args, out=None, **options):
        campaign = Campaign.objects.filter(slug=OPEN_SLUG).first()
        if campaign is None:
            raise CommandError(f"No campaign {OPEN_SLUG!r}: run `manage.py load_demo` first.")
        folder = Path(out) if out else Path(settings.DATA_DIR) / RUNS_DIR / OPEN_SLUG
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in practice_files(dev_sids(campaign)).items():
            (folder / name).write_bytes(data)
            self.stdout.write(f"wrote {folder / name} ({len(data):,} bytes)")
