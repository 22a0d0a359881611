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

Every figure set also says how it is computed as data (``FigureSet.recipe``: one
of :data:`RECIPES` and its arguments), so that a publication bundle carries its
figures' definitions and ``python -m evaluation reproduce`` rebuilds them from
the rows without the platform (:func:`from_recipe`).

Pure: numpy and the metric code only.
"""
from __future__ import annotations

from functools import partial

import warnings

import numpy as np

from parseval.evaluation import metrics as metric_registry
from parseval.evaluation.paired import FigureSet
from parseval.evaluation.stats import ALL, f_from_counts

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
        headlines = [layer.headline for layer in layers]
        fields = tuple("f" if layer.f else "r" for layer in layers)  # the cell field the headline fills
        out.append(FigureSet(keys, partial(_metric_figures, metric, headlines), np.arange(start, start + width),
                             ("metric", (name, tuple(headlines)), fields)))
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


def counts_f_and_macro(t: int, sums: np.ndarray) -> np.ndarray:
    """``sums`` = found-correct | found | to-find counts of ``t`` types (the last one all types together):
    micro F of each, then the macro F, the mean of the defined F of the ``t - 1`` single types."""
    f = f_from_counts(sums[:, :t], sums[:, t:2 * t], sums[:, 2 * t:3 * t])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no defined type: macro undefined
        macro = np.nanmean(f[:, :t - 1], axis=1) if t > 1 else np.full(len(f), np.nan)
    return np.hstack([f, macro[:, None]])


# name -> (arguments -> compute): what a FigureSet.recipe may name.
RECIPES = {
    "metric": lambda name, headlines: partial(_metric_figures, metric_registry.get(name), list(headlines)),
    "counts_f": lambda t: partial(counts_f_and_macro, int(t)),
}


def recipe_document(figures: FigureSet) -> dict:
    """A figure set as JSON: its keys, the row columns it reads, how it computes and where each key is published."""
    if not figures.recipe:
        raise ValueError("this figure set does not say how it is computed (no recipe)")
    name, args, fields = figures.recipe
    columns = None if figures.columns is None else [int(c) for c in figures.columns]
    return {"keys": [list(k) for k in figures.keys], "columns": columns, "recipe": name,
            "arguments": _plain(args), "fields": list(fields)}


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    return value


def from_recipe(document: dict) -> FigureSet:
    """The figure set :func:`recipe_document` describes. ValueError when its recipe is unknown."""
    name = document.get("recipe")
    if name not in RECIPES:
        raise ValueError(f"unknown figure recipe {name!r} (known: {', '.join(sorted(RECIPES))})")
    columns = document.get("columns")
    return FigureSet(tuple(tuple(k) for k in document["keys"]), RECIPES[name](*document.get("arguments") or []),
                     None if columns is None else np.asarray(columns, dtype=int),
                     (name, tuple(document.get("arguments") or ()), tuple(document.get("fields") or ())))
