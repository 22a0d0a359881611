"""Scheduled transitions through the real broker: the beat task, sent by name to a Celery worker
process over Redis, closes a campaign whose deadline has passed. Needs PostgreSQL and Redis;
fails, never skips, without them."""
from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from campaign.models import AuditEntry, Campaign
from tests.integration.test_worker_scoring import (  # noqa: F401 (fixtures)
    broker_queue, logged_success, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_beat_task_closes_a_campaign_in_a_worker_process(workers, broker_queue):  # noqa: F811
    from config.celery import app

    proc, log_path = workers.start()
    due = Campaign.objects.create(name="Due", slug="due", state="open",
                                             deadline=timezone.now() - timedelta(seconds=5))
    later = Campaign.objects.create(name="Later", slug="later", state="open",
                                    deadline=timezone.now() + timedelta(days=1))
    ready = time.monotonic() + 60
    while " ready." not in log_path.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > ready:
            pytest.fail(f"the worker did not start:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.25)
    entry = next(e for e in settings.CELERY_BEAT_SCHEDULE.values() if e["task"] == "campaign.apply_scheduled_transitions")
    result = app.send_task(entry["task"], queue=broker_queue)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        due.refresh_from_db()
        if due.state == "closed":
            break
        if proc.poll() is not None:
            pytest.fail(f"the worker exited:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.5)
    else:
        pytest.fail(f"the campaign is still {due.state}; worker log:\n{log_path.read_text(errors='replace')}")
    later.refresh_from_db()
    assert later.state == "open"
    audit = AuditEntry.objects.get(campaign=due, action="campaign.transition")
    assert audit.actor is None and audit.details["to"] == "closed"
    # applied by the worker process, not in this one
    assert logged_success(log_path, result.id), log_path.read_text(errors="replace")
