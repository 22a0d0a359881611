"""The campaign kinds, by name, and the scoring queue: what the campaign layer knows of scoring.

A kind (EASY, constituency, dependency) is one object that owns everything
kind-specific: accepted file suffixes, corpus import, validation of a run
against the corpus, loading gold, scoring, the figures it publishes and its
pages. The objects live in ``evaluation.kinds``; that app registers them here
from its ``AppConfig.ready()``, so the campaign layer reaches them by the
campaign's ``kind`` without importing ``evaluation`` (which imports this layer).

Validation and scoring are enqueued by task name, the way workers register by queue name:
the task is registered with Celery by the evaluation app, and this module
only names it.
"""
from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

# A run's two steps, each on its own queue (config.queues): validation (and development checks), then scoring.
VALIDATE_RUN_TASK = "evaluation.tasks.validate_run"
SCORE_RUN_TASK = "evaluation.tasks.score_run"
# The consensus pseudo-run's validation: on the scoring queue, since it is built when a test run is scored
# (docs/consensus.md), so that no validation-queue work starts at a time scoring sets.
VALIDATE_CONSENSUS_TASK = "evaluation.tasks.validate_consensus_run"
# The paired significance tests of a campaign's results table (evaluation.significance.tasks).
SIGNIFICANCE_TASK = "evaluation.significance_tasks.compute_significance"
# The consensus pseudo-run of a campaign, built again when what it combines changes (evaluation.consensus.tasks).
CONSENSUS_TASK = "evaluation.consensus_tasks.build_consensus"
# The publication bundle, built at publication and at the gold release (evaluation.bundle.tasks).
BUNDLE_TASK = "evaluation.bundle_tasks.build_bundle"
# What a withdrawn run's kind stored beside its file for its own reading, deleted (evaluation.upkeep).
FORGET_RUN_TASK = "evaluation.upkeep.forget_run_files"

_KINDS: dict[str, object] = {}


def register(kind) -> None:
    """Make ``kind`` (an object with a ``name``) the implementation of campaigns of that kind."""
    _KINDS[kind.name] = kind


def get(name: str):
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown campaign kind {name!r} (expected one of {', '.join(_KINDS)})") from None


def for_campaign(campaign):
    return get(campaign.kind)


def registered() -> dict[str, object]:
    return dict(_KINDS)


def choices() -> list[tuple[str, str]]:
    """``(name, label)`` of every registered kind: the choices of ``Campaign.kind`` (a callable, so the
    migrations name this function rather than a list, and a new kind changes no migration). The label is
    in the reader's language: the kinds write it in English, as an ``N_`` text."""
    from .problem_texts import translated

    return [(kind.name, translated(kind.label)) for kind in _KINDS.values()]


def _on_commit(task_name: str, *args) -> None:
    """Send the task once the transaction commits; a failure to send is logged, never undoes the change."""
    from django.db import transaction

    def send():
        try:
            enqueue(task_name, *args)
        except Exception:
            logging.getLogger(__name__).exception("could not enqueue %s%r", task_name, args)

    transaction.on_commit(send)


def consensus_changed(campaign_id: int) -> None:
    """Once the transaction commits, ask for the campaign's consensus again (a run left the set, the campaign was
    published): the task does nothing when no consensus is asked for or nothing it combines changed. If it
    cannot be sent, the consensus can be asked for again."""
    _on_commit(CONSENSUS_TASK, campaign_id)


def run_withdrawn(run_id: int) -> None:
    """Once the transaction commits, ask a worker to delete what the run's kind stored beside its file (an EASY
    run's index): nothing will read it again. If it cannot be sent, the hourly upkeep deletes it."""
    _on_commit(FORGET_RUN_TASK, run_id)


_held = threading.local()


def enqueue(task_name: str, *args, **kwargs):
    """Send the task registered under ``task_name`` (run in process when Celery is eager, as in the demo).

    Inside :func:`coalesced` for that task, the sending waits for the end of the block; the keyword
    arguments of the last request for the same positional ones are sent (a newer request replaces an older).
    """
    held = getattr(_held, "tasks", {})
    if task_name in held:
        held[task_name].pop(args, None)
        held[task_name][args] = kwargs  # in the order last asked
        return None
    from celery import current_app

    return current_app.tasks[task_name].delay(*args, **kwargs)


@contextmanager
def coalesced(task_name: str):
    """Send ``task_name`` once per distinct arguments at the end of the block, however often it is asked for.

    For batch work in one process (the demo scores dozens of runs in process): every scored run asks for
    its campaign's paired tests again, and each of those would redo the whole table.
    """
    held = getattr(_held, "tasks", None)
    if held is None:
        held = _held.tasks = {}
    if task_name in held:  # an outer block already holds it
        yield
        return
    held[task_name] = {}
    try:
        yield
    finally:  # what was scored before a failing step still needs its tests
        for args, kwargs in held.pop(task_name).items():
            enqueue(task_name, *args, **kwargs)
