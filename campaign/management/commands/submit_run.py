"""Upload a run from the command line, through the same service and rules as the page and the API."""
from __future__ import annotations

from pathlib import Path

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from campaign import visibility
from campaign.management.lookup import campaign_by_slug, user_by_name
from campaign.models import Run
from campaign.rules import UploadRefused
from campaign.services.runs import upload_run
from campaign import tracks


class Command(BaseCommand):
    help = "Submit a run file for a team member, as the upload page does (deadline, run limit and caps apply)."

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("file", help="an EASY .xml file, or a .zip/.tar.gz with one file per corpus document")
        parser.add_argument("--user", required=True, help="username of the team member submitting")
        parser.add_argument("--name", required=True, help="name of the run")
        parser.add_argument("--description", default="", help="short description of the system")
        parser.add_argument("--scope", choices=Run.Scope.values, default=Run.Scope.TEST)
        parser.add_argument("--track", choices=tracks.track_order(), default="",
                            help="dependency campaigns: the run's track (default: the campaign's first)")

    def handle(self, *args, campaign, file, user, name, description, scope, track="", **options):
        target = campaign_by_slug(campaign)
        member = user_by_name(user)
        team = visibility.team_of(member, target)
        if team is None:
            raise CommandError(f"{user} is in no team of {target.slug}.")
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"{file}: no such file.")
        try:
            with path.open("rb") as fh:
                run = upload_run(campaign=target, team=team, user=member, name=name, system_description=description,
                                 scope=scope, track=track, uploaded_file=File(fh, name=path.name))
        except UploadRefused as refused:
            raise CommandError(str(refused))
        self.stdout.write(f"Run {run.pk} received for {team.name}. Receipt: SHA-256 {run.sha256}")
