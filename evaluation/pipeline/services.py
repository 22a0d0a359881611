"""Validating and scoring a run (through its campaign's kind), storing its result, re-scoring.

The scoring worker (``evaluation.pipeline.tasks``) calls these; they hold the logic so
that the task only moves the run through its states. The kinds read gold:
this is worker and organiser code, never imported by team-facing views except
for the read helpers at the bottom, which touch only stored results.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from django.db import IntegrityError, transaction

from parseval.annotations.errors import N_
from campaign import audit, kinds
from campaign.models import Run, RunStatus
from campaign.services import runs as run_services
from evaluation.pipeline import delivery
from evaluation.results import disclosure
from evaluation.results.text import percent
from evaluation.models import Result, ResultCell

Progress = Callable[[int, int], None]


class ThrottledProgress:
    """Writes ``Run.progress`` at most once a second (and always at 100%)."""

    def __init__(self, run_id: int, *, start: int = 0, end: int = 100, interval: float = 1.0):
        self.run_id, self.start, self.end, self.interval = run_id, start, end, interval
        self.last_write = 0.0
        self.last_value = -1

    def __call__(self, done: int, total: int) -> None:
        value = self.start + (self.end - self.start) * done // max(total, 1)
        now = time.monotonic()
        if value != self.last_value and (value >= self.end or now - self.last_write >= self.interval):
            delivery.fenced(Run.objects.filter(pk=self.run_id)).update(progress=value)
            self.last_write, self.last_value = now, value


def scoring_parameters(campaign) -> dict:
    """What the campaign's kind scores a run with (stored beside every result)."""
    return kinds.for_campaign(campaign).parameters(campaign)


def validate_run_files(run: Run, files: dict[str, Path], progress: Progress | None = None, *, setup=None) -> dict:
    """The validation report of a run, by its campaign's kind: against the corpus text, never the gold.
    ``setup``: the run's :class:`~evaluation.kinds.contract.RunSetup`, when the caller resolved it."""
    setup = setup or kinds.for_campaign(run.campaign).setup(run)
    return setup.kind.validate_run_files(run, files, setup, progress)


def score_run_files(run: Run, files: dict[str, Path], progress: Progress | None = None, *, setup=None) -> dict:
    """The result document of a validated run, by its campaign's kind (``setup`` as for validation)."""
    setup = setup or kinds.for_campaign(run.campaign).setup(run)
    return setup.kind.score_run_files(run, files, setup, progress)


class NoGold(Exception):
    """There is nothing to score against (a permanent error, said to the team as is)."""


class GoldMismatch(NoGold):
    """The campaign's options do not fit its gold (head rules for another tag set): nothing to score against with
    them. Said to the team as is, so the message holds no figure of the hidden gold."""


# -- storing ---------------------------------------------------------------------------------

def cells_from_document(result: Result, document: dict) -> list[ResultCell]:
    rows = []
    for aggregation, key in ((ResultCell.Aggregation.MICRO, "cells"), (ResultCell.Aggregation.MACRO, "macro")):
        for c in document.get(key, []):
            ci = c.get("ci") or (None, None)
            rows.append(ResultCell(
                result=result, aggregation=aggregation, layer=c["layer"], mode=c.get("mode") or "",
                match=c.get("match") or "", genre=c["genre"], type=c["type"],
                fc=c.get("fc"), fp=c.get("fp"), cr=c.get("cr"), p=c.get("p"), r=c.get("r"), f=c.get("f"),
                ci_low=ci[0], ci_high=ci[1],
            ))
    return rows


def store_result(run: Run, document: dict, *, metric: str, parameters: dict | None = None) -> Result | None:
    """The result, its rows and the run's ``scored`` status, all or nothing.

    ``None`` when this delivery may not store (another one took the run over or already stored
    this round's result; see :mod:`evaluation.pipeline.delivery`): nothing is written then.
    """
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        if not delivery.may_store(locked):
            return None
        try:
            with transaction.atomic():
                result = Result.objects.create(
                    run=locked, metric=metric, signature=document["signature"],
                    scorer_version=document["scorer_version"], gold_sha256=document.get("gold_sha256", ""),
                    parameters=parameters or document.get("parameters", {}), document=document,
                    scoring_round=locked.scoring_round,
                )
        except IntegrityError:  # one result per run, round and scorer version
            return None
        ResultCell.objects.bulk_create(cells_from_document(result, document), batch_size=2000)
        locked.set_status(RunStatus.SCORED, progress=100)
    run.refresh_from_db()
    return result


def rescore(run: Run, actor, *, request=None) -> Run:
    """Score the run again; the new result is added beside the earlier ones."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        locked.task_id = ""
        locked.scoring_round += 1  # the new result is added beside the earlier ones, not refused as a duplicate
        locked.scoring_attempts = 0
        locked.dispatch_pending = True
        locked.save(update_fields=["task_id", "scoring_round", "scoring_attempts", "dispatch_pending"])
        locked.set_status(RunStatus.UPLOADED, reason=N_("re-scoring requested"), progress=0)
        audit.record("run.rescore", actor=actor, campaign=run.campaign, target=f"run {run.pk}",
                     details={"previous_results": locked.results.count()}, request=request)
        transaction.on_commit(lambda: run_services.enqueue_scoring(run.pk))
    run.refresh_from_db()
    return run


# -- reading (no gold: only the stored result) -------------------------------------------------

def latest_result(run: Run) -> Result | None:
    return run.results.order_by("-created_at", "-pk").first()


def result_summary(result: Result, **selection) -> list[dict]:
    """The pooled corpus-wide rows a team sees first, shaped by the kind that produced the result."""
    return kinds.get(result.metric).result_summary(result, **selection)


def shown(cell) -> dict:
    """A stored row as pages write it: percentages with one decimal, "–" where a figure is undefined."""
    return {"p": percent(cell.p), "r": percent(cell.r), "f": percent(cell.f),
            "ci": "" if cell.ci_low is None else f"{percent(cell.ci_low)}–{percent(cell.ci_high)}"}


def public_result_document(result: Result) -> dict:
    """What a team may receive of its own result: the figures, not the engine's warnings.

    The warnings and the per-document counts list which sentences and
    documents have gold (they name missing gold sentences), which stays hidden.
    """
    doc = result.document
    return disclosure.limit_document({
        "signature": doc.get("signature"),
        "scorer_version": doc.get("scorer_version"),
        "gold_sha256": doc.get("gold_sha256"),
        "cells": doc.get("cells", []),
        "macro": doc.get("macro", []),
        "layers_submitted": doc.get("layers_submitted"),
        "parameters": doc.get("parameters"),
    }, result.run)
