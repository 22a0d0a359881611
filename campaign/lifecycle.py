"""The campaign life cycle: which state may follow which, and what must hold first.

draft -> open -> closed -> scored -> released -> published -> (gold_released) -> archived

Every change goes through :func:`transition`, whether an organiser asks for it
(page, admin action, ``campaign_transition`` command) or a scheduled date is
due (:func:`apply_due_transitions`, run by the beat task with actor None).
Each one is an audit entry ``campaign.transition`` with from/to.
"""
from __future__ import annotations

import hashlib
import json
import logging
import secrets
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from . import audit, kinds, results
from .models import Campaign, CampaignState, Run, RunStatus

logger = logging.getLogger(__name__)

S = CampaignState

ALLOWED = {
    S.DRAFT: {S.OPEN},
    S.OPEN: {S.CLOSED},
    S.CLOSED: {S.SCORED},
    S.SCORED: {S.RELEASED},
    S.RELEASED: {S.PUBLISHED},
    S.PUBLISHED: {S.GOLD_RELEASED, S.ARCHIVED},
    S.GOLD_RELEASED: {S.ARCHIVED},
    S.ARCHIVED: set(),
}

# (from, to, date field that makes it due). Order matters: gold release comes before archiving.
SCHEDULE = [
    (S.DRAFT, S.OPEN, "opens_at"),
    (S.OPEN, S.CLOSED, "deadline"),
    # Results cannot be released before every run is scored: the release date also makes "scored" due.
    (S.CLOSED, S.SCORED, "results_release_at"),
    (S.SCORED, S.RELEASED, "results_release_at"),
    (S.RELEASED, S.PUBLISHED, "publish_at"),
    (S.PUBLISHED, S.GOLD_RELEASED, "gold_release_at"),
    (S.PUBLISHED, S.ARCHIVED, "archive_at"),
    (S.GOLD_RELEASED, S.ARCHIVED, "archive_at"),
]

PENDING_STATUSES = (RunStatus.UPLOADED, RunStatus.VALIDATING, RunStatus.QUEUED, RunStatus.SCORING)


class TransitionRefused(Exception):
    """A transition that is not an allowed edge or whose precondition does not hold. The message says why."""


@dataclass(frozen=True)
class Applied:
    campaign: Campaign
    from_state: str
    to_state: str


def allowed_targets(campaign: Campaign) -> list[str]:
    return [s for s in CampaignState.values if s in ALLOWED[CampaignState(campaign.state)]]


def active_test_runs(campaign: Campaign):
    """The run set that is scored and published: evaluation runs neither withdrawn, disqualified nor invalid."""
    return campaign.runs.filter(scope=Run.Scope.TEST, withdrawn_at__isnull=True, disqualified=False).exclude(
        status=RunStatus.INVALID
    )


def transition(campaign: Campaign, to_state: str, *, actor, request=None) -> Campaign:
    """Move ``campaign`` to ``to_state`` or raise :class:`TransitionRefused`.

    ``actor`` None means the system (a scheduled date); otherwise the actor must organise the campaign.
    """
    to_state = str(to_state)
    if to_state not in CampaignState.values:
        raise TransitionRefused(
            _("%(state)r is not a campaign state; the states are %(states)s.") % {
                "state": to_state, "states": ", ".join(CampaignState.values)}
        )
    if actor is not None and not campaign.is_organiser(actor):
        raise PermissionDenied("Only the campaign's organisers can change its state.")
    with transaction.atomic():
        # The row lock serialises this with uploads (rules.check_upload_allowed) and with the beat task.
        locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
        from_state = locked.state
        if to_state not in ALLOWED[CampaignState(from_state)]:
            nexts = ", ".join(sorted(ALLOWED[CampaignState(from_state)])) or _("none (archived is final)")
            raise TransitionRefused(
                _("Campaign %(name)r cannot go from %(from)s to %(to)s; allowed from %(from)s: %(next)s.") % {
                    "name": locked.name, "from": from_state, "to": to_state, "next": nexts}
            )
        details = {"from": from_state, "to": to_state}
        details.update(_PRECONDITIONS[to_state](locked))
        locked.state = to_state
        update = ["state", "updated_at"]
        if to_state == S.GOLD_RELEASED:
            locked.gold_released_at = timezone.now()
            update.append("gold_released_at")
        locked.save(update_fields=update)
        audit.record(audit.TRANSITION, actor=actor, campaign=locked, target=locked.slug, details=details, request=request)
    campaign.refresh_from_db()
    return campaign


def _open(campaign: Campaign) -> dict:
    if not campaign.documents.exists():
        raise TransitionRefused(
            _("Campaign %(name)r has no corpus yet: import its documents before opening it.") % {"name": campaign.name}
        )
    return {}


def _close(campaign: Campaign) -> dict:
    """Freeze the run set. Runs uploaded before the close but still being validated or scored stay in
    the set and go on being processed; they are listed so that the organisers see what 'scored' waits for."""
    runs = list(active_test_runs(campaign).order_by("pk").values("pk", "sha256", "status"))
    pending = [r["pk"] for r in runs if r["status"] in PENDING_STATUSES]
    return {
        "frozen_runs": [{"run": r["pk"], "sha256": r["sha256"]} for r in runs],
        "pending_runs": pending,
    }


