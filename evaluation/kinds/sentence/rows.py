"""The per-sentence rows of a sentence kind's result, for the paired tests: the run scored again."""
from __future__ import annotations

import copy

import numpy as np

from campaign.services.runs import unpacked
from campaign.stored_files import local_copy
from evaluation.models import Result
from evaluation.results.sentence_rows import RowsUnavailable


def rescored_rows(kind, result: Result) -> tuple[list[str], list[str], np.ndarray]:
    """Rows of a tree or dependency result: the run scored again by each of its metrics, rows side by side.

    (Not every engine document keeps per-sentence counts, so the rows are not read back from it.)
    """
    run = result.run
    gold, where, checksum = kind.paired_gold(run)
    if checksum != result.gold_sha256:
        raise RowsUnavailable("the gold changed since this result was scored")
    params = result.document.get("parameters") or {}
    try:
        with local_copy(run.file, sha256=run.sha256) as path, \
                unpacked(run.campaign, path, run.original_filename) as files:
            by_doc = {name: {p.sid: p for p in kind.run_sentences(files[name], name, run)}
                      for name in {d for d, _, _ in where}}
    except FileNotFoundError as exc:
        raise RowsUnavailable(f"the run's file is gone ({exc.filename})") from None
    gold_units = [g.unit for g in gold]
    test_units = [by_doc[d][s].unit for d, s, _ in where]
    parts = []
    for name in kind.metrics_of(params):
        _, rows = kind.score_metric(name, gold_units, test_units, copy.deepcopy(params))
        if len(rows) < len(where):  # evalb stopped at MAX_ERROR: the sentences after it count for nothing
            rows = np.vstack([rows, np.zeros((len(where) - len(rows), rows.shape[1]), dtype=rows.dtype)])
        parts.append(np.asarray(rows, dtype=np.float64))
    keys = [f"{d}/{s}" for d, s, _ in where]
    return keys, [g for _, _, g in where], np.hstack(parts) if parts else np.zeros((len(where), 0))
