"""Which queue each task goes to: the three kinds of work never wait behind each other.

* ``validation``: validating every run and scoring development checks. What a team sees before
  release comes from here only, so no time it can observe depends on how long test runs take to score.
* ``scoring``: scoring test runs once they are valid (``score_run``, chained by ``validate_run``), and
  the shards of a large run scored across workers (``score_shard``, :mod:`evaluation.pipeline.sharding`), and
  building the consensus of a campaign's runs (:mod:`evaluation.consensus.tasks`), which follows their scoring
  and is itself a run to score: validated here too (``validate_consensus_run``), never on the validation queue,
  whose work must not start at a time test-run scoring sets.
* ``significance``: the paired significance tests of a campaign's results table, at most one
  pending computation per campaign (:mod:`evaluation.significance.tasks`), the organisers'
  error-lab jobs and the publication bundle: slow analysis that must not hold up scoring.
* ``periodic``: beat's short periodic tasks (the recovery sweep, :mod:`evaluation.pipeline.recovery`, the shards'
  watch, :func:`evaluation.pipeline.sharding.watch_shards`, the scheduled transitions and the disk upkeep,
  :mod:`evaluation.upkeep`), on the default queue, with a worker of its own: a validation or a scoring that
  hangs cannot stop the sweep that would recover it. Any task without a route lands here too.

Queue names carry ``PARSEVAL_QUEUE_PREFIX`` (empty in production) and are read at each call, so a
test session can route to queues of its own. Celery calls :func:`route` (``CELERY_TASK_ROUTES``);
an explicit ``queue=`` given when sending wins over it.
"""
from __future__ import annotations

from django.conf import settings

VALIDATION, SCORING, SIGNIFICANCE, PERIODIC = "validation", "scoring", "significance", "periodic"
ROLES = (VALIDATION, SCORING, SIGNIFICANCE, PERIODIC)

ROUTES = {
    "evaluation.tasks.validate_run": VALIDATION,
    "evaluation.tasks.score_run": SCORING,
    "evaluation.sharding.score_shard": SCORING,
    "evaluation.significance_tasks.compute_significance": SIGNIFICANCE,
    "evaluation.significance_tasks.precompute_pages": SIGNIFICANCE,
    "evaluation.consensus_tasks.build_consensus": SCORING,
    "evaluation.tasks.validate_consensus_run": SCORING,
    "evaluation.lab.tasks.run_error_lab_job": SIGNIFICANCE,
    "evaluation.bundle_tasks.build_bundle": SIGNIFICANCE,
    "evaluation.analysis.tasks.analyse_result": SIGNIFICANCE,
    "evaluation.analysis.tasks.precompute_value": SIGNIFICANCE,
}


def queue_name(role: str) -> str:
    if role == PERIODIC:
        return settings.CELERY_TASK_DEFAULT_QUEUE
    return settings.PARSEVAL_QUEUE_PREFIX + role


def worker_queues(role: str) -> str:
    """The ``-Q`` argument of a worker of ``role``."""
    return queue_name(role)


def route(name, args, kwargs, options, task=None, **kw):
    role = ROUTES.get(name)
    return {"queue": queue_name(role)} if role else None
