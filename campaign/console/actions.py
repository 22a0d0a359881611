"""Organiser actions on runs. Each checks the actor organises the run's
campaign and writes an audit entry; re-scoring is the scoring service's."""
from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from campaign import audit, kinds, results, visibility
from campaign.models import Run, RunStatus


def _check_organiser(actor, run: Run) -> None:
    if not visibility.can_manage_campaign(actor, run.campaign):
        raise PermissionDenied(f"You do not organise the campaign {run.campaign.name!r}.")


def mark_failed(run: Run, *, actor, reason: str, request=None) -> Run:
    _check_organiser(actor, run)
    reason = reason.strip() or "marked failed by an organiser"
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        previous = locked.status
        locked.set_status(RunStatus.FAILED, reason=reason)
        audit.record("run.mark_failed", actor=actor, campaign=run.campaign, target=f"run {run.pk}",
                     details={"previous_status": previous, "reason": reason}, request=request)
    run.refresh_from_db()
    return run


def disqualify(run: Run, *, actor, reason: str, request=None) -> Run:
    _check_organiser(actor, run)
    reason = reason.strip()
    if not reason:
        raise ValueError("A disqualification needs a reason.")
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        locked.disqualified = True
        locked.disqualified_reason = reason
        locked.save(update_fields=["disqualified", "disqualified_reason"])
        audit.record("run.disqualify", actor=actor, campaign=run.campaign, target=f"run {run.pk}",
                     details={"team": run.team.slug, "reason": reason, "at": timezone.now().isoformat()},
                     request=request)
        kinds.consensus_changed(run.campaign_id)  # a disqualified run is never combined
    run.refresh_from_db()
    return run


def rescore(run: Run, *, actor, request=None) -> Run:
    _check_organiser(actor, run)
    return results.rescore(run, actor, request=request)  # audits "run.rescore" itself
