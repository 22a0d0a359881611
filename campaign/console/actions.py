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
    """Fail a run that will not finish by itself (stuck, or its re-score went wrong).

    Refused (``ValueError``) for a run that holds the result of its current scoring round: it was scored,
    and a failed status beside a stored result would leave the run out of the ranking while its page and the
    exports show the result. Disqualifying (audited, with a reason) is how a scored run leaves the results.
    Checked under the row lock under which the worker stores a result, so a result stored meanwhile is seen.
    The results of earlier rounds stay stored (a re-score that fails keeps them too); the audit entry counts them.
    """
    _check_organiser(actor, run)
    reason = reason.strip() or "marked failed by an organiser"
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        stored = results.model("Result").objects.filter(run_id=locked.pk)
        if stored.filter(scoring_round=locked.scoring_round).exists():
            raise ValueError(f"it holds the result of its scoring round {locked.scoring_round}, so it was scored; "
                             "marking it failed would contradict that result. To take it out of the results, "
                             "disqualify it (with a reason); to score it again, re-score it.")
        previous = locked.status
        locked.set_status(RunStatus.FAILED, reason=reason)
        audit.record("run.mark_failed", actor=actor, campaign=run.campaign, target=f"run {run.pk}",
                     details={"previous_status": previous, "reason": reason, "earlier_results": stored.count()},
                     request=request)
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
