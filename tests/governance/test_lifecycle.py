"""Every life-cycle edge, allowed and refused, with its preconditions, audit and schedule."""
from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign import lifecycle
from campaign.lifecycle import ALLOWED, TransitionRefused, apply_due_transitions, transition
from campaign.models import AuditEntry, CampaignState as S, RunStatus
from evaluation.models import PublishedSnapshot

from .conftest import campaign, run, team

pytestmark = pytest.mark.django_db

ALL_EDGES = [(a, b) for a in S.values for b in S.values]
ALLOWED_EDGES = {(str(a), str(b)) for a, targets in ALLOWED.items() for b in targets}


def test_the_allowed_edges_are_the_documented_cycle():
    assert ALLOWED_EDGES == {
        ("draft", "open"), ("open", "closed"), ("closed", "scored"), ("scored", "released"),
        ("released", "published"), ("published", "gold_released"), ("published", "archived"),
        ("gold_released", "archived"),
    }


def _fake_results(c, runs=None):
    return {"campaign": {"slug": c.slug}, "runs": [{"run": r.pk, "f": 0.5} for r in runs]}


@pytest.mark.parametrize("from_state,to_state", ALL_EDGES)
def test_each_edge_is_allowed_or_refused_and_audited(from_state, to_state, organiser):
    c = campaign(from_state, organiser=organiser)
    with mock.patch("evaluation.results.summaries.campaign_results", _fake_results):
        if (from_state, to_state) in ALLOWED_EDGES:
            transition(c, to_state, actor=organiser)
            assert c.state == to_state
            entry = AuditEntry.objects.get(campaign=c, action="campaign.transition")
            assert entry.details["from"] == from_state and entry.details["to"] == to_state
            assert entry.actor == organiser
        else:
            with pytest.raises(TransitionRefused) as refused:
                transition(c, to_state, actor=organiser)
            assert from_state in str(refused.value) and to_state in str(refused.value)
            c.refresh_from_db()
            assert c.state == from_state
            assert not AuditEntry.objects.filter(campaign=c, action="campaign.transition").exists()


def test_unknown_state_is_refused_with_the_list(organiser):
    c = campaign(organiser=organiser)
    with pytest.raises(TransitionRefused, match="not a campaign state"):
        transition(c, "finished", actor=organiser)


def test_only_organisers_change_state(organiser, member_a):
    c = campaign(organiser=organiser)
    with pytest.raises(PermissionDenied):
        transition(c, "open", actor=member_a)
    c.refresh_from_db()
    assert c.state == "draft"


def test_open_needs_a_corpus(organiser):
    c = campaign(organiser=organiser, documents=0)
    with pytest.raises(TransitionRefused, match="no corpus"):
        transition(c, "open", actor=organiser)


def test_close_freezes_the_run_set_and_lists_pending_runs(organiser, member_a):
    c = campaign("open", organiser=organiser)
    t = team(c, member_a)
    done = run(t, status=RunStatus.QUEUED)
    validating = run(t, status=RunStatus.VALIDATING)
    invalid = run(t, status=RunStatus.INVALID)
    transition(c, "closed", actor=organiser)
    details = AuditEntry.objects.get(campaign=c, action="campaign.transition").details
    assert {r["run"] for r in details["frozen_runs"]} == {done.pk, validating.pk}
    assert invalid.pk not in {r["run"] for r in details["frozen_runs"]}
    assert set(details["pending_runs"]) == {done.pk, validating.pk}


def test_scored_waits_for_every_active_run(organiser, member_a):
    c = campaign("closed", organiser=organiser)
    t = team(c, member_a)
    run(t, status=RunStatus.SCORED)
    pending = run(t, status=RunStatus.SCORING)
    run(t, status=RunStatus.INVALID)  # not active: does not block
    withdrawn = run(t, status=RunStatus.VALIDATING)
    withdrawn.withdrawn_at = withdrawn.uploaded_at
    withdrawn.save(update_fields=["withdrawn_at"])
    with pytest.raises(TransitionRefused, match=rf"run {pending.pk} \(scoring\)"):
        transition(c, "scored", actor=organiser)
    pending.set_status(RunStatus.FAILED, "engine error")
    transition(c, "scored", actor=organiser)
    details = AuditEntry.objects.get(campaign=c, action="campaign.transition").details
    assert details["scored_runs"] == 1 and details["failed_runs"] == 1


