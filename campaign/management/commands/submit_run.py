"""Upload a run from the command line, through the same service and rules as the page and the API."""
from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from campaign import visibility
from campaign.models import Campaign, Run
from campaign.rules import UploadRefused
from campaign.services.runs import upload_run


class Command(BaseCommand):
    help = "Submit a run file for a team member, as the upload page does (deadline, run limit and caps apply)."

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("file", help="an EASY .xml file, or a .zip/.tar.gz with one file per corpus document")
        parser.add_argument("--user", required=True, help="username of the team member submitting")
        parser.add_argument("--name", required=True, help="name of the run")
        parser.add_argument("--description", default="", help="short description of the system")
        parser.add_argument("--scope", choices=Run.Scope.values, default=Run.Scope.TEST)

    def handle(self, *args, campaign, file, user, name, description, scope, **options):
        target = Campaign.objects.filter(slug=campaign).first()
        if target is None:
            raise CommandError(f"No campaign with slug {campaign!r}.")
        member = get_user_model().objects.filter(username=user).first()
        if member is None:
            raise CommandError(f"No user named {user!r}.")
        team = visibility.team_of(member, target)
        if team is None:
            raise CommandError(f"{user} is in no team of {target.slug}.")
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"{file}: no such file.")
        try:
            with path.open("rb") as fh:
                run = upload_run(campaign=target, team=team, user=member, name=name, system_description=description,
                                 scope=scope, uploaded_file=File(fh, name=path.name))
        except UploadRefused as refused:
            raise CommandError(str(refused))
        self.stdout.write(f"Run {run.pk} received for {team.name}. Receipt: SHA-256 {run.sha256}")
