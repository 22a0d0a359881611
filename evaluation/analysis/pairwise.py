"""Two runs compared bucket by bucket (issue 38): the campaign's paired test in every bucket of an attribute,
Benjamini–Hochberg across the attribute's buckets, and each bucket's minimum detectable effect.

The figure compared is the analysis' own (``index["figure"]``: a ratio of two count columns, LAS for
dependencies), its per-sentence counts read from each run's index (:mod:`evaluation.kinds.analysis`). The rows
are the sentences of both runs in the order of their keys with their genres, as the paired significance layer
lines them up (:func:`evaluation.results.sentence_rows.sorted_rows`); the test is
:func:`parseval.evaluation.paired.compare_arrays` with the campaign's method, resamples and seed
(:func:`evaluation.significance.sets.settings_of`). So a bucket holding every item is exactly the comparison
page's test of that figure. All the buckets of an attribute share the same draws.

Reading a bucket whose difference is not significant: with a detectable effect of at most
:data:`NO_DIFFERENCE_MDE` the bucket holds enough items to have seen a difference that large: "no difference";
above it, "too few items to tell".
"""
from __future__ import annotations

import numpy as np

from parseval.evaluation import paired
from parseval.evaluation.stats import ALL

NO_DIFFERENCE_MDE = 0.02  # 2 points: a smaller true difference than this is not what a bucket is read for


def _rows(index: dict, attribute: str, order: np.ndarray, position: dict[str, int], labels: list[str]) -> np.ndarray:
    """(sentences, 2 * buckets) of numerator and denominator per bucket, sentences in ``order`` of keys."""
    columns = index["columns"]
    num, den = columns.index(index["figure"]["numerator"]), columns.index(index["figure"]["denominator"])
    out = np.zeros((len(order), 2 * len(labels)), dtype=np.float64)
    entries = index["buckets"].get(attribute, {})
    keys = index["keys"]
    for k, label in enumerate(labels):
        entry = entries.get(label)
        if not entry:
            continue
        for s, counts in zip(entry["s"], entry["c"]):
            row = position.get(keys[s])
            if row is not None:
                out[row, 2 * k] = counts[num]
                out[row, 2 * k + 1] = counts[den]
    return out


def _ratio(columns: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(columns[:, 1:2] > 0, columns[:, 0:1] / np.where(columns[:, 1:2] > 0, columns[:, 1:2], 1),
                        np.nan)


def compare(index_a: dict, index_b: dict, attribute: str, settings: dict) -> dict:
    """``{"rows": [...], "sentences": n, "figure": name}``: per bucket (the union of both runs' buckets, in the
    first run's order then the second's) the two figures, their difference A − B, its interval, p, BH-adjusted
    p, the detectable effect and the reading (``better_a``, ``better_b``, ``no_difference``, ``too_few``)."""
    keys_a, keys_b = index_a["keys"], index_b["keys"]
    common = sorted(set(keys_a) & set(keys_b))
    genre_of = dict(zip(keys_a, index_a["genres"]))
    order = np.array(common, dtype=str)
    position = {key: i for i, key in enumerate(common)}
    strata = [genre_of[k] for k in common]
    labels = list(index_a["buckets"].get(attribute, {}))
    labels += [b for b in index_b["buckets"].get(attribute, {}) if b not in labels]
    out = {"rows": [], "sentences": len(common), "figure": index_a["figure"]["name"]}
    if not labels or len(common) == 0:
        return out
    a, b = _rows(index_a, attribute, order, position, labels), _rows(index_b, attribute, order, position, labels)
    figures = [paired.FigureSet(keys=(label,), compute=_ratio, columns=np.array([2 * k, 2 * k + 1]))
               for k, label in enumerate(labels)]
    compared = paired.compare_arrays({"a": a, "b": b}, strata, figures, method=settings["method"],
                                     resamples=settings["resamples"], seed=settings["seed"])
    at = compared.strata.index(ALL)
    diff, se, low, high, p = (getattr(compared, f)[0, at] for f in ("diff", "se", "low", "high", "p"))
    p_list = [None if np.isnan(v) else float(v) for v in p]
    p_bh = paired.benjamini_hochberg(p_list)
    sums_a, sums_b = a.sum(axis=0), b.sum(axis=0)
    alpha = settings.get("alpha", paired.ALPHA)
    for k, label in enumerate(labels):
        fa = None if sums_a[2 * k + 1] == 0 else float(sums_a[2 * k] / sums_a[2 * k + 1])
        fb = None if sums_b[2 * k + 1] == 0 else float(sums_b[2 * k] / sums_b[2 * k + 1])
        d = None if np.isnan(diff[k]) else float(diff[k])
        s = None if np.isnan(se[k]) else float(se[k])
        mde = None if s is None else float(paired.detectable(s, alpha))
        if d is None or p_bh[k] is None:
            reading = "undefined"
        elif p_bh[k] < alpha:
            reading = "better_a" if d > 0 else "better_b"
        elif mde is not None and mde <= NO_DIFFERENCE_MDE:
            reading = "no_difference"
        else:
            reading = "too_few"
        out["rows"].append({"bucket": label, "a": fa, "b": fb, "items_a": int(sums_a[2 * k + 1]),
                            "items_b": int(sums_b[2 * k + 1]), "diff": d, "se": s,
                            "ci": None if np.isnan(low[k]) else [float(low[k]), float(high[k])],
                            "p": p_list[k], "p_bh": p_bh[k], "mde": mde, "reading": reading})
    return out


def sentences_behind(index_a: dict, index_b: dict, attribute: str, bucket: str) -> list[str]:
    """The keys of the sentences with an item in ``bucket`` in either run, in the first run's corpus order."""
    keys = set()
    for index in (index_a, index_b):
        entry = index["buckets"].get(attribute, {}).get(bucket) or {"s": []}
        keys |= {index["keys"][s] for s in entry["s"]}
    return [k for k in index_a["keys"] if k in keys]
