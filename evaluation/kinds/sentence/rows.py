"""The per-sentence rows of a sentence kind's result, for the paired tests: the run scored again."""
from __future__ import annotations

import copy

import numpy as np

from annotations.models import GoldDocument
from campaign.services.runs import unpacked
from campaign.stored_files import local_copy
from evaluation.models import Result
from evaluation.results.sentence_rows import RowsUnavailable


def paired_sentences(kind, result: Result) -> tuple[list, list, list[tuple[str, str, str]]]:
    """``(gold, test, where)``: the result's gold sentences and the run's (the kind's ``Parsed``), paired in corpus
    order, and ``(document, sid, genre)`` of each; :class:`RowsUnavailable` when the gold changed or the file is gone."""
    run = result.run
    gold, where, checksum = kind.paired_gold(run)
    if checksum != result.gold_sha256:
        raise RowsUnavailable("the gold changed since this result was scored")
    by_doc = run_sentences_of(kind, run, {d for d, _, _ in where})
    return gold, [by_doc[d][s] for d, s, _ in where], where


def run_sentences_of(kind, run, documents: set[str]) -> dict[str, dict]:
    """``{document: {sid: Parsed}}`` of the run's files of ``documents``."""
    try:
        with local_copy(run.file, sha256=run.sha256) as path, \
                unpacked(run.campaign, path, run.original_filename) as files:
            return {name: {p.sid: p for p in kind.run_sentences(files[name], name, run)} for name in documents}
    except FileNotFoundError as exc:
        raise RowsUnavailable(f"the run's file is gone ({exc.filename})") from None


def one_sentence(kind, result: Result, key: str):
    """``(gold, run)`` of the sentence ``key`` ("document/sid") of ``result`` (the kind's ``Parsed``), or None."""
    document, _, sid = key.partition("/")
    gold_doc = GoldDocument.objects.filter(document__campaign=result.run.campaign, document__name=document).first()
    if gold_doc is None:
        return None
    gold = [p for p in kind.gold_sentences(gold_doc, {sid})[0] if p.sid == sid]
    if not gold:
        return None
    test = run_sentences_of(kind, result.run, {document}).get(document, {}).get(sid)
    return None if test is None else (gold[0], test)


def rescored_rows(kind, result: Result) -> tuple[list[str], list[str], np.ndarray]:
    """Rows of a tree or dependency result: the run scored again by each of its metrics, rows side by side.

    (Not every engine document keeps per-sentence counts, so the rows are not read back from it.)
    """
    gold, test, where = paired_sentences(kind, result)
    params = result.document.get("parameters") or {}
    gold_units = [g.unit for g in gold]
    test_units = [t.unit for t in test]
    parts = []
    for name in kind.metrics_of(params):
        _, rows = kind.score_metric(name, gold_units, test_units, copy.deepcopy(params))
        if len(rows) < len(where):  # evalb stopped at MAX_ERROR: the sentences after it count for nothing
            rows = np.vstack([rows, np.zeros((len(where) - len(rows), rows.shape[1]), dtype=rows.dtype)])
        parts.append(np.asarray(rows, dtype=np.float64))
    keys = [f"{d}/{s}" for d, s, _ in where]
    return keys, [g for _, _, g in where], np.hstack(parts) if parts else np.zeros((len(where), 0))
