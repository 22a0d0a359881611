"""Draw the hidden test set (and a development sample) per genre, under a secret per-campaign key."""
from __future__ import annotations

import argparse

from django.core.management.base import BaseCommand, CommandError

from campaign.subsets import SubsetRefused, draw_warning, sample_test_subset, verify_draw
from campaign.management.lookup import campaign_by_slug, user_by_name


class Command(BaseCommand):
    help = (
        "Choose, per genre, which annotated sentences form the hidden test set (--ratio) and the public "
        "development sample (--dev-ratio); the rest are annotated but not scored. Membership is decided by "
        "a fresh secret key (kept on the campaign, organisers only; the audit log records its fingerprint), "
        "never by a number anyone types. --verify replays the last draw with the stored key. Drawing is "
        "possible only while the campaign is a draft."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("--ratio", type=float, help="share of each genre's annotated sentences in the test set")
        parser.add_argument("--dev-ratio", type=float, default=0.0, help="share in the development sample (default 0)")
        parser.add_argument("--verify", action="store_true",
                            help="replay the last draw with the campaign's stored key and report any difference")
        parser.add_argument("--actor", help="username of the organiser doing it (recorded in the audit log)")
        # The old seeded draw could be replayed by anyone; the option is refused with the reason, not ignored.
        parser.add_argument("--seed", help=argparse.SUPPRESS)

    def handle(self, *args, campaign, ratio, dev_ratio, verify=False, seed=None, actor=None, **options):
        if seed is not None:
            raise CommandError(
                "--seed is no longer accepted: a seed anyone can guess lets a team replay the draw from the "
                "public development sample and recover the test set. The draw now uses a secret key kept on "
                "the campaign; run without --seed, and use --verify to replay it.")
        target = campaign_by_slug(campaign)
        if verify:
            differences = verify_draw(target)
            for line in differences:
                self.stdout.write(line)
            if differences:
                raise CommandError(f"{target.slug}: {len(differences)} difference(s) with the keyed draw.")
            self.stdout.write(f"{target.slug}: every annotated sentence is where the keyed draw put it.")
            return
        if ratio is None:
            raise CommandError("Give --ratio (or --verify).")
        user = None
        if actor:
            user = user_by_name(actor)
            if not target.is_organiser(user):
                raise CommandError(f"{actor} does not organise {target.slug}.")
        try:
            summary = sample_test_subset(target, ratio=ratio, dev_ratio=dev_ratio, actor=user)
        except SubsetRefused as refused:
            raise CommandError(str(refused))
        for genre, counts in summary.per_genre.items():
            self.stdout.write(f"{genre}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        totals = summary.totals
        self.stdout.write(
            f"{target.slug}: key {summary.key_fingerprint} (fingerprint), test {totals['test']}, "
            f"dev {totals['dev']}, unused {totals['unused']}."
        )
        warning = draw_warning(target)
        if warning:
            self.stderr.write(warning)
