"""What every kind's analysis (:meth:`evaluation.kinds.contract.Kind.analyse`) shares: the explorer's index.

A kind's library analysis gives bucket tables; the explorer also needs, for every number, the sentences behind
it. This module turns per-sentence counts into that index (a plain dict, stored compressed by
:mod:`evaluation.analysis.store`):

* ``keys`` and ``genres``: the result's sentences ("document/sentence id") in corpus order, and their genres;
* ``columns``: the count columns of a bucket, ``figure``: which of them make the figure a bucket is compared on
  (``{"name", "numerator", "denominator"}``, a ratio: LAS for dependencies);
* ``buckets``: ``{attribute: {bucket: {"s": [sentence positions], "c": [[counts] per sentence]}}}``, only the
  sentences with an item in the bucket;
* ``confusions``: ``{table: {"GOLD\\tRUN": [sentence positions]}}``;
* ``errors``: ``[[key, item, what]]``, each of the run's errors item by item (``item`` names the item the same way
  in every run of the campaign, so that errors are counted across runs).

Pure: numpy and the standard library.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

CONFUSION_SEPARATOR = "\t"


def bucket_entries(labels: list[str], rows: np.ndarray, width: int) -> dict[str, dict]:
    """``{bucket: {"s": positions, "c": counts}}`` of one attribute from its (sentences x buckets*width) matrix."""
    out = {}
    for k, label in enumerate(labels):
        block = np.asarray(rows[:, width * k:width * (k + 1)])
        where = np.flatnonzero(block.any(axis=1))
        out[label] = {"s": where.tolist(), "c": block[where].tolist()}
    return out


def confusion_table(pairs: list[tuple[int, str, str]]) -> tuple[list[dict], dict[str, list[int]]]:
    """From ``(sentence position, gold label, run label)`` triples: the table's rows (one per gold label, its
    total and the run's labels by count) and the sentences behind every cell."""
    counts: dict[str, Counter] = {}
    sentences: dict[str, list[int]] = {}
    for position, gold, run in pairs:
        counts.setdefault(gold, Counter())[run] += 1
        cell = sentences.setdefault(f"{gold}{CONFUSION_SEPARATOR}{run}", [])
        if not cell or cell[-1] != position:
            cell.append(position)
    rows = [{"gold": gold, "total": sum(c.values()),
             "cells": [{"run": run, "count": n} for run, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))]}
            for gold, c in sorted(counts.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))]
    return rows, sentences


def explorer_block(counts, figures, figure: dict) -> dict:
    """What the explorer's pages read of a document besides the library's tables (``document["explorer"]``): the
    bucket's count and figure keys, and the figure buckets are charted and compared on."""
    return {"counts": list(counts), "figures": list(figures), "figure": figure}


def index(keys: list[str], genres: list[str], columns: tuple[str, ...], figure: dict, buckets: dict,
          confusions: dict, errors: list) -> dict:
    return {"keys": list(keys), "genres": list(genres), "columns": list(columns), "figure": figure,
            "buckets": buckets, "confusions": confusions, "errors": errors}
