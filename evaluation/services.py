"""Validating and scoring a run, storing its result, re-scoring.

The scoring worker (``evaluation.tasks``) calls these; they hold the logic so
that the task only moves the run through its states. This module reads gold:
it is worker and organiser code, never imported by team-facing views except
for the read helpers at the bottom, which touch only stored results.
"""
from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Callable

from django.core.exceptions import ObjectDoesNotExist
from django.db import transaction
from django.utils import timezone

from annotations.easy import DEFAULT_SCHEMA, EasySchema, read_document, reference_forms, validate_run
from annotations.easy.model import Document
from annotations.errors import Problem
from campaign import audit
from campaign.models import Run, RunStatus
from evaluation.easy.files import gold_sha256_bytes
from evaluation.models import Result, ResultCell

Progress = Callable[[int, int], None]
ENGINE = "easy"
MAX_REPORTED = 1000  # problems listed in a report; the count says how many there were


# -- what the run is checked and scored with ------------------------------------------

def campaign_schema(campaign) -> EasySchema:
    """The schema of the current guide version, or the engine's default. ValueError if malformed."""
    try:
        version = campaign.guide.current
    except ObjectDoesNotExist:  # the campaign has no guide
        version = None
    if version is not None and version.schema:
        return EasySchema.from_dict(version.schema)
    return DEFAULT_SCHEMA


def scoring_parameters(campaign) -> dict:
    """Range functions, modes, bootstrap size and seed: the engine's defaults unless the campaign sets them."""
    from evaluation.easy.ranges import MATCHES, MODES
    from evaluation.easy.scoring import DEFAULT_BOOTSTRAP, DEFAULT_SEED

    metrics = campaign.metrics or {}
    return {
        "matches": list(metrics.get("matches") or MATCHES),
        "modes": list(metrics.get("modes") or MODES),
        "bootstrap": int(metrics.get("bootstrap", DEFAULT_BOOTSTRAP)),
        "seed": int(metrics.get("seed", DEFAULT_SEED)),
    }


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
            Run.objects.filter(pk=self.run_id).update(progress=value)
            self.last_write, self.last_value = now, value


# -- validation: against the corpus text, the same for sentences with and without gold ------

def validate_run_files(run: Run, files: dict[str, Path], schema: EasySchema, progress: Progress | None = None) -> dict:
    """The validation report of a run: every problem, over every corpus document.

    The reference is the corpus text teams downloaded, never the gold, so no
    message, count or order depends on which sentences have gold.
    """
    problems: list[Problem] = []
    warnings: list[Problem] = []
    documents = list(run.campaign.documents.order_by("order", "name"))
    sentences = 0
    for done, doc in enumerate(documents, 1):
        path = files.get(doc.name)
        if path is None:
            problems.append(Problem(f"no file for corpus document {doc.name}: a run must cover every document",
                                    file=f"{doc.name}.xml"))
        else:
            with doc.text_file.open("rb") as text:
                expected = reference_forms(read_document(text, gold=True, name=f"{doc.name}.xml"))
            sentences += len(expected)
            # named as the team named it: the unpacked copy has a temporary name
            problems.extend(validate_run(path, expected, schema=schema, warnings=warnings, name=f"{doc.name}.xml"))
        if progress:
            progress(done, len(documents))
    return {
        "valid": not problems,
        "checked_at": timezone.now().isoformat(),
        "schema": schema.name,
        "documents": len(documents),
        "sentences": sentences,
        "problem_count": len(problems),
        "problems": [p.as_dict() for p in problems[:MAX_REPORTED]],
        "warnings": [w.as_dict() for w in warnings[:MAX_REPORTED]],
        "warning_count": len(warnings),
    }


# -- scoring: against the gold of the run's scope --------------------------------------------

def load_gold(run: Run, schema: EasySchema) -> tuple[dict[str, Document], dict[str, str], str, int]:
    """Gold documents restricted to the run's subset, the genre map, the gold checksum, sentence count."""
    from annotations.models import GoldDocument, GoldSentence

    subset = GoldSentence.Subset.DEV if run.scope == Run.Scope.DEV else GoldSentence.Subset.TEST
    wanted: dict[int, set[str]] = defaultdict(set)
    for doc_id, sid in GoldSentence.objects.filter(
        sentence__document__campaign=run.campaign, subset=subset
    ).values_list("sentence__document_id", "sentence__sid"):
        wanted[doc_id].add(sid)
    gold_docs: dict[str, Document] = {}
    genres: dict[str, str] = {}
    checksum_files: dict[str, bytes] = {}
    partial = False
    count = 0
    for gold in GoldDocument.objects.filter(document_id__in=list(wanted)).select_related("document__genre"):
        doc = gold.document
        with gold.file.open("rb") as fh:
            data = fh.read()
        full = read_document(gold.file.path, gold=True, strict=True, schema=schema, name=f"{doc.name}.xml")
        keep = wanted[doc.pk]
        sentences = [s for s in full.sentences if s.id in keep]
        partial |= len(sentences) != len(full.sentences)
        gold_docs[doc.name] = Document(name=f"{doc.name}.xml", sentences=sentences, warnings=full.warnings,
                                       has_constituents=full.has_constituents, has_relations=full.has_relations)
        genres[doc.name] = doc.genre.code
        checksum_files[f"{doc.name}.xml"] = data
        count += len(sentences)
    if partial:
        # The files alone do not say which sentences were scored: the subset is part of the checksum.
        listing = "\n".join(f"{d}:{sid}" for d in sorted(gold_docs) for sid in sorted(s.id for s in gold_docs[d].sentences))
        checksum_files[f"subset-{subset}"] = listing.encode("utf-8")
    return gold_docs, genres, gold_sha256_bytes(checksum_files), count


