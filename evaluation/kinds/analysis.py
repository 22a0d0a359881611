"""What every kind's analysis (:meth:`evaluation.kinds.contract.Kind.analyse`) shares: from the library's
per-sentence counts (:class:`parseval.evaluation.buckets.Counts`) to what the app stores.

The library's document carries, in every bucket and confusion cell, the indices of the sentences behind it: on
a 40,000-sentence run that is most of its size, and a page drawing the tables needs none of it. So the stored
document (:func:`split`) keeps the tables, and the **index** (a plain dict, stored compressed by
:mod:`evaluation.analysis.store`) keeps the rest:

* ``kind`` (the library's: ``easy``, ``trees``, ``deps``), ``keys`` and ``genres``: the result's sentences
  ("document/sentence id") in corpus order and their genres; ``columns``: a bucket's count columns;
* ``buckets``: ``{attribute: {bucket: {"s": [sentence positions], "c": [counts, flat: ``columns`` per sentence of
  ``s``], "e": [positions
  of the sentences with an error there]}}}``, only the sentences with an item in the bucket (what the pairwise
  comparison sums, and the lists of sentences);
* ``confusions``: ``{table: {"GOLD\\tRUN": [sentence positions]}}``;
* ``errors``: ``[[key, what, label, item]]``, each of the run's errors (``what``: ``missed`` or ``spurious``;
  ``item`` names it the same way in every run of the campaign, so that errors are counted across runs).

:func:`counts_of` turns an index back into the library's ``Counts`` (one attribute, sentences in a given order):
what :func:`parseval.evaluation.bucket_pairs.compare` reads.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parseval.evaluation import buckets as registry
from parseval.evaluation.bucket_pairs import PAIR_FIGURES

from .contract import Analysis

CONFUSION_SEPARATOR = "\t"
FIGURES = {"deps": ("uas", "las", "precision", "f"), "easy": registry.SPAN_FIGURES, "trees": registry.SPAN_FIGURES}


def bucket_entries(labels, rows: np.ndarray, width: int, *, compact: bool = False) -> dict[str, dict]:
    """``{bucket: {"s": positions, "c": counts}}`` of one attribute from its (sentences x buckets*width) matrix;
    ``compact``: as numpy arrays (a few bytes an entry, not a Python int's 8 to 36), turned into lists only as
    the store writes each bucket (:func:`evaluation.analysis.store.pack`)."""
    out = {}
    for k, label in enumerate(labels):
        block = np.asarray(rows[:, width * k:width * (k + 1)])
        where = np.flatnonzero(block.any(axis=1))
        if compact:
            out[label] = {"s": where.astype(np.int32), "c": block[where].ravel()}
        else:
            out[label] = {"s": where.tolist(), "c": block[where].ravel().tolist()}  # flat: no list per sentence
    return out


class Errors(Sequence):
    """The index's ``errors`` without a list per error: the library's ``(sentence, what, label, item)`` read as
    ``[key, what, label, item]`` when asked for (:func:`evaluation.analysis.store.pack` writes them a block of
    sentences at a time)."""

    def __init__(self, keys: list[str], errors):
        self.keys, self.raw = keys, errors if errors is not None else []

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        s, what, label, item = self.raw[k]
        return [self.keys[s], what, label, item]

    def __iter__(self):
        keys = self.keys
        for s, what, label, item in self.raw:
            yield [keys[s], what, label, item]

    def blocks(self, size: int):
        """``(block, [errors])`` of the sentences ``block * size ...`` in order, when the errors are in sentence
        order (the library lists them so), else None."""
        raw, keys = self.raw, self.keys
        order = getattr(raw, "sentences", None)  # the library's ErrorList: its sentences alone
        if order is None:
            order = [e[0] for e in raw]
        if any(order[j] > order[j + 1] for j in range(len(order) - 1)):
            return None

        def gen():
            block, part = None, []
            for s, what, label, item in raw:
                if s // size != block:
                    if part:
                        yield block, part
                    block, part = s // size, []
                part.append([keys[s], what, label, item])
            if part:
                yield block, part
        return gen()


def split(counts, document: dict, *, compact: bool = False) -> Analysis:
    """The stored document (the library's, without its sentence lists, with the ``explorer`` block the pages
    read) and the index (see the module) of one result's counts.

    ``compact`` (what the kinds' ``analyse`` use): the index holds the sentence lists and counts as numpy
    arrays, the confusion cells' sentences as the library's arrays and the errors as :class:`Errors`, each
    turned into JSON's lists only as :func:`evaluation.analysis.store.pack` writes its part, one part at a
    time: what is stored is the same bytes, and a 40,000-sentence EASY run's index is never all in Python
    lists at once (about 140 MB of them)."""
    kind, width = counts.kind, len(counts.columns)
    tables = {a.name: bucket_entries(labels, rows, width, compact=compact) for a, labels, rows in counts.tables}
    for attribute in document.get("attributes", []):
        for bucket in attribute["buckets"]:
            bucket.pop("sentences", None)
            entry = tables.get(attribute["name"], {}).get(bucket["bucket"])
            if entry is not None:
                entry["e"] = bucket.pop("error_sentences", [])
                if compact:
                    entry["e"] = np.asarray(entry["e"], dtype=np.int32)
    for table in document.get("confusions", []):
        for row in table.get("rows", []):
            for cell in (row.get("cells") or {}).values():
                cell.pop("sentences", None)
    document.pop("sentence_ids", None)
    document["explorer"] = {"counts": list(counts.columns), "figures": list(FIGURES.get(kind, ())),
                            "figure": {"name": PAIR_FIGURES[kind][0]}}
    confusions = {name: {f"{gold}{CONFUSION_SEPARATOR}{run}": cell[1] if compact else list(cell[1])
                         for (gold, run), cell in confusion.cells.items()}
                  for name, confusion in counts.confusions.items()}
    keys = list(counts.keys)
    if compact:
        errors = Errors(keys, counts.errors)
    else:
        errors = [[keys[s], what, label, item] for s, what, label, item in (counts.errors or [])]
    index = {"kind": kind, "keys": keys, "genres": list(counts.strata), "columns": list(counts.columns),
             "buckets": tables,
             "confusions": confusions, "errors": errors}
    return Analysis(document, index)


def full_document(document: dict, index: dict) -> dict:
    """The library's whole document again (``docs/metrics/analysis.md``): the stored one with each bucket's and
    confusion cell's sentences put back, as keys ("document/sentence id"), for the publication bundle."""
    keys = index["keys"]
    out = {k: v for k, v in document.items() if k != "explorer"}
    out["attributes"] = []
    for attribute in document.get("attributes", []):
        entries = index["buckets"].get(attribute["name"], {})
        out["attributes"].append(dict(attribute, buckets=[
            dict(b, sentences=[keys[s] for s in (entries.get(b["bucket"]) or {}).get("s", [])],
                 error_sentences=[keys[s] for s in (entries.get(b["bucket"]) or {}).get("e", [])])
            for b in attribute["buckets"]]))
    if document.get("confusions"):
        out["confusions"] = []
        for table in document["confusions"]:
            cells = index["confusions"].get(table["name"], {})
            rows = [dict(row, cells={run: dict(cell, sentences=[keys[s] for s in cells.get(
                f"{row['gold']}{CONFUSION_SEPARATOR}{run}", [])]) for run, cell in row["cells"].items()})
                for row in table["rows"]]
            out["confusions"].append(dict(table, rows=rows))
    out["sentence_ids"] = keys
    return out


def counts_of(index: dict, attribute: str, order: list[str]):
    """The library's :class:`~parseval.evaluation.buckets.Counts` of one attribute of ``index``, its sentences in
    ``order`` (keys; a key the index lacks counts nothing)."""
    width = len(index["columns"])
    position = {key: i for i, key in enumerate(order)}
    genre_of = dict(zip(index["keys"], index["genres"]))
    entries = index["buckets"].get(attribute, {})
    labels = list(entries)
    rows = np.zeros((len(order), len(labels) * width), dtype=np.int64)
    keys = index["keys"]
    for k, label in enumerate(labels):
        entry = entries[label]
        targets = np.array([position.get(keys[s], -1) for s in entry["s"]], dtype=np.int64)
        block = np.asarray(entry["c"], dtype=np.int64).reshape(len(targets), width)
        kept = targets >= 0
        rows[targets[kept], k * width:(k + 1) * width] = block[kept]
    kind = index["kind"]
    return registry.Counts(kind, tuple(index["columns"]), list(order), [genre_of.get(k, "") for k in order], (),
                           None, [(registry.get(kind, attribute), labels, rows)])
