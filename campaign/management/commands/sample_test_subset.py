"""Sample the hidden test set (and a development sample) per genre, with a recorded seed."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from campaign.subsets import SubsetRefused, sample_test_subset
from campaign.management.lookup import campaign_by_slug, user_by_name


class Command(BaseCommand):
    help = (
        "Choose, per genre, which annotated sentences form the hidden test set (--ratio) and the public "
        "development sample (--dev-ratio); the rest are annotated but not scored. The seed is recorded in "
        "the audit log so that the choice can be reproduced. Only while the campaign is a draft."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("--ratio", type=float, required=True, help="share of each genre's annotated sentences in the test set")
        parser.add_argument("--seed", type=int, required=True, help="random seed (recorded)")
        parser.add_argument("--dev-ratio", type=float, default=0.0, help="share in the development sample (default 0)")
        parser.add_argument("--actor", help="username of the organiser doing it (recorded in the audit log)")

    def handle(self, *args, campaign, ratio, seed, dev_ratio, actor=None, **options):
        target = campaign_by_slug(campaign)
        user = None
        if actor:
            user = user_by_name(actor)
            if not target.is_organiser(user):
                raise CommandError(f"{actor} does not organise {target.slug}.")
        try:
            summary = sample_test_subset(target, ratio=ratio, seed=seed, dev_ratio=dev_ratio, actor=user)
        except SubsetRefused as refused:
            raise CommandError(str(refused))
        for genre, counts in summary.per_genre.items():
            self.stdout.write(f"{genre}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        totals = summary.totals
        self.stdout.write(
            f"{target.slug}: seed {seed}, test {totals['test']}, dev {totals['dev']}, unused {totals['unused']}."
        )
