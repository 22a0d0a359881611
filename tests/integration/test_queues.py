"""Queue independence: validation never waits behind test-run scoring (a real worker per queue).

With only a validation worker running, and the scoring queue holding a test run's scoring that nobody takes,
validation reports and development checks still come: routing sends nothing a team sees before release to
the scoring queue. Then a scoring worker takes what waits for it.
"""
from __future__ import annotations

import time

import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.models import GoldSentence
from campaign.models import Run, RunStatus
from config import queues
from evaluation.models import Result
from tests import factories
from tests.integration.test_worker_scoring import (  # noqa: F401  (fixtures used here)
    BROKER_URL, api_for, broker_queue, queue_prefix, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 120


def wait_for(condition, what: str, logs) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    shown = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-5000:]}" for p in logs)
    pytest.fail(f"{what}: not within {WAIT_SECONDS}s; runs {list(Run.objects.values_list('pk', 'scope', 'status'))}"
                f"\n{shown}")


def queued_messages(queue: str) -> int:
    return redis.Redis.from_url(BROKER_URL).llen(queue)


def test_validation_and_development_checks_never_wait_for_test_run_scoring(workers):  # noqa: F811
    campaign = factories.make_easy_campaign(factories.SMALL_EASY_FILES, slug="queues", runs_per_team=10)
    dev = GoldSentence.objects.filter(sentence__document__name="mail_10").order_by("sentence__position")[:20]
    GoldSentence.objects.filter(pk__in=[g.pk for g in dev]).update(subset="dev")
    user = factories.make_user("queues")
    factories.make_team(campaign, user, name="Queues team")
    api = api_for(user)

    def upload(name: str, scope: str) -> int:
        response = api.post(f"/api/campaigns/{campaign.slug}/runs/",
                            {"name": name, "scope": scope,
                             "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())}, format="multipart")
        assert response.status_code == 201, response.content
        return response.json()["id"]

    _, validation_log = workers.start("validation", roles=(queues.VALIDATION,))
    first = upload("test run", "test")
    wait_for(lambda: Run.objects.get(pk=first).status == RunStatus.QUEUED, "the test run validated", [validation_log])
    scoring_queue = queue_prefix(workers.queue) + queues.SCORING
    # its scoring waits on the scoring queue, which nobody consumes (sent just after the queued status is written)
    wait_for(lambda: queued_messages(scoring_queue) == 1, "the scoring message queued", [validation_log])

    # Behind that scoring: another test run's validation and a development check, both done at once.
    second, check = upload("second test run", "test"), upload("dev check", "dev")
    wait_for(lambda: Run.objects.get(pk=second).status == RunStatus.QUEUED
             and Run.objects.get(pk=check).status == RunStatus.SCORED,
             "the second validation and the development check", [validation_log])
    assert Run.objects.get(pk=second).validation_report["valid"] is True
    assert Result.objects.filter(run_id=check).count() == 1
    assert not Result.objects.filter(run_id__in=[first, second]).exists()
    wait_for(lambda: queued_messages(scoring_queue) == 2, "the second scoring message queued", [validation_log])

    _, scoring_log = workers.start("scoring", roles=(queues.SCORING,))
    wait_for(lambda: Run.objects.filter(pk__in=[first, second], status=RunStatus.SCORED).count() == 2,
             "the test runs scored by the scoring worker", [validation_log, scoring_log])
    assert Result.objects.filter(run_id__in=[first, second]).count() == 2
    scoring_text = scoring_log.read_text(errors="replace")
    assert "Task evaluation.tasks.score_run[" in scoring_text and "Task evaluation.tasks.validate_run[" not in scoring_text


def test_the_compose_file_runs_a_worker_for_each_queue_and_none_mixes_scoring_with_validation():
    from pathlib import Path

    import yaml

    compose = yaml.safe_load((Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text())
    consumed = {}
    for name, service in compose["services"].items():
        command = service.get("command") or []
        if command[:4] == ["celery", "-A", "config", "worker"]:
            consumed[name] = command[command.index("-Q") + 1]
    assert sorted(consumed.values()) == sorted(queues.worker_queues(role) for role in queues.ROLES)
    assert all(not ({"scoring", "validation"} <= set(q.split(","))) for q in consumed.values())
