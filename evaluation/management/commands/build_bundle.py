"""Build a published campaign's publication bundle now, in this process, and print where it is."""
from __future__ import annotations

import shutil

from django.core.management.base import BaseCommand, CommandError

from campaign.management.lookup import campaign_by_slug, user_by_name
from evaluation.bundle import publication as publication_bundle


class Command(BaseCommand):
    help = ("Build the publication bundle of a published campaign (figures, signatures, checksums, rows after the "
            "gold release, citation; docs/bundle.md). The same state gives the same archive: nothing new is stored "
            "when nothing changed.")

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("--actor", help="username of the organiser doing it (recorded in the audit log)")
        parser.add_argument("--out", help="also write the archive to this file")

    def handle(self, *args, campaign, actor=None, out=None, **options):
        target = campaign_by_slug(campaign)
        try:
            bundle = publication_bundle.build(target, actor=user_by_name(actor) if actor else None)
        except publication_bundle.BundleRefused as refused:
            raise CommandError(str(refused)) from None
        if out:
            with bundle.file.open("rb") as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst, 1024 * 1024)
        self.stdout.write(f"{target.slug}: bundle {bundle.sha256} ({bundle.size} bytes, "
                          f"{'with' if bundle.with_rows else 'without'} per-sentence rows){f' written to {out}' if out else ''}")
