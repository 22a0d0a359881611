"""Organiser console: who gets in, what the dashboard says, the CSV export, admin actions."""
from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from campaign.models import AuditEntry, CampaignState, Run, RunStatus
from evaluation.models import ResultCell
from tests.results import builders as b

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    org = b.user("org", is_staff=True)
    org.user_permissions.add(*Permission.objects.filter(content_type__app_label__in=["campaign", "evaluation"]))
    intruder = b.user("intruder", is_staff=True)  # staff, organises another campaign
    intruder.user_permissions.add(*Permission.objects.filter(content_type__app_label__in=["campaign", "evaluation"]))
    alice = b.user("alice")
    c = b.campaign(CampaignState.CLOSED, organiser=org)
    other = b.campaign(organiser=intruder)
    ta = b.team(c, "Alpha", alice, code="A")
    tb = b.team(c, "Beta", code="B")
    ra = b.scored_run(c, ta, "alpha-1", index=1)
    rb = b.scored_run(c, tb, "beta-1", index=2)
    return {"c": c, "other": other, "org": org, "intruder": intruder, "alice": alice, "ta": ta, "tb": tb, "ra": ra, "rb": rb}


def test_dashboard_is_404_for_everyone_but_organisers(client, world):
    url = reverse("console:dashboard", args=[world["c"].slug])
    for who in ("intruder", "alice"):
        client.force_login(world[who])
        assert client.get(url).status_code == 404
        assert client.get(reverse("console:export", args=[world["c"].slug])).status_code == 404
    client.logout()
    response = client.get(url)
    assert response.status_code == 302 and reverse("login") in response["Location"]
    client.force_login(world["org"])
    assert client.get(url).status_code == 200
    assert client.get(reverse("console:dashboard", args=["no-such"])).status_code == 404


def test_dashboard_lists_teams_statuses_queue_and_stuck_runs(client, world, settings):
    settings.PARSEVAL_STUCK_AFTER_SECONDS = 600
    c, tb = world["c"], world["tb"]
    now = timezone.now()
    fresh = b.scored_run(c, tb, "fresh-queued", status=RunStatus.QUEUED)
    scoring = b.scored_run(c, tb, "old-scoring", status=RunStatus.SCORING)
    Run.objects.filter(pk=scoring.pk).update(status_changed_at=now - timedelta(seconds=601), progress=42)
    old_scored = b.scored_run(c, tb, "old-scored", index=7)
    Run.objects.filter(pk=old_scored.pk).update(status_changed_at=now - timedelta(days=3))
    old_withdrawn = b.scored_run(c, tb, "old-withdrawn", status=RunStatus.VALIDATING)
    Run.objects.filter(pk=old_withdrawn.pk).update(status_changed_at=now - timedelta(days=3), withdrawn_at=now)

    from campaign.console import dashboard

    assert [r.name for r in dashboard.stuck_runs(c)] == ["old-scoring"]
    assert [r.name for r in dashboard.scoring_queue(c)] == ["old-scoring", "fresh-queued"]
    counts = {s["status"]: s["count"] for s in dashboard.runs_by_status(c)}
    assert counts[RunStatus.SCORED] == 3 and counts[RunStatus.QUEUED] == 1 and counts[RunStatus.SCORING] == 1
    # the withdrawn run (left "validating") is counted apart, not as work in hand
    assert counts[RunStatus.VALIDATING] == 0 and counts["withdrawn"] == 1
    assert sum(counts.values()) == c.runs.count()
    settings.PARSEVAL_STUCK_AFTER_SECONDS = 10 ** 6
    assert dashboard.stuck_runs(c) == []
    settings.PARSEVAL_STUCK_AFTER_SECONDS = 600

    client.force_login(world["org"])
    html = client.get(reverse("console:dashboard", args=[c.slug])).content.decode()
    stuck = html.split('id="stuck"')[1].split("</section>")[0]
    assert f'data-run="{scoring.pk}"' in stuck and f'data-run="{fresh.pk}"' not in stuck
    queue = html.split('id="queue"')[1].split("</section>")[0]
    assert f'data-run="{fresh.pk}"' in queue and "42%" in queue
    teams = html.split('id="teams"')[1].split("</section>")[0]
    assert "Alpha" in teams and "alice" in teams and "Beta" in teams


