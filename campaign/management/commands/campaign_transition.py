"""Apply a life-cycle transition from the command line, or every scheduled one that is due."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError

from campaign.lifecycle import TransitionRefused, apply_due_transitions, transition
from campaign.management.lookup import campaign_by_slug, user_by_name
from campaign.models import CampaignState


class Command(BaseCommand):
    help = (
        "Move a campaign to another life-cycle state (draft, open, closed, scored, released, published, "
        "gold_released, archived), checking the allowed edges and preconditions; or, with --due, apply "
        "every scheduled transition whose date has passed."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", nargs="?", help="campaign slug")
        parser.add_argument("state", nargs="?", choices=CampaignState.values, help="target state")
        parser.add_argument("--actor", help="username of the organiser doing it (recorded in the audit log); "
                            "without it the system is recorded")
        parser.add_argument("--due", action="store_true", help="apply every due scheduled transition")

    def handle(self, *args, campaign=None, state=None, actor=None, due=False, **options):
        if due:
            if campaign or state:
                raise CommandError("--due applies the schedule of every campaign; give no campaign or state with it.")
            applied = apply_due_transitions()
            for a in applied:
                self.stdout.write(f"{a.campaign.slug}: {a.from_state} -> {a.to_state}")
            self.stdout.write(f"{len(applied)} scheduled transition(s) applied.")
            return
        if not campaign or not state:
            raise CommandError("Give a campaign slug and a target state, or --due.")
        target = campaign_by_slug(campaign)
        user = user_by_name(actor) if actor else None
        before = target.state
        try:
            transition(target, state, actor=user)
        except (TransitionRefused, PermissionDenied) as refused:
            raise CommandError(str(refused))
        self.stdout.write(f"{target.slug}: {before} -> {target.state}")
