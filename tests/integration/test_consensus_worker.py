"""The consensus with real workers: two teams' scored runs ask for it, the scoring worker builds it (coalesced),
and the validation and scoring workers score it as any run."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from campaign.models import Run, RunStatus
from config import queues
from evaluation.models import ConsensusSetting, Result
from tests import factories
from tests.integration.test_queues import wait_for
from tests.integration.test_worker_scoring import (  # noqa: F401  (fixtures used here)
    BROKER_URL, api_for, broker_queue, queue_prefix, worker_storage, workers,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _two_teams_upload_the_gold(slug: str) -> tuple:
    """A campaign that builds its consensus, and two teams' test runs (copies of the gold) uploaded to it."""
    campaign = factories.make_easy_campaign(factories.SMALL_EASY_FILES, slug=slug)
    ConsensusSetting.objects.create(campaign=campaign, enabled=True)
    uploaded = []
    for name in ("alice", "bob"):
        user = factories.make_user(name)
        factories.make_team(campaign, user, name=f"Team {name}")
        response = api_for(user).post(f"/api/campaigns/{campaign.slug}/runs/",
                                      {"name": f"{name}'s run", "scope": "test",
                                       "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())},
                                      format="multipart")
        assert response.status_code == 201, response.content
        uploaded.append(response.json()["id"])
    return campaign, uploaded


def test_a_worker_builds_and_scores_the_consensus_of_the_scored_runs(workers):  # noqa: F811
    campaign, uploaded = _two_teams_upload_the_gold("consensus-worker")
    _, validation_log = workers.start("validation", roles=(queues.VALIDATION,))
    _, scoring_log = workers.start("scoring", roles=(queues.SCORING,))
    logs = [validation_log, scoring_log]

    def consensus():
        return Run.objects.filter(campaign=campaign, team__system=True, withdrawn_at__isnull=True).first()

    wait_for(lambda: consensus() is not None and consensus().status == RunStatus.SCORED,
             "the consensus built and scored", logs)
    run = consensus()
    assert sorted(c["run"] for c in run.combination["runs"]) == sorted(uploaded)
    mine = Result.objects.get(run=run)
    theirs = Result.objects.get(run_id=uploaded[0])
    assert (mine.signature, mine.gold_sha256, mine.scorer_version) == \
        (theirs.signature, theirs.gold_sha256, theirs.scorer_version)
    # The consensus of two copies of the gold is the gold: every relation found.
    cell = mine.cells.get(layer="relations", mode="HYP", match="EQUAL", genre="ALL", type="ALL",
                          aggregation="micro")
    assert cell.f == 1.0
    assert "Task evaluation.consensus_tasks.build_consensus[" in scoring_log.read_text(errors="replace")
    # The two runs' requests were coalesced: however many asked, one consensus (the first run alone is too few).
    assert Run.objects.filter(campaign=campaign, team__system=True).count() == 1


def test_a_consensus_build_never_puts_work_on_the_validation_queue(workers):  # noqa: F811
    """The consensus follows test-run scoring; validated on the validation queue, it would put work there at a
    time scoring sets, which teams' validation reports then wait behind (docs/consensus.md). With the validation
    worker gone once the teams' runs are validated, the scoring worker alone builds, validates and scores the
    consensus, and the validation queue stays empty throughout."""
    import redis

    campaign, uploaded = _two_teams_upload_the_gold("consensus-queues")
    validation, validation_log = workers.start("validation", roles=(queues.VALIDATION,))
    wait_for(lambda: Run.objects.filter(pk__in=uploaded, status=RunStatus.QUEUED).count() == 2,
             "the teams' runs validated", [validation_log])
    validation.terminate()
    validation.wait(timeout=30)
    broker = redis.Redis.from_url(BROKER_URL)
    validation_queues = [queue_prefix(workers.queue) + queues.VALIDATION, workers.queue]  # with the default queue
    assert [broker.llen(q) for q in validation_queues] == [0, 0]

    _, scoring_log = workers.start("scoring", roles=(queues.SCORING,))

    def consensus():
        return Run.objects.filter(campaign=campaign, team__system=True, withdrawn_at__isnull=True).first()

    def waiting_for_validation() -> int:
        return sum(broker.llen(q) for q in validation_queues)

    wait_for(lambda: waiting_for_validation() or (consensus() is not None and consensus().status == RunStatus.SCORED),
             "the consensus built and scored by the scoring worker alone", [validation_log, scoring_log])
    assert waiting_for_validation() == 0, "the consensus put work on the validation queue"
    run = consensus()
    assert run.status == RunStatus.SCORED and run.validation_report["valid"] is True
    text = scoring_log.read_text(errors="replace")
    assert "Task evaluation.tasks.validate_consensus_run[" in text and "Task evaluation.tasks.validate_run[" not in text
    assert Result.objects.get(run=run).cells.get(layer="relations", mode="HYP", match="EQUAL", genre="ALL",
                                                 type="ALL", aggregation="micro").f == 1.0
