"""Run rules: when a team may upload or withdraw, and how many runs it may have.

:func:`check_upload_allowed` is the single gate for every entry point (page,
API, command line); :func:`check_withdrawal_allowed` the one for withdrawals.
Both re-read the campaign's state from the database (locking the row when
called inside a transaction) so that an upload racing with the closing
transition cannot slip into a frozen run set.
"""
from __future__ import annotations

import hashlib
from datetime import timedelta, timezone as dt_timezone

from django.db import connection
from django.utils import timezone

from .models import Campaign, CampaignState, Run, RunStatus, Team


class UploadRefused(Exception):
    """An upload that the campaign's rules do not allow. The message is for the team."""


class WithdrawalRefused(Exception):
    """A withdrawal that the campaign's rules do not allow. The message is for the team."""


def active_runs(team: Team):
    """Runs that count against the limit: not withdrawn, not invalid, evaluation scope."""
    return team.runs.filter(withdrawn_at__isnull=True, scope=Run.Scope.TEST).exclude(status=RunStatus.INVALID)


def invalid_uploads_since(team: Team, since):
    return team.runs.filter(status=RunStatus.INVALID, uploaded_at__gte=since)


def format_deadline(moment) -> str:
    return f"{moment.astimezone(dt_timezone.utc):%Y-%m-%d %H:%M} UTC"


def _fresh(campaign: Campaign) -> Campaign:
    """The campaign row as stored now; locked until the end of the caller's transaction if there is one."""
    qs = Campaign.objects.filter(pk=campaign.pk)
    if connection.in_atomic_block:
        qs = qs.select_for_update()
    fields = ("state", "deadline", "runs_per_team", "invalid_uploads_per_day", "uploads_per_day",
              "withdrawals_per_day")
    stored = qs.only(*fields, "name").first()
    if stored is not None:
        for name in fields:
            setattr(campaign, name, getattr(stored, name))
    return campaign


def _refuse_unless_accepting(campaign: Campaign, now, error: type[Exception], what: str) -> None:
    if campaign.deadline and now >= campaign.deadline:
        raise error(
            f"The campaign {campaign.name!r} no longer accepts {what}: the deadline was "
            f"{format_deadline(campaign.deadline)}."
        )
    if campaign.state != CampaignState.OPEN:
        if campaign.deadline and campaign.state != CampaignState.DRAFT:
            raise error(
                f"The campaign {campaign.name!r} is {campaign.get_state_display().lower()} and no longer "
                f"accepts {what} (deadline {format_deadline(campaign.deadline)})."
            )
        raise error(f"The campaign {campaign.name!r} is {campaign.get_state_display().lower()} and does not accept {what}.")


def why_not_accepting_runs(campaign: Campaign, *, now=None) -> str | None:
    """The message a team gets when the campaign takes no run now (the upload page shows it), else None."""
    try:
        _refuse_unless_accepting(campaign, now or timezone.now(), UploadRefused, "runs")
    except UploadRefused as exc:
        return str(exc)
    return None


AWAITING_APPROVAL = "Your team awaits the organisers' approval: it can upload runs once they admit it."


def check_upload_allowed(campaign: Campaign, team: Team, *, scope: str = Run.Scope.TEST, now=None) -> None:
    """Raise :class:`UploadRefused` with a message for the team unless this upload may proceed."""
    now = now or timezone.now()
    campaign = _fresh(campaign)
    _refuse_unless_accepting(campaign, now, UploadRefused, "runs")
    if team.campaign_id != campaign.pk:
        raise UploadRefused("This team does not take part in this campaign.")
    if not team.admitted:
        raise UploadRefused(AWAITING_APPROVAL)
    day_ago = now - timedelta(days=1)
    # A separate cap, so that validation cannot be used as an oracle; withdrawn invalid runs still count.
    invalid_today = invalid_uploads_since(team, day_ago).count()
    if invalid_today >= campaign.invalid_uploads_per_day:
        raise UploadRefused(
            f"Your team has made {invalid_today} invalid uploads in the last 24 hours, "
            f"the campaign's limit of {campaign.invalid_uploads_per_day}; try again later."
        )
    uploads_today = team.runs.filter(uploaded_at__gte=day_ago).count()
    if uploads_today >= campaign.uploads_per_day:
        raise UploadRefused(
            f"Your team has uploaded {uploads_today} runs in the last 24 hours, the campaign's limit of "
            f"{campaign.uploads_per_day} (withdrawn and invalid runs included); try again later."
        )
    if scope == Run.Scope.TEST:
        count = active_runs(team).count()
        if count >= campaign.runs_per_team:
            raise UploadRefused(
                f"Your team already has {count} runs, the campaign's limit of {campaign.runs_per_team}; "
                f"withdraw one before uploading another."
            )


def check_withdrawal_allowed(run: Run, *, now=None) -> None:
    """Withdrawal is allowed before the deadline only: afterwards the run set is frozen."""
    now = now or timezone.now()
    if run.withdrawn_at is not None:
        raise WithdrawalRefused(f"The run {run.name!r} was already withdrawn.")
    campaign = _fresh(run.campaign)
    _refuse_unless_accepting(campaign, now, WithdrawalRefused, "withdrawals")
    withdrawn_today = run.team.runs.filter(withdrawn_at__gte=now - timedelta(days=1)).count()
    if withdrawn_today >= campaign.withdrawals_per_day:
        raise WithdrawalRefused(
            f"Your team has withdrawn {withdrawn_today} runs in the last 24 hours, the campaign's limit of "
            f"{campaign.withdrawals_per_day}; try again later."
        )


def run_receipt(run: Run) -> dict:
    """What the team is shown as proof of what it uploaded."""
    return {
        "run": run.pk,
        "name": run.name,
        "file": run.original_filename,
        "size": run.size,
        "sha256": run.sha256,
        "uploaded_at": run.uploaded_at.isoformat(),
    }


def sha256_of(fileobj, chunk_size: int = 1024 * 1024) -> str:
    """SHA-256 of an uploaded or stored file, read in chunks; the file is rewound afterwards."""
    digest = hashlib.sha256()
    if hasattr(fileobj, "seek"):
        fileobj.seek(0)
    if hasattr(fileobj, "chunks"):
        for chunk in fileobj.chunks(chunk_size):
            digest.update(chunk)
    else:
        for chunk in iter(lambda: fileobj.read(chunk_size), b""):
            digest.update(chunk)
    if hasattr(fileobj, "seek"):
        fileobj.seek(0)
    return digest.hexdigest()
