"""Errors most of the campaign's runs make against the errors one run alone makes (issue 38).

Each run's index lists its errors item by item (``[key, item, what]``, :mod:`evaluation.kinds.analysis`), the
item named the same way in every run of the campaign (a gold word's position, a gold group's range...). An error
of the run is **hard for everyone** when more than half of the runs compared (this one included) make it on the
same item, and **this run's alone** when no other run does. Only the runs the reader may see are counted.
"""
from __future__ import annotations

from collections import Counter

LIMIT = 300  # items listed per table (the counts cover them all)


def shared(index: dict, others: list[dict]) -> dict:
    """``{"runs", "errors", "hard": [...], "alone": [...], "hard_count", "alone_count"}`` for the run of ``index``
    against ``others`` (the other runs' indexes)."""
    made = Counter()
    for other in others:
        made.update({(key, item) for key, item, _ in other.get("errors", [])})
    runs = len(others) + 1
    hard, alone = [], []
    for key, item, what in index.get("errors", []):
        n = made[(key, item)] + 1
        row = {"key": key, "item": item, "what": what, "runs": n}
        if n * 2 > runs and runs > 1:
            hard.append(row)
        elif n == 1:
            alone.append(row)
    return {"runs": runs, "errors": len(index.get("errors", [])), "hard_count": len(hard),
            "alone_count": len(alone), "hard": hard[:LIMIT], "alone": alone[:LIMIT]}
