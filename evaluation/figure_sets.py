"""The figures a results page shows, as functions of summed per-sentence rows (for the paired tests).

A figure is named by the key ``(aggregation, layer, mode, match, type)`` of the
``ResultCell`` it appears in (the genre is the stratum the rows are summed
over), so a paired difference lands in the same cell of a page as the figure.

* Tree and dependency metrics: their rows side by side; each published layer's
  headline figure (:attr:`Layer.headline`) from the metric's own
  :meth:`Metric.figures`.
* A kind with figures of its own lays them out itself
  (:meth:`evaluation.kinds.contract.Kind.paired_figures`; EASY's are in
  :mod:`evaluation.kinds.easy.figures`) with the names below.

Pure: numpy and the metric code only.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from evaluation import metrics as metric_registry
from evaluation.paired import FigureSet
from evaluation.stats import ALL

MICRO, MACRO = "micro", "macro"


def figure_id(aggregation: str, layer: str, mode: str, match: str) -> str:
    """The stored name of a figure (one page table): ``micro|relations|HYP|EQUAL``."""
    return "|".join((aggregation, layer, mode or "", match or ""))


def parse_figure_id(figure: str) -> dict:
    aggregation, layer, mode, match = figure.split("|")
    return {"aggregation": aggregation, "layer": layer, "mode": mode, "match": match}


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
