"""EASY's figures as functions of summed per-sentence rows, for the paired tests.

The rows are ``fc | fp | cr``, each with the all-types column after every way's block (as
:func:`parseval.evaluation.easy.scoring.aggregate` lays them out); micro F per (way, type) is 2·fc / (fp + cr),
macro F the mean of the way's defined per-type F. Named as :mod:`parseval.evaluation.figure_sets` names figures.

Pure: numpy and the engine only.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from parseval.evaluation.easy.counting import Plan
from parseval.evaluation.figure_sets import MACRO, MICRO, counts_f_and_macro
from parseval.evaluation.paired import FigureSet
from parseval.evaluation.stats import ALL


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
        # fc | fp | cr of the way's types, then all types: micro F of each, then the way's macro F
        out.append(FigureSet(keys, partial(counts_f_and_macro, t), cols, ("counts_f", (t,), ("f",) * len(keys))))
    return out