def score_run_files(run: Run, files: dict[str, Path], schema: EasySchema, progress: Progress | None = None) -> dict:
    """The engine's result document for a validated run."""
    from evaluation.easy.scoring import score_corpus

    gold_docs, genres, checksum, count = load_gold(run, schema)
    if not count:
        raise NoGold("the development sample is empty" if run.scope == Run.Scope.DEV
                     else "the campaign has no gold for its test set yet")
    params = scoring_parameters(run.campaign)
    run_docs = {name: files[name] for name in gold_docs if name in files}
    return score_corpus(gold_docs, run_docs, genres, matches=params["matches"], modes=params["modes"],
                        bootstrap=params["bootstrap"], seed=params["seed"], gold_sha256=checksum,
                        progress=progress, schema=schema)


class NoGold(Exception):
    """There is nothing to score against (a permanent error, said to the team as is)."""


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


def store_result(run: Run, document: dict, *, metric: str = ENGINE, parameters: dict | None = None) -> Result:
    """The result, its rows and the run's ``scored`` status, all or nothing."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        result = Result.objects.create(
            run=locked, metric=metric, signature=document["signature"], scorer_version=document["scorer_version"],
            gold_sha256=document.get("gold_sha256", ""), parameters=parameters or document.get("parameters", {}),
            document=document,
        )
        ResultCell.objects.bulk_create(cells_from_document(result, document), batch_size=2000)
        locked.set_status(RunStatus.SCORED, progress=100)
    run.refresh_from_db()
    return result


def rescore(run: Run, actor, *, request=None) -> Run:
    """Score the run again; the new result is added beside the earlier ones."""
    from campaign.services.runs import enqueue_scoring

    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        locked.task_id = ""
        locked.save(update_fields=["task_id"])
        locked.set_status(RunStatus.UPLOADED, reason="re-scoring requested", progress=0)
        audit.record("run.rescore", actor=actor, campaign=run.campaign, target=f"run {run.pk}",
                     details={"previous_results": locked.results.count()}, request=request)
        transaction.on_commit(lambda: enqueue_scoring(run.pk))
    run.refresh_from_db()
    return run


# -- reading (no gold: only the stored result) -------------------------------------------------

def latest_result(run: Run) -> Result | None:
    return run.results.order_by("-created_at", "-pk").first()


def result_summary(result: Result, *, match: str = "EQUAL", mode: str = "HYP") -> list[dict]:
    """The pooled corpus-wide rows a team sees first: per layer, all types, micro and macro."""
    from evaluation.easy.scoring import ALL

    rows = []
    if result.metric != ENGINE:
        # The tree and dependency kinds store one row per figure, with no mode or match.
        for cell in result.cells.filter(genre=ALL, type=ALL).order_by("pk"):
            # Some figures (leaf-ancestor, UAS, LAS) are a single score: P and R do not apply.
            rows.append({"layer": cell.layer, "aggregation": cell.get_aggregation_display(), "mode": "",
                         "match": "", "p": cell.p, "r": cell.r, "f": cell.f, "ci": None,
                         "single": cell.p is None and cell.r is None})
        return rows
    for cell in result.cells.filter(genre=ALL, type=ALL, match=match).order_by("layer", "aggregation"):
        if cell.layer == "relations" and cell.mode != mode:
            continue
        rows.append({"layer": cell.layer, "aggregation": cell.get_aggregation_display(), "mode": cell.mode,
                     "match": cell.match, "p": cell.p, "r": cell.r, "f": cell.f,
                     "ci": (cell.ci_low, cell.ci_high) if cell.ci_low is not None else None})
    return rows


def public_result_document(result: Result) -> dict:
    """What a team may receive of its own result: the figures, not the engine's warnings.

    The warnings and the per-document counts list which sentences and
    documents have gold (they name missing gold sentences), which stays hidden.
    """
    doc = result.document
    return {
        "signature": doc.get("signature"),
        "scorer_version": doc.get("scorer_version"),
        "gold_sha256": doc.get("gold_sha256"),
        "cells": doc.get("cells", []),
        "macro": doc.get("macro", []),
        "layers_submitted": doc.get("layers_submitted"),
        "parameters": doc.get("parameters"),
    }
