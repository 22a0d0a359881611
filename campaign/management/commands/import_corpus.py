"""``python manage.py import_corpus SLUG FILE...``: import gold files into a campaign, whatever its kind.

EASY campaigns take EASY ``.xml`` gold; constituency campaigns Penn or
square-bracket tree files (``.mrg``, ``.tree``, ``.txt``); dependency
campaigns CoNLL-U (``.conllu``). One file per corpus document, named after
it. All or nothing: on any problem every problem is printed (file, line,
sentence) and nothing is kept.
"""
from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from parseval.annotations.errors import InputError
from campaign import kinds
from campaign.models import Campaign


class Command(BaseCommand):
    help = "Import gold files (one per corpus document) into a campaign, through its kind."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the campaign's slug")
        parser.add_argument("files", nargs="+", help="gold files, one per corpus document")
        parser.add_argument("--genre", action="append", default=[], metavar="DOCUMENT=GENRE",
                            help="genre of a document (tree and dependency kinds; default: the name's prefix)")
        parser.add_argument("--subset", default="test", choices=["test", "dev", "unused"],
                            help="subset of every imported sentence (default test)")
        parser.add_argument("--actor", help="user name recorded in the audit log")

    def handle(self, *args, slug, files, genre, subset, actor, **options):
        campaign = Campaign.objects.filter(slug=slug).first()
        if campaign is None:
            raise CommandError(f"No campaign {slug!r}.")
        paths = [Path(f) for f in files]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise CommandError(f"No such file: {', '.join(missing)}")
        user = None
        if actor:
            user = get_user_model().objects.filter(username=actor).first()
            if user is None:
                raise CommandError(f"No user {actor!r}.")
        genres = {}
        for item in genre:
            document, sep, code = item.partition("=")
            if not sep or not document or not code:
                raise CommandError(f"--genre {item!r}: write DOCUMENT=GENRE")
            genres[document] = code
        kind = kinds.for_campaign(campaign)
        if genres and kind.genres_from_names_only:
            raise CommandError("--genre is for tree and dependency campaigns; EASY genres come from file names.")
        options = {} if kind.genres_from_names_only else {"genres": genres}
        try:
            summary = kind.import_corpus(campaign, paths, subset=subset, actor=user, **options)
        except InputError as exc:
            raise CommandError(f"Nothing imported:\n{exc}") from None
        self.stdout.write(self.style.SUCCESS(
            f"Imported {summary.documents} documents, {summary.sentences} sentences "
            f"({summary.gold_sentences} with gold, subset {subset}), {summary.words} words into {campaign.slug}."))
