"""Put chosen documents or sentences into the test set, the development sample, or out of scoring."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaign.subsets import SubsetRefused, mark_subset, subset_counts
from annotations.models import GoldSentence
from campaign.management.lookup import campaign_by_slug
from campaign.models import Sentence


class Command(BaseCommand):
    help = (
        "Mark annotated documents (--documents NAME...) or sentences (--sentences NAME:ID...) as test, dev or "
        "unused. test and dev only while the campaign is a draft; audited."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("subset", choices=GoldSentence.Subset.values)
        parser.add_argument("--documents", nargs="*", default=[], metavar="NAME", help="document names")
        parser.add_argument("--sentences", nargs="*", default=[], metavar="NAME:ID", help="e.g. mail_10:E12")
        parser.add_argument("--actor", help="username of the organiser doing it (recorded in the audit log)")

    def handle(self, *args, campaign, subset, documents, sentences, actor=None, **options):
        target = campaign_by_slug(campaign)
        user = None
        if actor:
            user = get_user_model().objects.filter(username=actor).first()
            if user is None or not target.is_organiser(user):
                raise CommandError(f"{actor} is not an organiser of {target.slug}.")
        docs = list(target.documents.filter(name__in=documents))
        missing = sorted(set(documents) - {d.name for d in docs})
        if missing:
            raise CommandError(f"No document named {', '.join(missing)} in {target.slug}.")
        picked = []
        for item in sentences:
            name, sep, sid = item.partition(":")
            if not sep:
                raise CommandError(f"{item!r}: give a sentence as DOCUMENT:ID, e.g. mail_10:E12.")
            sentence = Sentence.objects.filter(document__campaign=target, document__name=name, sid=sid).first()
            if sentence is None:
                raise CommandError(f"No sentence {sid} in document {name} of {target.slug}.")
            picked.append(sentence)
        try:
            changed = mark_subset(target, subset, sentences=picked, documents=docs, actor=user)
        except SubsetRefused as refused:
            raise CommandError(str(refused))
        counts = subset_counts(target)
        self.stdout.write(f"{changed} sentence(s) moved to {subset}. Now: test {counts['test']}, "
                          f"dev {counts['dev']}, unused {counts['unused']}.")
