"""The figures a results page shows, as functions of summed per-sentence rows (for the paired tests).

A figure is named by the key ``(aggregation, layer, mode, match, type)`` of the
``ResultCell`` it appears in (the genre is the stratum the rows are summed
over), so a paired difference lands in the same cell of a page as the figure.

* EASY: the rows are ``fc | fp | cr``, each with the all-types column after
  every way's block (as :func:`evaluation.easy.scoring.aggregate` lays them
  out); micro F per (way, type) is 2·fc / (fp + cr), macro F the mean of the
  way's defined per-type F.
* Tree and dependency metrics: their rows side by side; each published layer's
  headline figure (:attr:`Layer.headline`) from the metric's own
  :meth:`Metric.figures`.

Pure: numpy and the metric code only.
"""
from __future__ import annotations

import warnings
from functools import partial

import numpy as np

from evaluation import metrics as metric_registry
from evaluation.easy.scoring import Plan
from evaluation.paired import FigureSet
from evaluation.stats import ALL, f_from_counts

MICRO, MACRO = "micro", "macro"


def figure_id(aggregation: str, layer: str, mode: str, match: str) -> str:
    """The stored name of a figure (one page table): ``micro|relations|HYP|EQUAL``."""
    return "|".join((aggregation, layer, mode or "", match or ""))


def parse_figure_id(figure: str) -> dict:
    aggregation, layer, mode, match = figure.split("|")
    return {"aggregation": aggregation, "layer": layer, "mode": mode, "match": match}


def easy_layout(plan: Plan) -> list[tuple[str, str, str, tuple[str, ...], int]]:
    """``(layer, mode, match, types + ALL, first column)`` of each way in the extended rows."""
    out, col = [], 0
    for layer, mode, match, _, types in plan.ways:
        out.append((layer, mode or "", match, tuple(types) + (ALL,), col))
        col += len(types) + 1
    return out


def easy_figures(plan: Plan) -> list[FigureSet]:
    """One figure set per way: micro F of each type and of all types, and the way's macro F."""
    layout = easy_layout(plan)
    width = layout[-1][4] + len(layout[-1][3]) if layout else 0
    out = []
    for layer, mode, match, types, start in layout:
        t = len(types)
        cols = np.concatenate([np.arange(start, start + t) + k * width for k in range(3)])
        keys = tuple((MICRO, layer, mode, match, type_) for type_ in types) + ((MACRO, layer, mode, match, ALL),)
        out.append(FigureSet(keys, partial(_way_figures, t), cols))
    return out


def _way_figures(t: int, sums: np.ndarray) -> np.ndarray:
    """``sums`` = fc | fp | cr of one way (its types, then all types): micro F of each, then the macro F."""
    f = f_from_counts(sums[:, :t], sums[:, t:2 * t], sums[:, 2 * t:3 * t])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a way with no defined type: macro undefined
        macro = np.nanmean(f[:, :t - 1], axis=1) if t > 1 else np.full(len(f), np.nan)
    return np.hstack([f, macro[:, None]])


def metric_figures(names: list[str]) -> list[FigureSet]:
    """Per metric, the headline figure of every published layer; the rows are the metrics' rows side by side."""
    out, start = [], 0
    for name in names:
        metric = metric_registry.get(name)
        width = len(metric.columns)
        layers = [layer for layer in metric.layers if layer.headline]
        keys = tuple((MICRO, layer.code, "", "", ALL) for layer in layers)
        out.append(FigureSet(keys, partial(_metric_figures, metric, [layer.headline for layer in layers]),
                             np.arange(start, start + width)))
        start += width
    return out


def _metric_figures(metric, headlines: list[str], sums: np.ndarray) -> np.ndarray:
    values = metric.figures({c: sums[:, k] for k, c in enumerate(metric.columns)})
    cols = []
    for key in headlines:
        value = values.get(key)
        cols.append(np.full(len(sums), np.nan) if value is None
                    else np.broadcast_to(np.asarray(value, dtype=np.float64), (len(sums),)))
    return np.stack(cols, axis=1) if cols else np.zeros((len(sums), 0))
