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
from django.utils.translation import gettext as _, gettext_lazy

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
    """``what``: "runs" or "withdrawals", each with its own sentences (the words agree in French)."""
    values = {"name": campaign.name, "state": campaign.get_state_display().lower(),
              "deadline": format_deadline(campaign.deadline) if campaign.deadline else ""}
    runs = what == "runs"
    if campaign.deadline and now >= campaign.deadline:
        raise error((_("The campaign %(name)r no longer accepts runs: the deadline was %(deadline)s.") if runs else
                     _("The campaign %(name)r no longer accepts withdrawals: the deadline was %(deadline)s.")) % values)
    if campaign.state != CampaignState.OPEN:
        if campaign.deadline and campaign.state != CampaignState.DRAFT:
            raise error((_("The campaign %(name)r is %(state)s and no longer accepts runs (deadline %(deadline)s).")
                         if runs else _("The campaign %(name)r is %(state)s and no longer accepts withdrawals "
                                        "(deadline %(deadline)s).")) % values)
        raise error((_("The campaign %(name)r is %(state)s and does not accept runs.") if runs else
                     _("The campaign %(name)r is %(state)s and does not accept withdrawals.")) % values)


def why_not_accepting_runs(campaign: Campaign, *, now=None) -> str | None:
    """The message a team gets when the campaign takes no run now (the upload page shows it), else None."""
    try:
        _refuse_unless_accepting(campaign, now or timezone.now(), UploadRefused, "runs")
    except UploadRefused as exc:
        return str(exc)
    return None


AWAITING_APPROVAL = gettext_lazy("Your team awaits the organisers' approval: it can upload runs once they admit it.")


def check_upload_allowed(campaign: Campaign, team: Team, *, scope: str = Run.Scope.TEST, now=None) -> None:
    """Raise :class:`UploadRefused` with a message for the team unless this upload may proceed."""
    now = now or timezone.now()
    campaign = _fresh(campaign)
    _refuse_unless_accepting(campaign, now, UploadRefused, "runs")
    if team.campaign_id != campaign.pk:
        raise UploadRefused(_("This team does not take part in this campaign."))
    if not team.admitted:
        raise UploadRefused(str(AWAITING_APPROVAL))
    day_ago = now - timedelta(days=1)
    # A separate cap, so that validation cannot be used as an oracle; withdrawn invalid runs still count.
    invalid_today = invalid_uploads_since(team, day_ago).count()
    if invalid_today >= campaign.invalid_uploads_per_day:
        raise UploadRefused(
            _("Your team has made %(count)s invalid uploads in the last 24 hours, the campaign's limit of "
              "%(limit)s; try again later.") % {"count": invalid_today, "limit": campaign.invalid_uploads_per_day}
        )
    uploads_today = team.runs.filter(uploaded_at__gte=day_ago).count()
    if uploads_today >= campaign.uploads_per_day:
        raise UploadRefused(
            _("Your team has uploaded %(count)s runs in the last 24 hours, the campaign's limit of %(limit)s "
              "(withdrawn and invalid runs included); try again later.") % {"count": uploads_today,
                                                                              "limit": campaign.uploads_per_day}
        )
    if scope == Run.Scope.TEST:
        count = active_runs(team).count()
        if count >= campaign.runs_per_team:
            raise UploadRefused(
                _("Your team already has %(count)s runs, the campaign's limit of %(limit)s; withdraw one before "
                  "uploading another.") % {"count": count, "limit": campaign.runs_per_team}
            )


def check_withdrawal_allowed(run: Run, *, now=None) -> None:
    """Withdrawal is allowed before the deadline only: afterwards the run set is frozen."""
    now = now or timezone.now()
    if run.withdrawn_at is not None:
        raise WithdrawalRefused(_("The run %(name)r was already withdrawn.") % {"name": run.name})
    campaign = _fresh(run.campaign)
    _refuse_unless_accepting(campaign, now, WithdrawalRefused, "withdrawals")
    withdrawn_today = run.team.runs.filter(withdrawn_at__gte=now - timedelta(days=1)).count()
    if withdrawn_today >= campaign.withdrawals_per_day:
        raise WithdrawalRefused(
            _("Your team has withdrawn %(count)s runs in the last 24 hours, the campaign's limit of %(limit)s; "
              "try again later.") % {"count": withdrawn_today, "limit": campaign.withdrawals_per_day}
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