def _scored(campaign: Campaign) -> dict:
    runs = active_test_runs(campaign)
    waiting = list(runs.exclude(status__in=[RunStatus.SCORED, RunStatus.FAILED]).order_by("pk").values_list("pk", "status"))
    if waiting:
        listed = ", ".join(_("run %(pk)s (%(status)s)") % {"pk": pk, "status": status} for pk, status in waiting[:10])
        more = _(" and %(count)s more") % {"count": len(waiting) - 10} if len(waiting) > 10 else ""
        raise TransitionRefused(
            _("Campaign %(name)r cannot be marked scored: %(count)s active run(s) are neither scored nor failed: "
              "%(listed)s%(more)s.") % {"name": campaign.name, "count": len(waiting), "listed": listed, "more": more}
        )
    return {
        "scored_runs": runs.filter(status=RunStatus.SCORED).count(),
        "failed_runs": runs.filter(status=RunStatus.FAILED).count(),
    }


def _nothing(campaign: Campaign) -> dict:
    return {}


def _publish(campaign: Campaign) -> dict:
    snapshot = take_snapshot(campaign)
    # The published table's pairs are tested by a worker once the publication is committed.
    transaction.on_commit(lambda: _enqueue_significance(campaign.pk))
    # The consensus is built again if what it combines changed; once scored, a new snapshot takes it in.
    kinds.consensus_changed(campaign.pk)
    # So is the publication bundle, the citable archive of the snapshot (evaluation.bundle.publication).
    transaction.on_commit(lambda: _enqueue_bundle(campaign.pk))
    return {"snapshot": snapshot.pk, "snapshot_sha256": snapshot.sha256}


def _gold_release(campaign: Campaign) -> dict:
    # The per-sentence rows may now be given out: the bundle is built again with them.
    transaction.on_commit(lambda: _enqueue_bundle(campaign.pk))
    return {}


def _enqueue_significance(campaign_id: int) -> None:
    try:
        kinds.enqueue(kinds.SIGNIFICANCE_TASK, campaign_id)
    except Exception:  # the snapshot stands; the tests can be asked for again
        logger.exception("could not enqueue the significance tests of campaign %s", campaign_id)


def _enqueue_bundle(campaign_id: int) -> None:
    try:
        kinds.enqueue(kinds.BUNDLE_TASK, campaign_id)
    except Exception:  # the transition stands; an organiser can build the bundle from the console
        logger.exception("could not enqueue the publication bundle of campaign %s", campaign_id)


_PRECONDITIONS = {
    S.DRAFT: _nothing,
    S.OPEN: _open,
    S.CLOSED: _close,
    S.SCORED: _scored,
    S.RELEASED: _nothing,
    S.PUBLISHED: _publish,
    S.GOLD_RELEASED: _gold_release,
    S.ARCHIVED: _nothing,
}


def canonical_json(data) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def assign_team_codes(campaign: Campaign) -> None:
    """Give every team one of A, B, C... in random order, so that codes reveal nothing.

    Every team is drawn again, whatever code it had: a code given at registration
    follows registration order, which other teams may know.
    """
    teams = list(campaign.teams.filter(system=False).order_by("pk"))
    secrets.SystemRandom().shuffle(teams)
    for team, code in zip(teams, _codes(len(teams))):
        team.code = code
        team.save(update_fields=["code"])


def _codes(n: int) -> list[str]:
    letters = [chr(ord("A") + i) for i in range(26)]
    codes = list(letters)
    for first in letters:
        if len(codes) >= n:
            break
        codes.extend(first + second for second in letters)
    return codes[: max(n, 0)]


def take_snapshot(campaign: Campaign):
    """Freeze the results of the active run set into an immutable PublishedSnapshot."""
    # Drawn at the first publication; a later snapshot keeps them, so published codes stay the same.
    if not campaign.snapshots.exists():
        assign_team_codes(campaign)
    runs = active_test_runs(campaign).filter(status=RunStatus.SCORED)
    data = results.campaign_results(campaign, runs=runs)
    # A run's system description is the team's own text: published pages show the run's name only.
    for entry in data.get("runs", []):
        entry.pop("description", None)
    # Round-trip through JSON so that what is stored is exactly what the checksum covers.
    data = json.loads(canonical_json(data))
    return results.model("PublishedSnapshot").objects.create(
        campaign=campaign, data=data, sha256=hashlib.sha256(canonical_json(data)).hexdigest()
    )


def due_transitions(campaign: Campaign, now=None) -> list[str]:
    """Target states whose scheduled date has passed, in the order they would be applied."""
    now = now or timezone.now()
    due = []
    for from_state, to_state, field in SCHEDULE:
        if campaign.state != from_state:
            continue
        moment = getattr(campaign, field)
        if moment is None or moment > now:
            continue
        if from_state == S.PUBLISHED and to_state == S.ARCHIVED and campaign.gold_release_at is not None:
            continue  # a planned gold release comes first
        due.append(to_state)
    return due


def apply_due_transitions(now=None) -> list[Applied]:
    """Apply every due scheduled transition, chaining (closed -> scored -> released) while preconditions hold."""
    now = now or timezone.now()
    applied: list[Applied] = []
    candidates = Campaign.objects.exclude(state=S.ARCHIVED).order_by("pk")
    for campaign in candidates:
        for _step in range(len(SCHEDULE)):
            due = due_transitions(campaign, now)
            if not due:
                break
            from_state = campaign.state
            try:
                transition(campaign, due[0], actor=None)
            except TransitionRefused as refused:
                logger.warning("Scheduled transition of %s to %s not applied: %s", campaign.slug, due[0], refused)
                break
            except Exception:
                # One broken campaign must not stop the others' schedule.
                logger.exception("Scheduled transition of %s to %s failed", campaign.slug, due[0])
                break
            applied.append(Applied(campaign, from_state, campaign.state))
    return applied
