"""Celery task names are a wire format (queued messages, the routes, the beat schedule): moving a module must not
rename its tasks. These are the names the tasks had before the app was laid out by feature (issue 36)."""
from __future__ import annotations

from celery import current_app
from django.conf import settings

from config import queues

NAMES = {
    "evaluation.tasks.validate_run", "evaluation.tasks.score_run", "evaluation.tasks.validate_consensus_run",
    "evaluation.sharding.score_shard", "evaluation.sharding.watch_shards", "evaluation.recover_runs",
    "evaluation.significance_tasks.compute_significance", "evaluation.consensus_tasks.build_consensus",
    "evaluation.bundle_tasks.build_bundle", "evaluation.lab.tasks.run_error_lab_job",
    # added since (issue 39): the significance pages' summary
    "evaluation.significance_tasks.precompute_pages",
    "evaluation.analysis.tasks.analyse_result",  # issue 38: a new task, not a moved one
    "evaluation.analysis.tasks.precompute_value",  # the errors and two-run comparison pages' kept values
    "evaluation.upkeep.sweep_caches",  # the periodic removal of run indexes and significance figures unused
    "evaluation.upkeep.forget_run_files",  # a withdrawn run's kind's files beside its run file, deleted
}


def test_every_task_keeps_its_name_and_every_route_and_schedule_names_a_task():
    # the evaluation app registers its tasks from ready() (campaign's come with Celery's autodiscovery)
    registered = {name for name in current_app.tasks if name.startswith("evaluation.")}
    assert registered == NAMES
    assert set(queues.ROUTES) <= registered
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {name for name in scheduled if name.startswith("evaluation.")} <= registered
