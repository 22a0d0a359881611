"""Run rules: the single upload gate, withdrawal, limits, immutability and the receipt."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied

from campaign import rules
from campaign.models import Run, RunStatus
from campaign.rules import UploadRefused, WithdrawalRefused, check_upload_allowed, check_withdrawal_allowed

from .conftest import campaign, run, team

pytestmark = pytest.mark.django_db


def test_open_campaign_before_deadline_accepts(member_a, now):
    c = campaign("open", deadline=now + timedelta(hours=1))
    check_upload_allowed(c, team(c, member_a))


@pytest.mark.parametrize("state", ["draft", "closed", "scored", "released", "published", "gold_released", "archived"])
def test_other_states_refuse(state, member_a):
    c = campaign(state)
    with pytest.raises(UploadRefused, match="does not accept runs"):
        check_upload_allowed(c, team(c, member_a))


def test_late_upload_message_gives_the_deadline(member_a, now):
    deadline = now - timedelta(minutes=5)
    c = campaign("open", deadline=deadline)
    with pytest.raises(UploadRefused) as refused:
        check_upload_allowed(c, team(c, member_a))
    assert f"{deadline:%Y-%m-%d %H:%M} UTC" in str(refused.value)
    assert "deadline" in str(refused.value)


def test_closed_campaign_message_gives_the_deadline(member_a, now):
    deadline = now - timedelta(days=1)
    c = campaign("closed", deadline=deadline)
    with pytest.raises(UploadRefused, match=f"{deadline:%Y-%m-%d %H:%M} UTC"):
        check_upload_allowed(c, team(c, member_a))


def test_gate_reads_the_stored_state_not_a_stale_object(member_a):
    c = campaign("open")
    t = team(c, member_a)
    stale = type(c).objects.get(pk=c.pk)
    c.state = "closed"
    c.save()
    with pytest.raises(UploadRefused):
        check_upload_allowed(stale, t)


def test_run_limit_counts_active_evaluation_runs_only(member_a):
    c = campaign("open", runs_per_team=3)
    t = team(c, member_a)
    run(t)
    run(t, status=RunStatus.INVALID)  # invalid runs do not count
    run(t, scope=Run.Scope.DEV)  # development checks do not count
    gone = run(t)
    check_upload_allowed(c, t)
    run(t)
    with pytest.raises(UploadRefused, match="already has 3 runs, the campaign's limit of 3"):
        check_upload_allowed(c, t)
    check_upload_allowed(c, t, scope=Run.Scope.DEV)  # not limited by the run count
    gone.withdrawn_at = gone.uploaded_at
    gone.save(update_fields=["withdrawn_at"])
    check_upload_allowed(c, t)


def test_invalid_upload_cap_per_day(member_a, now):
    c = campaign("open", invalid_uploads_per_day=2)
    t = team(c, member_a)
    run(t, status=RunStatus.INVALID, uploaded_at=now - timedelta(hours=30))  # older than a day
    run(t, status=RunStatus.INVALID)
    check_upload_allowed(c, t)
    withdrawn_invalid = run(t, status=RunStatus.INVALID)
    withdrawn_invalid.withdrawn_at = now
    withdrawn_invalid.save(update_fields=["withdrawn_at"])  # withdrawing does not reset the cap
    for scope in (Run.Scope.TEST, Run.Scope.DEV):
        with pytest.raises(UploadRefused, match="2 invalid uploads in the last 24 hours, the campaign's limit of 2"):
            check_upload_allowed(c, t, scope=scope)
    assert check_upload_allowed(c, t, now=now + timedelta(days=1, minutes=1)) is None


def test_team_of_another_campaign_is_refused(member_a):
    c, other = campaign("open"), campaign("open")
    with pytest.raises(UploadRefused, match="does not take part"):
        check_upload_allowed(c, team(other, member_a))


def test_withdrawal_before_the_deadline_only(member_a, now):
    c = campaign("open", deadline=now + timedelta(hours=1))
    r = run(team(c, member_a))
    check_withdrawal_allowed(r)
    with pytest.raises(WithdrawalRefused, match="deadline was"):
        check_withdrawal_allowed(r, now=now + timedelta(hours=2))
    c.state = "closed"
    c.save()
    with pytest.raises(WithdrawalRefused, match="no longer accepts withdrawals"):
        check_withdrawal_allowed(r)
    r.withdrawn_at = now
    with pytest.raises(WithdrawalRefused, match="already withdrawn"):
        check_withdrawal_allowed(r)


def test_run_file_and_checksum_are_immutable(member_a):
    c = campaign("open")
    r = run(team(c, member_a), content=b"<DOCUMENT>first</DOCUMENT>")
    r.set_status(RunStatus.SCORED)  # status changes are fine
    r.name = "renamed"
    r.save()  # as are the name and the other mutable fields
    for field, value in [("sha256", "0" * 64), ("size", 1), ("original_filename", "other.xml"), ("scope", "dev")]:
        fresh = Run.objects.get(pk=r.pk)
        setattr(fresh, field, value)
        with pytest.raises(PermissionDenied, match=field):
            fresh.save()
        with pytest.raises(PermissionDenied, match=field):
            Run.objects.filter(pk=r.pk).update(**{field: value})
    fresh = Run.objects.get(pk=r.pk)
    fresh.file.name = "runs/elsewhere.xml"
    with pytest.raises(PermissionDenied, match="file"):
        fresh.save()
    stored = Run.objects.get(pk=r.pk)
    assert (stored.sha256, stored.size, stored.file.name) == (r.sha256, r.size, r.file.name)
    Run.objects.filter(pk=r.pk).update(status=RunStatus.FAILED)  # mutable fields still update


def test_receipt_and_checksum(member_a):
    c = campaign("open")
    content = b"<DOCUMENT>receipt</DOCUMENT>"
    r = run(team(c, member_a), content=content)
    assert rules.sha256_of(io.BytesIO(content)) == r.sha256 == __import__("hashlib").sha256(content).hexdigest()
    receipt = rules.run_receipt(r)
    assert receipt["sha256"] == r.sha256 and receipt["size"] == len(content)
