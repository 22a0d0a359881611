"""A stored result's per-sentence rows of sufficient statistics, for the paired significance tests.

A stored result keeps sums, not every engine's per-sentence counts, so the
run is scored again against the gold it was scored with (the gold checksum
must be the result's): counted by :func:`evaluation.easy.scoring.count_sentences`
for EASY, by each metric's rows for trees and dependencies. Either way the
rows are kept in :class:`~evaluation.models.SentenceRows`, computed once per
result. Worker code: it reads gold.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation.models import Result, SentenceRows


class RowsUnavailable(Exception):
    """The result's rows cannot be had (its gold changed since, or its files are gone)."""


@dataclass
class RunRows:
    keys: np.ndarray    # "document/sentence id" per row, sorted
    strata: np.ndarray  # genre per row
    rows: np.ndarray


def sorted_rows(keys, strata, rows) -> RunRows:
    """Rows in the order of their keys (document/sentence id), so two runs line up sentence by sentence."""
    keys = np.array(list(keys), dtype=str)
    order = np.argsort(keys, kind="stable")
    return RunRows(keys[order], np.array(list(strata), dtype=str)[order], np.asarray(rows)[order])


def rows_of(result: Result) -> RunRows:
    """The result's rows, from :class:`SentenceRows` when kept, else computed by its kind and kept."""
    from campaign import kinds

    stored = SentenceRows.objects.filter(result=result).first()
    if stored is not None:
        with np.load(io.BytesIO(bytes(stored.data)), allow_pickle=False) as z:
            return RunRows(z["keys"], z["strata"], z["rows"])
    keys, strata, rows = kinds.get(result.metric).sentence_rows(result)
    out = sorted_rows(keys, strata, rows)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, keys=out.keys, strata=out.strata, rows=out.rows)
    SentenceRows.objects.get_or_create(result=result, defaults={"data": buffer.getvalue()})
    return out


# -- per kind (called by the kind objects) ------------------------------------------------------

def rescored_rows(kind, result: Result) -> tuple[list[str], list[str], np.ndarray]:
    """Rows of a tree or dependency result: the run scored again by each of its metrics, rows side by side.

    (Not every engine document keeps per-sentence counts, so the rows are not read back from it.)
    """
    import copy

    from campaign.services.runs import unpacked

    run = result.run
    gold, where, checksum = kind.load_gold(run)
    if checksum != result.gold_sha256:
        raise RowsUnavailable("the gold changed since this result was scored")
    params = result.document.get("parameters") or {}
    try:
        with unpacked(run.campaign, Path(run.file.path), run.original_filename) as files:
            by_doc = {name: {p.sid: p for p in kind._run_sentences(files[name], name, run)}
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


def easy_rows(result: Result, schema, load_gold) -> tuple[list[str], list[str], np.ndarray]:
    """Rows of an EASY result: its run counted again against its gold (``load_gold(run, schema)``)."""
    from evaluation.easy.scoring import count_sentences
    from evaluation.kinds.easy_conllu import scored_files

    run = result.run
    gold_docs, genres, checksum, _ = load_gold(run, schema)
    if checksum != result.gold_sha256:
        raise RowsUnavailable("the gold changed since this result was scored")
    params = result.document.get("parameters") or {}
    try:
        with scored_files(run) as files:  # a CoNLL-U run's converted XML
            plan, gold, counting = count_sentences(
                gold_docs, {name: files[name] for name in gold_docs if name in files}, genres,
                matches=params.get("matches") or (), modes=params.get("modes") or (), schema=schema)
    except FileNotFoundError as exc:
        raise RowsUnavailable(f"the run's file is gone ({exc.filename})") from None
    return counted_rows(plan, gold, counting)


def counted_rows(plan, gold, counting) -> tuple[list[str], list[str], np.ndarray]:
    """What :func:`evaluation.easy.scoring.count_sentences` returns as (keys, genres, fc | fp | cr) rows."""
    from evaluation.easy.scoring import _extend_all

    keys = [f"{document}/{sid}" for document, sid in gold.row_ids]
    r = counting.rows
    return keys, gold.row_genre, np.hstack([_extend_all(x, plan) for x in (r.fc, r.fp, r.cr)])
