"""Confusion tables and common errors, for every kind.

A **confusion table** says what the run put where the gold says X: one row per gold label X, one cell per
run label Y, each gold item counted in exactly one cell of its row, so that **a row sums to the gold count
of X**. Each kind says what "the same place" is (``docs/metrics/analysis.md``): an EASY relation's argument
ranges, an EASY group's range, a dependency word, a tree bracket's span. The column ``missing`` counts the
gold items at whose place the run has nothing (of any label); the row ``extra`` (not a gold label: it sums to
no gold count) counts the run's items at places where the gold has nothing. Every cell keeps the indices of
the sentences behind it.

**Common errors**: given several runs' errors on the same gold (an error is ``(sentence, what, label,
item)``, ``what`` being ``missed`` for a gold item the run did not find and ``spurious`` for a run item not
in the gold), how many runs make each one. An error most runs make (more than ``share`` of them, a majority
by default, and at least two) is *hard for everyone*; one only one run makes is its own.

Pure: the standard library only.
"""
from __future__ import annotations

from array import array
from typing import Sequence

MISSING = "missing"
EXTRA = "extra"


class Confusion:
    """One confusion table being filled: :meth:`add` one gold item (or, with gold ``EXTRA``, one run item)."""

    __slots__ = ("cells",)

    def __init__(self):
        self.cells: dict[tuple[str, str], list] = {}

    def add(self, gold: str, run: str, sentence: int) -> None:
        cell = self.cells.get((gold, run))
        if cell is None:
            cell = self.cells[(gold, run)] = [0, array("i")]
        cell[0] += 1
        if not cell[1] or cell[1][-1] != sentence:
            cell[1].append(sentence)

    def rows(self) -> dict[str, int]:
        """``{gold label: items}``: each row's total."""
        out: dict[str, int] = {}
        for (gold, _), (n, _) in self.cells.items():
            out[gold] = out.get(gold, 0) + n
        return out

    def document(self, name: str, description: str, order: Sequence[str] = (), ids: list[int] | None = None) -> dict:
        """The table as JSON: ``{"name", "description", "columns", "rows": [{"gold", "count", "cells": {run
        label: {"count", "sentences"}}}]}``, the rows and columns in ``order`` (then by name), ``missing`` the
        last column, ``extra`` the last row. ``ids``: ``list(range(sentences))``, whose int objects the
        sentence lists share (see :func:`parseval.evaluation.buckets.shared`)."""
        def key(label):
            if label in (MISSING, EXTRA):
                return (2, 0, label)
            return (0, order.index(label), "") if label in order else (1, 0, label)
        golds = sorted({g for g, _ in self.cells}, key=key)
        columns = sorted({r for _, r in self.cells}, key=key)
        rows = []
        for gold in golds:
            cells = {run: {"count": self.cells[(gold, run)][0],
                           "sentences": [ids[i] for i in self.cells[(gold, run)][1]] if ids is not None
                           else list(self.cells[(gold, run)][1])}
                     for run in columns if (gold, run) in self.cells}
            rows.append({"gold": gold, "count": sum(c["count"] for c in cells.values()), "cells": cells})
        return {"name": name, "description": description, "columns": columns, "rows": rows}


def common_errors(runs: Sequence[Sequence[tuple]], *, names: Sequence[str] | None = None, share: float = 0.5,
                  limit: int = 100) -> dict:
    """The errors several runs share and those only one makes, from each run's errors ``(sentence, what,
    label, item)`` on the same gold (:attr:`parseval.evaluation.buckets.Counts.errors`).

    *Hard for everyone*: errors more than ``share`` of the runs make (a majority by default; at least two
    runs), most shared first;
    *only one run*: errors of a single run, counted per run. Per label (relation, bracket label...): how
    many distinct errors, how many of them hard for everyone, how many of a single run. ``limit``: the
    longest lists given (the counts cover everything).
    """
    names = list(names) if names is not None else [str(k + 1) for k in range(len(runs))]
    if len(names) != len(runs):
        raise ValueError("one name per run")
    who: dict[tuple, list[int]] = {}
    for r, errors in enumerate(runs):
        for error in dict.fromkeys(tuple(e) for e in errors):
            who.setdefault(error, []).append(r)
    threshold = max(2, int(share * len(runs)) + 1)  # more than ``share`` of the runs, and at least two
    shared = sorted((e for e, rs in who.items() if len(rs) >= threshold), key=lambda e: (-len(who[e]), e))
    single = [e for e, rs in who.items() if len(rs) == 1]
    per_label: dict[str, dict] = {}
    for error, rs in who.items():
        entry = per_label.setdefault(error[2], {"label": error[2], "errors": 0, "hard": 0, "single": 0})
        entry["errors"] += 1
        entry["hard"] += len(rs) >= threshold
        entry["single"] += len(rs) == 1
    only: dict[str, list] = {n: [] for n in names}
    for error in sorted(single):
        only[names[who[error][0]]].append(error)

    def listed(e):
        return {"sentence": e[0], "what": e[1], "label": e[2], "item": e[3], "runs": [names[r] for r in who[e]]}
    return {
        "runs": names, "threshold": int(threshold), "errors": len(who), "hard_for_everyone": len(shared),
        "single_run": {n: len(v) for n, v in only.items()},
        "hard": [listed(e) for e in shared[:limit]],
        "only": {n: [listed(e) for e in v[:limit]] for n, v in only.items()},
        "labels": sorted(per_label.values(), key=lambda d: (-d["hard"], -d["errors"], d["label"])),
    }