def test_publication_takes_an_immutable_snapshot_of_the_results(organiser, member_a):
    c = campaign("released", organiser=organiser)
    t = team(c, member_a)
    scored = run(t, status=RunStatus.SCORED)
    run(t, status=RunStatus.FAILED)
    seen = {}

    def results(campaign_, runs=None):
        seen["runs"] = sorted(r.pk for r in runs)
        return _fake_results(campaign_, runs)

    with mock.patch("evaluation.results.summaries.campaign_results", results):
        transition(c, "published", actor=organiser)
    snapshot = PublishedSnapshot.objects.get(campaign=c)
    assert seen["runs"] == [scored.pk]
    assert snapshot.data["runs"] == [{"run": scored.pk, "f": 0.5}]
    assert snapshot.sha256 == __import__("hashlib").sha256(lifecycle.canonical_json(snapshot.data)).hexdigest()
    entry = AuditEntry.objects.get(campaign=c, action="campaign.transition")
    assert entry.details["snapshot"] == snapshot.pk
    t.refresh_from_db()
    assert t.code == "A"
    with pytest.raises(PermissionDenied):
        snapshot.data = {}
        snapshot.save()


def test_publication_through_the_real_results_summary(organiser, member_a):
    c = campaign("released", organiser=organiser)
    team(c, member_a)
    transition(c, "published", actor=organiser)
    assert PublishedSnapshot.objects.get(campaign=c).data["campaign"]["slug"] == c.slug


def test_gold_release_is_remembered_after_archiving(organiser):
    c = campaign("published", organiser=organiser)
    transition(c, "gold_released", actor=organiser)
    transition(c, "archived", actor=organiser)
    assert c.gold_released_at is not None
    other = campaign("published", organiser=organiser)
    transition(other, "archived", actor=organiser)
    assert other.gold_released_at is None


def test_scheduled_dates_apply_due_transitions_as_the_system(organiser, now):
    past, future = now - timedelta(minutes=1), now + timedelta(days=1)
    opening = campaign(opens_at=past, organiser=organiser)
    closing = campaign("open", deadline=past)
    not_yet = campaign("open", deadline=future)
    releasing = campaign("closed", results_release_at=past)  # no run: closed -> scored -> released
    applied = {(a.campaign.pk, a.to_state) for a in apply_due_transitions(now)}
    assert applied == {(opening.pk, "open"), (closing.pk, "closed"), (releasing.pk, "scored"), (releasing.pk, "released")}
    for c, state in [(opening, "open"), (closing, "closed"), (not_yet, "open"), (releasing, "released")]:
        c.refresh_from_db()
        assert c.state == state
    entries = AuditEntry.objects.filter(action="campaign.transition", campaign=closing)
    assert [(e.actor, e.actor_name, e.details["to"]) for e in entries] == [(None, "", "closed")]
    assert apply_due_transitions(now) == []  # nothing left due


def test_schedule_stops_at_an_unmet_precondition(member_a, now):
    c = campaign("closed", results_release_at=now - timedelta(minutes=1))
    run(team(c, member_a), status=RunStatus.SCORING)
    assert apply_due_transitions(now) == []
    c.refresh_from_db()
    assert c.state == "closed"


def test_archive_waits_for_a_planned_gold_release(now):
    c = campaign("published", archive_at=now - timedelta(minutes=2), gold_release_at=now + timedelta(days=1))
    assert apply_due_transitions(now) == []
    c.gold_release_at = now - timedelta(minutes=1)
    c.save()
    assert [a.to_state for a in apply_due_transitions(now)] == ["gold_released", "archived"]


def test_beat_task_is_scheduled_and_applies_transitions(settings, now):
    from campaign.tasks import apply_scheduled_transitions

    assert any(e["task"] == "campaign.apply_scheduled_transitions" for e in settings.CELERY_BEAT_SCHEDULE.values())
    c = campaign("open", deadline=now - timedelta(seconds=1))
    assert apply_scheduled_transitions.apply().get() == [{"campaign": c.slug, "from": "open", "to": "closed"}]


def test_transition_command(organiser):
    c = campaign(organiser=organiser)
    call_command("campaign_transition", c.slug, "open", "--actor", "organiser")
    c.refresh_from_db()
    assert c.state == "open"
    assert AuditEntry.objects.get(campaign=c).actor == organiser
    with pytest.raises(CommandError, match="cannot go from open to published"):
        call_command("campaign_transition", c.slug, "published")
    with pytest.raises(CommandError, match="No campaign"):
        call_command("campaign_transition", "nope", "open")


def test_transition_command_due(now):
    c = campaign("open", deadline=now - timedelta(seconds=1))
    call_command("campaign_transition", "--due")
    c.refresh_from_db()
    assert c.state == "closed"
