"""Pairwise analysis per bucket: where run A is better than run B, with the campaign's paired test.

For two runs scored on the same gold (two :class:`~parseval.evaluation.buckets.Counts` of the same sentences),
every bucket of every attribute is a figure of the per-sentence rows, and A − B is tested exactly as the
comparison page tests a headline (:func:`parseval.evaluation.paired.compare_arrays`: the same method,
resamples, seed, genre-stratified draws, normal-approximation p and interval ``d ± 1.96·se``). A bucket
that holds every item of both runs (one genre's bucket when the gold has one genre) is the headline's own
test, to the last digit. The figure per kind (:data:`PAIR_FIGURES`): F for EASY and trees (on the whole set,
the scorer's F), LAS for dependencies.

Per attribute, the buckets' p-values are adjusted with Benjamini–Hochberg (:func:`paired.bh_adjust`: the
buckets of one attribute are one family; undefined tests left out). Each bucket gets its minimum
detectable effect, the difference its test detects with 80% power at ``alpha`` (:func:`paired.detectable`,
the design aid's formula), so that a bucket reads as one of:

* ``A`` / ``B``: the difference is significant after the correction (that run is better);
* ``no difference``: not significant, and the bucket would have detected a difference of ``effect``
  (its MDE is at most ``effect``, 2 points by default);
* ``too few to tell``: not significant, and its MDE is above ``effect`` (or unknown: nothing varies).

Pure: numpy and the statistics modules.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from parseval.annotations.errors import InputError
from parseval.evaluation import paired, stats
from parseval.evaluation.buckets import Counts, shared

DEFAULT_EFFECT = 0.02
A_BETTER, B_BETTER, NO_DIFFERENCE, TOO_FEW = "A", "B", "no difference", "too few to tell"


def _span_f(kind: str):
    from importlib import import_module
    module = import_module({"easy": "parseval.evaluation.easy.buckets",
                            "trees": "parseval.evaluation.trees.buckets"}[kind])

    def compute(sums: np.ndarray) -> np.ndarray:  # (m, K, 4) -> (m, K)
        return np.asarray(module.FIGURES(sums[..., 0], sums[..., 1], sums[..., 2], sums[..., 3])["f"],
                          dtype=np.float64)
    return compute


def _las(sums: np.ndarray) -> np.ndarray:  # (m, K, 5): gold, head, correct, test, correct_test
    return stats.ratio(sums[..., 2], sums[..., 0])


# kind -> (figure name, function of the summed counts (m, buckets, columns) -> (m, buckets))
PAIR_FIGURES = {"easy": ("f", lambda: _span_f("easy")), "trees": ("f", lambda: _span_f("trees")),
                "deps": ("las", lambda: _las)}


def bucket_figure_set(kind: str, labels: Sequence[str], width: int) -> paired.FigureSet:
    """A :class:`paired.FigureSet` of one attribute's buckets: key ``labels[k]``, the kind's figure of the
    columns ``k*width .. k*width + width - 1``."""
    compute = PAIR_FIGURES[kind][1]()
    k = len(labels)

    def figures(sums: np.ndarray) -> np.ndarray:
        return compute(np.asarray(sums, dtype=np.float64).reshape(len(sums), k, width))
    return paired.FigureSet(tuple(labels), figures)


def _aligned(labels: list[str], rows: np.ndarray, union: list[str], width: int) -> np.ndarray:
    if labels == union:
        return rows
    out = np.zeros((rows.shape[0], len(union) * width), dtype=rows.dtype)
    for k, label in enumerate(labels):
        j = union.index(label)
        out[:, j * width:(j + 1) * width] = rows[:, k * width:(k + 1) * width]
    return out


def compare(a: Counts, b: Counts, *, by: Sequence[str] | None = None, method: str = "bootstrap",
            resamples: int = paired.DEFAULT_RESAMPLES, seed: int = stats.DEFAULT_SEED, alpha: float = paired.ALPHA,
            power: float = paired.POWER, effect: float = DEFAULT_EFFECT, names: Sequence[str] = ("A", "B")) -> dict:
    """The pairwise section of the analysis document (``docs/metrics/analysis.md``): per attribute of both
    runs' counts (``by``: those only), per bucket, A − B with its interval, standard error, p, the
    Benjamini–Hochberg adjusted p across the attribute's buckets, the verdict and the minimum detectable
    effect, and the sentences behind it (those with an item of the bucket in either run, and those on which
    the two runs' counts differ)."""
    if a.kind != b.kind:
        raise InputError(f"a {a.kind} analysis cannot be compared with a {b.kind} one")
    if a.keys != b.keys or a.strata != b.strata:
        raise InputError("the two runs were not analysed on the same sentences (same gold, same genres)")
    if resamples < 2:
        raise InputError("at least two resamples are needed")
    figure, _ = PAIR_FIGURES[a.kind]
    width = len(a.columns)
    names_b = {t[0].name: t for t in b.tables}
    ids = list(range(len(a.keys)))  # shared by every sentence list (see buckets.shared)
    out = {"figure": figure, "runs": list(names), "method": method, "resamples": resamples, "seed": seed,
           "alpha": alpha, "power": power, "effect": effect, "correction": "benjamini-hochberg", "attributes": []}
    chosen = []
    for attribute, labels_a, rows_a in a.tables:
        if (by and attribute.name not in by) or attribute.name not in names_b:
            continue
        _, labels_b, rows_b = names_b[attribute.name]
        union = sorted(set(labels_a) | set(labels_b), key=attribute.sort_key)
        chosen.append((attribute, union, _aligned(list(labels_a), rows_a, union, width),
                       _aligned(list(labels_b), rows_b, union, width)))
    if not chosen or not len(a.keys):
        return out
    # every attribute in one call: one figure set each, reading its columns of the attributes side by side,
    # so that the resamples are drawn once for all of them (the same draws as one call per attribute)
    figure_sets, start = [], 0
    for _, union, _, _ in chosen:
        part = bucket_figure_set(a.kind, union, width)
        figure_sets.append(paired.FigureSet(part.keys, part.compute, np.arange(start, start + len(union) * width)))
        start += len(union) * width
    runs = {0: np.hstack([xa for _, _, xa, _ in chosen]), 1: np.hstack([xb for _, _, _, xb in chosen])}
    parts = paired.compare_parts(runs, a.strata, figure_sets, method=method, resamples=resamples, seed=seed)
    for (attribute, union, xa, xb), part, figures in zip(chosen, parts, figure_sets):
        out["attributes"].append({"name": attribute.name, "description": attribute.description,
                                  "buckets": _buckets(part, figures, union, xa, xb, width, alpha=alpha, power=power,
                                                      effect=effect, ids=ids)})
    return out


def _buckets(result: paired.Compared, figures: paired.FigureSet, labels, xa, xb, width, *, alpha, power, effect,
             ids=None) -> list[dict]:
    """One attribute's buckets from its paired comparison (one pair: A, B)."""
    s = result.strata.index(stats.ALL)
    diff, se, low, high, p = (getattr(result, f)[0, s] for f in ("diff", "se", "low", "high", "p"))
    p_bh = paired.bh_adjust(p)
    point = figures.compute(np.stack([xa.sum(axis=0, dtype=np.float64), xb.sum(axis=0, dtype=np.float64)]))
    out = []
    for k, label in enumerate(labels):
        block_a, block_b = xa[:, k * width:(k + 1) * width], xb[:, k * width:(k + 1) * width]
        mde = None if math.isnan(se[k]) or se[k] <= 0 else float(paired.detectable(se[k], alpha, power))
        significant = bool(not math.isnan(p_bh[k]) and p_bh[k] < alpha)
        if significant:
            verdict = A_BETTER if diff[k] > 0 else B_BETTER
        else:
            verdict = NO_DIFFERENCE if mde is not None and mde <= effect else TOO_FEW
        out.append({
            "bucket": label, "a": stats.defined(point[0, k]), "b": stats.defined(point[1, k]),
            "diff": stats.defined(diff[k]), "se": stats.defined(se[k]),
            "ci": None if math.isnan(low[k]) else [float(low[k]), float(high[k])],
            "p": stats.defined(p[k]), "p_bh": stats.defined(p_bh[k]), "significant": significant, "mde": mde,
            "verdict": verdict,
            "sentences": shared(np.flatnonzero(block_a.any(axis=1) | block_b.any(axis=1)), ids),
            "differing_sentences": shared(np.flatnonzero((block_a != block_b).any(axis=1)), ids),
        })
    return out


def format_pairs(section: dict) -> str:
    """The pairwise tables as text (percentage points)."""
    a, b = section["runs"]
    lines = [f"pairwise: {a} - {b}, {section['figure'].upper()}, {section['method']} ({section['resamples']} "
             f"resamples, seed {section['seed']}), Benjamini-Hochberg per attribute, alpha {section['alpha']}, "
             f"MDE at {round(100 * section['power'])}% power"]

    def pts(v):
        return f"{'–':>8}" if v is None else f"{100 * v:>8.2f}"
    for attribute in section["attributes"]:
        width = max([12] + [len(x["bucket"]) + 2 for x in attribute["buckets"]])
        lines += ["", f"by {attribute['name']}",
                  f"{'bucket':<{width}}{a[:8]:>9}{b[:8]:>9}{'diff':>8}{'interval':>18}{'p':>9}{'p BH':>9}"
                  f"{'MDE':>8}  verdict"]
        for x in attribute["buckets"]:
            ci = "" if not x["ci"] else f"[{100 * x['ci'][0]:.2f}, {100 * x['ci'][1]:.2f}]"
            p = "–" if x["p"] is None else f"{x['p']:.4f}"
            pbh = "–" if x["p_bh"] is None else f"{x['p_bh']:.4f}"
            lines.append(f"{x['bucket']:<{width}} {pts(x['a'])} {pts(x['b'])}{pts(x['diff'])}{ci:>18}{p:>9}{pbh:>9}"
                         f"{pts(x['mde'])}  {x['verdict']}")
    return "\n".join(lines) + "\n"
