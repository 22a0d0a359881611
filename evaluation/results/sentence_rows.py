"""A stored result's per-sentence rows of sufficient statistics, for the paired significance tests.

A stored result keeps sums, not every engine's per-sentence counts, so the
run is scored again against the gold it was scored with (the gold checksum
must be the result's), by the result's kind
(:meth:`evaluation.kinds.contract.Kind.sentence_rows`). Either way the
rows are kept in :class:`~evaluation.models.SentenceRows`, computed once per
result. Worker code: it reads gold.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from campaign import kinds
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
