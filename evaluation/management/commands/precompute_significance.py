"""Compute, in this process, what the design aid and the ranking read of each campaign's newest significance set.

A set stored by a worker gets it right away (:mod:`evaluation.significance.precomputed`); this is for sets
stored before that, or whose summary failed. Sets that already have theirs are left alone unless ``--again``.
"""
from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from campaign.management.lookup import campaign_by_slug
from campaign.models import Campaign
from evaluation.significance import precomputed, sets as significance


class Command(BaseCommand):
    help = ("Compute what the design aid and the ranking read of the newest significance set of the given campaigns "
            "(all without a slug): docs/significance.md, \"What the pages read\".")

    def add_arguments(self, parser):
        parser.add_argument("campaigns", nargs="*", help="campaign slugs (default: every campaign)")
        parser.add_argument("--again", action="store_true", help="also for sets that already have their summary")

    def handle(self, *args, campaigns, again=False, **options):
        targets = [campaign_by_slug(slug) for slug in campaigns] or list(Campaign.objects.order_by("pk"))
        for campaign in targets:
            computed = significance.latest_set(campaign)
            if computed is None:
                self.stdout.write(f"{campaign.slug}: no significance set")
                continue
            if not again and not precomputed.missing(computed):
                self.stdout.write(f"{campaign.slug}: set {computed.pk} already has its summary")
                continue
            started = time.perf_counter()
            precomputed.store(computed)
            self.stdout.write(f"{campaign.slug}: set {computed.pk} summarised in {time.perf_counter() - started:.1f} s")
