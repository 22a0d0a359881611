"""The audit log is append-only through every code path, and organisers can read, filter and export it."""
from __future__ import annotations

import csv
import re
import io
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaign import audit
from campaign.models import AuditEntry

from .conftest import campaign, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry(organiser):
    c = campaign(organiser=organiser)
    return audit.record("campaign.transition", actor=organiser, campaign=c, target=c.slug, details={"from": "a", "to": "b"})


def test_model_save_and_delete_are_refused(entry):
    entry.action = "forged"
    with pytest.raises(PermissionDenied):
        entry.save()
    with pytest.raises(PermissionDenied):
        entry.delete()
    assert AuditEntry.objects.get(pk=entry.pk).action == "campaign.transition"


def test_queryset_update_delete_and_bulk_update_are_refused(entry):
    with pytest.raises(PermissionDenied):
        AuditEntry.objects.filter(pk=entry.pk).update(action="forged")
    with pytest.raises(PermissionDenied):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(PermissionDenied):
        AuditEntry.objects.all().delete()
    entry.action = "forged"
    with pytest.raises(PermissionDenied):
        AuditEntry.objects.bulk_update([entry], ["action"])
    assert AuditEntry.objects.get(pk=entry.pk).action == "campaign.transition"


def test_campaign_with_entries_cannot_be_deleted(entry):
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        entry.campaign.delete()
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_admin_cannot_change_or_delete_an_entry(entry):
    superuser = user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(superuser)
    change = reverse("admin:campaign_auditentry_change", args=[entry.pk])
    delete = reverse("admin:campaign_auditentry_delete", args=[entry.pk])
    changelist = reverse("admin:campaign_auditentry_changelist")
    page = client.get(change)
    assert page.status_code == 200  # readable
    assert b'name="action"' not in page.content  # but no editable field
    client.post(change, {"action": "forged", "target": "x", "details": "{}", "_save": "1"})
    assert client.post(delete, {"post": "yes"}).status_code in (302, 403)
    client.post(changelist, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"})
    assert client.get(reverse("admin:campaign_auditentry_add")).status_code == 403
    client.post(reverse("admin:campaign_auditentry_add"), {"action": "forged", "details": "{}"})
    stored = AuditEntry.objects.get(pk=entry.pk)
    assert (stored.action, stored.target) == ("campaign.transition", entry.target)
    assert not AuditEntry.objects.filter(action="forged").exists()


def test_record_keeps_who_what_when_where(organiser, rf):
    c = campaign(organiser=organiser)
    request = rf.get("/", REMOTE_ADDR="203.0.113.9")
    request.user = organiser
    e = audit.record("run.download", campaign=c, target="run 3", request=request, details={"sha256": "ab"})
    assert (e.actor, e.actor_name, e.ip_address, e.action, e.target) == (organiser, "organiser", "203.0.113.9", "run.download", "run 3")
    assert abs((timezone.now() - e.at).total_seconds()) < 60


@pytest.fixture
def log(organiser, member_a):
    c = campaign(organiser=organiser)
    old = timezone.now() - timedelta(days=10)
    AuditEntry.objects.create(action="run.upload", actor=member_a, actor_name="alice", campaign=c, target="run 1", at=old)
    audit.record("run.withdraw", actor=member_a, campaign=c, target="run 1")
    audit.record("campaign.transition", actor=None, campaign=c, target=c.slug, details={"from": "open", "to": "closed"})
    audit.record("campaign.transition", actor=organiser, campaign=campaign(organiser=organiser), target="other")
    return c


def _client(u):
    client = Client()
    client.force_login(u)
    return client


def test_audit_page_filters(log, organiser):
    url = reverse("governance:audit_log", kwargs={"slug": log.slug})
    client = _client(organiser)
    page = client.get(url)
    assert page.status_code == 200
    assert len(page.context["page"].object_list) == 3  # not the other campaign's entry
    assert [e.action for e in client.get(url, {"action": "run."}).context["page"]] == ["run.withdraw", "run.upload"]
    assert [e.actor_name for e in client.get(url, {"actor": "system"}).context["page"]] == [""]
    assert [e.action for e in client.get(url, {"actor": "ALICE"}).context["page"]] == ["run.withdraw", "run.upload"]
    today = timezone.now().date()
    recent = client.get(url, {"since": str(today - timedelta(days=1)), "until": str(today)})
    assert {e.action for e in recent.context["page"]} == {"run.withdraw", "campaign.transition"}
    older = client.get(url, {"until": str(today - timedelta(days=5))})
    assert [e.action for e in older.context["page"]] == ["run.upload"]
    bad = client.get(url, {"since": str(today), "until": str(today - timedelta(days=2))})
    assert b"The start day is after the end day." in bad.content


def test_anonymous_and_system_are_told_apart_and_details_read_as_key_value_lines(log, organiser, rf):
    from django.contrib.auth.models import AnonymousUser

    request = rf.get("/")
    request.user = AnonymousUser()
    audit.record("dev_sample.download", campaign=log, target="dev", request=request, details={"documents": ["a", "b"]})
    client = _client(organiser)
    url = reverse("governance:audit_log", kwargs={"slug": log.slug})
    html = client.get(url).content.decode()
    rows = re.findall(r"<tr><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>", html)
    assert ("anonymous", "dev_sample.download") in rows and ("system", "campaign.transition") in rows
    # details: a short list, not a Python dict
    assert '<ul class="kv"><li>from: open</li><li>to: closed</li></ul>' in html
    assert "<li>documents: a, b</li>" in html and "{&#x27;" not in html
    assert [e.target for e in client.get(url, {"actor": "anonymous"}).context["page"]] == ["dev"]
    assert [e.action for e in client.get(url, {"actor": "system"}).context["page"]] == ["campaign.transition"]


def test_audit_csv_is_streamed_filtered_and_itself_audited(log, organiser):
    url = reverse("governance:audit_csv", kwargs={"slug": log.slug})
    response = _client(organiser).get(url, {"action": "run."})
    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == audit.CSV_COLUMNS
    assert [(r[1], r[2], r[4]) for r in rows[1:]] == [("alice", "run.withdraw", "run 1"), ("alice", "run.upload", "run 1")]
    assert AuditEntry.objects.filter(campaign=log, action="audit.export", actor=organiser).exists()


@pytest.mark.parametrize("who", ["anonymous", "member", "other organiser"])
def test_audit_pages_are_the_organisers_own(log, who, member_a):
    client = Client()
    if who == "member":
        client.force_login(member_a)
    elif who == "other organiser":
        client.force_login(user("someone-else"))
    for name in ("audit_log", "audit_csv"):
        response = client.get(reverse(f"governance:{name}", kwargs={"slug": log.slug}))
        assert response.status_code in (302, 404)
        if response.status_code == 302:
            assert "/accounts/login/" in response["Location"]
