"""What the errors page and the two-run comparison compute from several stored analyses, computed once by a worker
and kept (:class:`~evaluation.models.AnalysisValue`), as the significance pages' summary is
(:mod:`evaluation.significance.precomputed`): no page view compares runs' errors or resamples.

* the errors page: the run's errors against those of the other runs of its subset its reader may see
  (:func:`errors_value`). Which runs those are depends on the reader, so the value is keyed by the run's result
  and the sorted ids of the other results the reader may see, not by the reader: readers who see the same runs
  read the same value;
* the comparison of two runs bucket by bucket (:func:`compare_value`: the campaign's paired test in every bucket
  of one attribute), keyed by the two results, the attribute and the campaign's significance settings.

Each key also names the analysis schema and :data:`VERSION` (the stored value's shape). A page that finds no
value says it is being computed and asks a worker for it, once in five minutes per key (:func:`request`); the
task (on the analysis queue) computes it from the results named in its key. The page is built only after the
access rules (:mod:`.access`) let its reader in, from results they let them read: a reader who may not see a
run gets the same 404 as before, and the task is asked only for results the reader may see.

Kept values are removed by the hourly upkeep (:func:`sweep`, :mod:`evaluation.upkeep`) once no page has read
them for ``PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS``: a reading refreshes ``read_at`` (at most once per
:func:`refresh_seconds`, one small write), so a value in use is never removed, and one keyed by a set of runs
nobody sees any more (a run added, withdrawn or re-scored since: each makes a new key) goes one idle period
after its last reading. A page that finds its value gone asks a worker again, as for a new one.

Without a worker (Celery eager: the development server, the demo, the tests) the request computes it at once, in
the process, as the analyses themselves are (:func:`evaluation.analysis.store.analysis_of`).
"""
from __future__ import annotations

import hashlib
import json
import logging
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from evaluation.models import AnalysisValue, Result
from evaluation.pipeline.worker import TASK_OPTIONS, ask_once

from . import pairwise, store

logger = logging.getLogger(__name__)

VERSION = 1  # the shape of the stored values: another version's are never read
TASK = "evaluation.analysis.tasks.precompute_value"
ERRORS, COMPARE = "errors", "compare"
ERROR_LIMIT = 300  # errors listed per table (the counts cover them all)


