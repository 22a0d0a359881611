"""What a metric is to the rest of the code: one :class:`Metric` object, registered in ``parseval.evaluation.metrics``.

A metric owns its name and parameters, its scoring function (the engine's JSON
document), its text report, and two things the statistics layer needs: the
per-sentence rows of sufficient statistics (:attr:`Metric.columns`,
:meth:`Metric.rows`) and the function from summed rows to its figures
(:meth:`Metric.figures`). Figure keys are dotted paths into the engine's
document (``summary.all.f``, ``totals.las``), so the same key names the figure
the engine printed, the figure recomputed from rows, and where its interval
``X_ci`` goes. :attr:`Metric.layers` says what a campaign publishes of it:
the stored rows (``ResultCell.layer``), readable names and units.

Pure: no Django.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from parseval.evaluation import stats


@dataclass(frozen=True)
class Layer:
    """One published figure of a campaign (a ``ResultCell`` row): which figure keys fill P, R, F and the counts."""

    code: str
    label: str
    f: str | None = None
    p: str | None = None
    r: str | None = None
    fc: str | None = None
    fp: str | None = None
    cr: str | None = None
    unit: str = "%"
    shown: bool = True
    description: str = ""

    @property
    def headline(self) -> str | None:
        """The figure a page shows first (and whose interval it shows): F, else recall."""
        return self.f or self.r


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    columns: tuple[str, ...]
    ratios: tuple[str, ...]
    score: Callable[..., dict]
    report: Callable[[dict], str]
    layers: tuple[Layer, ...] = ()
    defaults: Mapping[str, object] = field(default_factory=dict)
    family: str = "trees"  # which command scores it: trees or deps
    fast_reader: bool = False  # evalb reads its own text format when no transform is applied

    def score_with_rows(self, gold: list, test: list, **options) -> tuple[dict, np.ndarray]:
        """The engine's document and one row of sufficient statistics per sentence, in order."""
        raise NotImplementedError

    def rows(self, doc: dict) -> np.ndarray:
        """The rows of sufficient statistics, read back from the engine's per-sentence document."""
        raise NotImplementedError

    def figures(self, sums: stats.Sums) -> dict:
        raise NotImplementedError

    def exact_sums(self, doc: dict, index) -> dict[str, float]:
        """Column sums recomputed from the document in the engine's order (rows ``index``; all when None)."""
        return {}

    def from_args(self, args) -> dict:
        """The scoring parameters given on the command line."""
        return {}


def value_at(doc: dict, key: str):
    """The figure at a dotted path of an engine document (None when absent)."""
    node = doc
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def with_intervals(doc: dict, intervals: Mapping[str, list[float] | None]) -> dict:
    """``doc`` with ``X_ci: [low, high]`` (or null) placed right after every figure ``X`` named in ``intervals``."""
    by_block: dict[tuple[str, ...], dict[str, list[float] | None]] = {}
    for key, ci in intervals.items():
        *path, name = key.split(".")
        by_block.setdefault(tuple(path), {})[name] = ci
    for path, cis in by_block.items():
        parent, node = None, doc
        for part in path:
            parent, node = node, node[part]
        rebuilt = {}
        for name, value in node.items():
            rebuilt[name] = value
            if name in cis:
                rebuilt[f"{name}_ci"] = cis[name]
        if parent is None:
            doc.clear()
            doc.update(rebuilt)
        else:
            parent[path[-1]] = rebuilt
    return doc


def nested(flat: Mapping[str, object]) -> dict:
    """``{"summary.all.f": x}`` -> ``{"summary": {"all": {"f": x}}}``: figures in their document's shape."""
    out: dict = {}
    for key, value in flat.items():
        *path, name = key.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        node[name] = value
    return out


def rows_array(rows: list[tuple], width: int, dtype=np.float64) -> np.ndarray:
    return np.array(rows, dtype=dtype) if rows else np.zeros((0, width), dtype=dtype)