def test_csv_export_holds_every_cell_of_each_runs_latest_result(client, world):
    c, ra = world["c"], world["ra"]
    newer = b.add_result(ra, 55)  # re-scored: the export carries the newest result
    client.force_login(world["org"])
    response = client.get(reverse("console:export", args=[c.slug]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    cells = ResultCell.objects.filter(result__in=[newer, world["rb"].results.get()])
    assert len(rows) == cells.count()
    by_key = {(r["run_id"], r["aggregation"], r["layer"], r["mode"], r["match"], r["genre"], r["type"]): r for r in rows}
    for cell in cells.select_related("result"):
        row = by_key[(str(cell.result.run_id), cell.aggregation, cell.layer, cell.mode, cell.match, cell.genre, cell.type)]
        assert row["result_id"] == str(cell.result_id)
        assert row["f"] == ("" if cell.f is None else repr(cell.f))
        assert row["fc"] == ("" if cell.fc is None else str(cell.fc))
        assert row["ci_low"] == ("" if cell.ci_low is None else repr(cell.ci_low))
        assert row["signature"] == cell.result.signature
        assert row["scorer_version"] == "1.0.0" and row["gold_sha256"] == "a" * 64
    assert {r["result_id"] for r in rows if r["run_id"] == str(ra.pk)} == {str(newer.pk)}
    assert AuditEntry.objects.filter(action="results.export", campaign=c, actor=world["org"]).count() == 1


def _act(client, user, action, runs, reason=""):
    client.force_login(user)
    return client.post(reverse("admin:campaign_run_changelist"), {
        "action": action, "_selected_action": [r.pk for r in runs], "reason": reason, "index": 0,
    }, follow=True)


def test_non_organisers_cannot_use_admin_actions(client, world):
    ra = world["ra"]
    _act(client, world["intruder"], "disqualify_runs", [ra], reason="cheating")
    _act(client, world["intruder"], "mark_runs_failed", [ra])
    ra.refresh_from_db()
    assert not ra.disqualified and ra.status == RunStatus.SCORED
    assert not AuditEntry.objects.filter(action__startswith="run.").exists()
    # the run is not even listed for them
    client.force_login(world["intruder"])
    assert client.get(reverse("admin:campaign_run_change", args=[ra.pk])).status_code in (302, 404)
    # and a team member is not staff: the admin sends them to its login
    client.force_login(world["alice"])
    response = client.post(reverse("admin:campaign_run_changelist"),
                           {"action": "disqualify_runs", "_selected_action": [ra.pk], "reason": "x"})
    assert response.status_code == 302 and "login" in response["Location"]
    ra.refresh_from_db()
    assert not ra.disqualified


def test_organiser_actions_are_applied_and_audited(client, world):
    ra, rb = world["ra"], world["rb"]
    response = _act(client, world["org"], "disqualify_runs", [ra])
    assert "needs a reason" in response.content.decode()
    ra.refresh_from_db()
    assert not ra.disqualified

    _act(client, world["org"], "disqualify_runs", [ra], reason="tuned on the test set")
    ra.refresh_from_db()
    assert ra.disqualified and ra.disqualified_reason == "tuned on the test set"
    entry = AuditEntry.objects.get(action="run.disqualify")
    assert entry.actor == world["org"] and entry.campaign == world["c"] and entry.details["reason"] == "tuned on the test set"

    stuck = b.scored_run(world["c"], world["tb"], "beta-stuck", status=RunStatus.SCORING)
    _act(client, world["org"], "mark_runs_failed", [stuck], reason="worker lost")
    stuck.refresh_from_db()
    assert stuck.status == RunStatus.FAILED and stuck.status_reason == "worker lost"
    entry = AuditEntry.objects.get(action="run.mark_failed")
    assert entry.details == {"previous_status": RunStatus.SCORING, "reason": "worker lost", "earlier_results": 0}

    # a scored run holds the result of its round: marking it failed is refused, saying what to do instead
    page = _act(client, world["org"], "mark_runs_failed", [rb], reason="looks wrong").content.decode()
    assert "holds the result of its scoring round 1" in page and "disqualify it" in page
    rb.refresh_from_db()
    assert rb.status == RunStatus.SCORED and AuditEntry.objects.filter(action="run.mark_failed").count() == 1


def test_mark_failed_never_contradicts_a_stored_result(world):
    """The rule is the service's (any caller, not only the admin), checked under the run's row lock, the lock
    under which a worker stores a result and marks the run scored: a run holding the result of its current round
    is scored and stays so, on the pages and in the ranking. A re-score in progress (a new round, no result of it
    yet) can be marked failed: the earlier results stay stored, as when a re-score fails on its own."""
    from campaign.console import actions
    from evaluation.results import summaries

    c, rb, org = world["c"], world["rb"], world["org"]
    with pytest.raises(ValueError, match="re-score it"):
        actions.mark_failed(rb, actor=org, reason="")
    rb.refresh_from_db()
    assert rb.status == RunStatus.SCORED and rb in summaries.scored_runs(c)
    assert not AuditEntry.objects.filter(action="run.mark_failed").exists()

    Run.objects.filter(pk=rb.pk).update(scoring_round=2, status=RunStatus.SCORING)  # re-scored, stuck
    actions.mark_failed(rb, actor=org, reason="")
    rb.refresh_from_db()
    assert rb.status == RunStatus.FAILED and rb.results.count() == 1 and rb not in summaries.scored_runs(c)
    assert AuditEntry.objects.get(action="run.mark_failed").details == {
        "previous_status": RunStatus.SCORING, "reason": "marked failed by an organiser", "earlier_results": 1}


def test_rescore_action_goes_through_the_scoring_service(client, world, django_capture_on_commit_callbacks, monkeypatch):
    queued = []
    monkeypatch.setattr("campaign.services.runs.enqueue_scoring", queued.append)
    rb = world["rb"]
    with django_capture_on_commit_callbacks(execute=True):
        _act(client, world["org"], "rescore_runs", [rb])
    rb.refresh_from_db()
    assert queued == [rb.pk]
    assert rb.results.count() == 1  # the earlier result is kept until the new one lands
    assert AuditEntry.objects.filter(action="run.rescore", actor=world["org"]).count() == 1


def test_audit_log_admin_is_strictly_read_only(client, world):
    from campaign import audit

    entry = audit.record("campaign.transition", actor=world["org"], campaign=world["c"], target="x")
    root = b.user("root", is_staff=True, is_superuser=True)
    client.force_login(root)
    assert client.get(reverse("admin:campaign_auditentry_changelist")).status_code == 200
    assert client.get(reverse("admin:campaign_auditentry_add")).status_code == 403
    assert client.post(reverse("admin:campaign_auditentry_delete", args=[entry.pk]), {"post": "yes"}).status_code == 403
    response = client.post(reverse("admin:campaign_auditentry_change", args=[entry.pk]), {"action": "edited"})
    assert response.status_code == 403
    changelist = client.get(reverse("admin:campaign_auditentry_changelist")).content.decode()
    assert "delete_selected" not in changelist
    entry.refresh_from_db()
    assert entry.action == "campaign.transition" and AuditEntry.objects.count() == 1

    from django.contrib.admin.sites import site
    from django.test import RequestFactory

    request = RequestFactory().get("/")
    request.user = root
    model_admin = site._registry[AuditEntry]
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, entry)
    assert not model_admin.has_delete_permission(request, entry)


def test_result_admin_is_read_only(client, world):
    root = b.user("root", is_staff=True, is_superuser=True)
    client.force_login(root)
    result = world["ra"].results.get()
    assert client.get(reverse("admin:evaluation_result_changelist")).status_code == 200
    page = client.get(reverse("admin:evaluation_result_change", args=[result.pk]))
    assert page.status_code == 200 and 'type="submit"' not in page.content.decode().split('id="content-main"')[1]
    assert client.post(reverse("admin:evaluation_result_delete", args=[result.pk]), {"post": "yes"}).status_code == 403


def test_admin_pages_render_for_an_organiser(client, world):
    client.force_login(world["org"])
    for name in ("campaign_campaign", "campaign_run", "campaign_team", "evaluation_result"):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 200, name
    html = client.get(reverse("admin:campaign_campaign_changelist")).content.decode()
    assert f">{world['c'].name}<" in html and f">{world['other'].name}<" not in html
    assert client.get(reverse("admin:campaign_campaign_change", args=[world["c"].pk])).status_code == 200
    runs = client.get(reverse("admin:campaign_run_changelist") + "?status__exact=scored").content.decode()
    assert "alpha-1" in runs and "beta-1" in runs


def test_campaign_changes_in_the_admin_are_audited(client, world):
    c = world["c"]
    client.force_login(world["org"])
    url = reverse("admin:campaign_campaign_change", args=[c.pk])
    form = client.get(url).context["adminform"].form
    data = {name: ("" if value is None else value) for name, value in form.initial.items()
            if name not in ("organisers", "metrics")}
    data.update({"organisers": [world["org"].pk], "metrics": "{}", "runs_per_team": 2,
                 "genres-TOTAL_FORMS": 0, "genres-INITIAL_FORMS": 0,
                 "documents-TOTAL_FORMS": 0, "documents-INITIAL_FORMS": 0})
    for key in ("opens_at", "deadline", "results_release_at", "publish_at", "gold_release_at", "archive_at"):
        data.pop(key, None)
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else response
    c.refresh_from_db()
    assert c.runs_per_team == 2
    entry = AuditEntry.objects.get(action="campaign.change", campaign=c)
    assert "runs_per_team" in entry.details["changed"] and entry.actor == world["org"]