def key_of(page: str, described: list) -> str:
    text = json.dumps([page, store.SCHEMA, VERSION, *described], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def errors_arguments(mine, others) -> list:
    """The errors value's arguments: the run's result and its analysis (``mine``, a :class:`.store.Stored`'s row
    is ``mine.row``), then ``[result, its analysis or None]`` of each other result the reader may see, in
    order. An analysis kept anew for the same result (another row) makes another key."""
    from evaluation.models import RunAnalysis

    ids = sorted({int(r) for r in others} - {int(mine.row.result_id)})
    kept = dict(RunAnalysis.objects.filter(result_id__in=ids, schema=store.SCHEMA).values_list("result_id", "pk"))
    return [int(mine.row.result_id), mine.row.pk, [[r, kept.get(r)] for r in ids]]


def compare_arguments(a, b, attribute: str, options: dict) -> list:
    """The comparison's arguments: the two results, the attribute, the test's settings, the two analyses."""
    return [int(a.row.result_id), int(b.row.result_id), attribute,
            {k: options[k] for k in ("method", "resamples", "seed", "alpha")}, a.row.pk, b.row.pk]


def read(page: str, arguments: list):
    """The kept value of ``page`` for ``arguments`` (decoded JSON), or None while it is being computed. A value
    last marked read more than :func:`refresh_seconds` ago is marked read now (what keeps it from the sweep)."""
    key = key_of(page, arguments)
    found = AnalysisValue.objects.filter(key=key).values_list("data", "read_at").first()
    if found is None:
        return None
    data, read_at = found
    now = timezone.now()
    if read_at < now - timedelta(seconds=refresh_seconds()):
        _mark_read(key, now)
    return json.loads(data)


def refresh_seconds() -> float:
    """How stale ``read_at`` may be: an hour, or a quarter of the idle time if that is shorter. A value read
    within the idle time less this is never removed."""
    return min(3600.0, settings.PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS / 4)


def _mark_read(key: str, now) -> None:
    """``read_at`` set to ``now``; a failure (the database busy, read only) is logged, never the page's."""
    try:
        with transaction.atomic():  # a savepoint: a failure leaves the page's transaction usable
            AnalysisValue.objects.filter(key=key, read_at__lt=now).update(read_at=now)
    except DatabaseError:
        logger.warning("analysis value %s: reading not recorded", key[:12], exc_info=True)


def value(page: str, arguments: list):
    """The kept value, or None after asking a worker for it (computed at once when there is no worker)."""
    found = read(page, arguments)
    if found is None:
        request(page, arguments)
        if settings.CELERY_TASK_ALWAYS_EAGER:
            found = read(page, arguments)
    return found


def request(page: str, arguments: list) -> None:
    """Ask a worker for the value, at most once in five minutes per key; never fails the page."""
    ask_once(f"analysis:value:asked:{key_of(page, arguments)}", TASK, page, arguments,
             every_time=settings.CELERY_TASK_ALWAYS_EAGER)


# -- computing (the worker) ----------------------------------------------------------------------------

def errors_value(mine, others: list) -> dict:
    """The errors page's figures and lists: the run's errors (``mine``, a stored index) against ``others`` (the
    indexes of the other runs, of the same kind) with :func:`parseval.evaluation.confusions.common_errors`: hard
    for everyone when at least half of the runs, and more than one, make it; the run's own when no other does."""
    from collections import Counter

    from parseval.evaluation.confusions import common_errors

    if not others:  # no other run to share an error with: every error is this run's alone (read the first only)
        listed = [{"sentence": e[0], "what": e[1], "label": e[2], "item": e[3], "runs": ["0"]}
                  for e in mine.first_errors(ERROR_LIMIT)]
        return {"runs": 1, "errors": mine.error_count(), "threshold": 2, "hard_count": 0,
                "alone_count": mine.error_count(), "hard": [], "alone": _error_rows(listed), "labels": []}
    lists = [[tuple(e) for e in index.get("errors", [])] for index in [mine, *others]]
    found = common_errors(lists, names=[str(k) for k in range(len(lists))], limit=ERROR_LIMIT)
    mine_set = set(lists[0])
    made = Counter(e for errors in lists for e in set(errors))  # how many runs make each error
    hard = [e for e in found["hard"] if (e["sentence"], e["what"], e["label"], e["item"]) in mine_set]
    return {"runs": len(lists), "errors": len(mine_set), "threshold": found["threshold"],
            "hard_count": sum(1 for e in mine_set if made[e] >= found["threshold"]),
            "alone_count": found["single_run"]["0"], "hard": _error_rows(hard),
            "alone": _error_rows(found["only"]["0"]), "labels": found["labels"]}


def _error_rows(listed) -> list[dict]:
    return [{"key": e["sentence"], "what": f"{e['what']}: {e['item']}", "runs": len(e["runs"])} for e in listed]


def _analysis(result_id: int):
    result = Result.objects.filter(pk=result_id).select_related("run__campaign", "run__team").defer("document").first()
    return store.analysis_of(result) if result is not None else None


def compute(page: str, arguments: list):
    """The value of ``page`` for ``arguments``, from the results' stored analyses (None: the run's is gone)."""
    if page == ERRORS:
        mine = _analysis(arguments[0])
        if mine is None:
            return None
        others = []
        for rid, _kept in arguments[2]:
            other = _analysis(rid)
            if other is not None and other.index.get("kind") == mine.index.get("kind"):
                others.append(other.index)
        return errors_value(mine.index, others)
    if page == COMPARE:
        a, b = _analysis(arguments[0]), _analysis(arguments[1])
        if a is None or b is None:
            return None
        return pairwise.compare(a.index, b.index, arguments[2], arguments[3])
    raise ValueError(f"no such analysis value: {page!r}")


def store_value(page: str, arguments: list) -> str:
    key = key_of(page, arguments)
    if AnalysisValue.objects.filter(key=key).exists():  # a redelivery, or asked twice
        return "kept"
    started = time.perf_counter()
    made = compute(page, arguments)
    if made is None:
        return "no analysis"
    try:
        with transaction.atomic():
            AnalysisValue.objects.create(result_id=arguments[0], page=page, key=key, data=json.dumps(made),
                                         seconds=time.perf_counter() - started)
    except IntegrityError:  # computed at the same time by another worker: keep the first
        return "kept"
    return f"{page} of result {arguments[0]} in {time.perf_counter() - started:.1f} s"


@shared_task(name=TASK, **TASK_OPTIONS)
def precompute_value(self, page: str, arguments: list) -> str:
    return store_value(page, arguments)


# -- the upkeep -----------------------------------------------------------------------------------------

def sweep(now=None) -> dict:
    """Remove the kept values no page read for ``PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS`` (never less than the task
    time limit: a value a worker has just stored for a page that asked is that page's to read); counts of the
    values found and removed. A page that needs a removed value again asks a worker for it, as for a new one."""
    now = timezone.now() if now is None else now
    idle = max(settings.PARSEVAL_ANALYSIS_VALUE_IDLE_SECONDS, settings.CELERY_TASK_TIME_LIMIT)
    found = AnalysisValue.objects.count()
    # no model refers to these rows and no signal is attached: one DELETE, the rows never loaded
    removed, _ = AnalysisValue.objects.filter(read_at__lt=now - timedelta(seconds=idle)).delete()
    return {"values": found, "idle": removed}
