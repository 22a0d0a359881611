"""Paired significance between two runs scored on the same sentences, Holm's correction, ranking clusters.

Built on the statistics layer (:mod:`evaluation.stats`): a run is its
per-sentence rows of sufficient statistics; a :class:`FigureSet` turns summed
rows into figures. Two runs are compared on the *same* resamples:

* ``bootstrap`` (default): :func:`evaluation.stats.resampled_sums` over the
  two runs' rows at once, so every resample draws the same sentences for both
  (paired), within each genre (stratified), from one seeded generator. The
  difference's 95% interval is the percentile interval of the resampled
  differences; the two-sided p-value is the share of resampled differences,
  centred on their mean, at least as far from 0 as the observed one
  (Koehn 2004; the null distribution of sacreBLEU's paired bootstrap), with
  the +1 correction so it is never 0.
* ``ar`` (approximate randomisation, Noreen 1989; Riezler & Maxwell 2005):
  each sentence's two rows swapped with probability 1/2; p is the share of
  shuffles whose difference is at least as far from 0 as the observed one
  (+1 corrected). It gives no interval.

:func:`holm` adjusts the p-values of a family of tests (Holm 1979).
:func:`rank_clusters` orders runs by a figure and groups them as the WMT
findings do.

Pure: numpy and the standard library only.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable, Hashable, Mapping, Sequence

import numpy as np

from evaluation import stats

METHODS = ("bootstrap", "ar")
DEFAULT_RESAMPLES = 1000
ALPHA = 0.05


@dataclass(frozen=True)
class FigureSet:
    """How summed per-sentence rows become figures.

    ``compute`` maps summed rows of shape (m, columns) to figures of shape
    (m, len(keys)), NaN where a figure is undefined.
    """

    keys: tuple[Hashable, ...]
    compute: Callable[[np.ndarray], np.ndarray]
    columns: np.ndarray | None = None  # the row columns it reads (all when None), in the order compute expects


def split(figures: FigureSet | Sequence[FigureSet]) -> list[FigureSet]:
    return [figures] if isinstance(figures, FigureSet) else list(figures)


def keys_of(figures: FigureSet | Sequence[FigureSet]) -> tuple[Hashable, ...]:
    return tuple(k for part in split(figures) for k in part.keys)


@dataclass
class Comparison:
    """Per stratum (every genre and ``ALL``), arrays of shape (len(keys),): A − B, its interval and p."""

    keys: tuple[Hashable, ...]
    diff: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]
    p: dict[str, np.ndarray]


def _figures(figures: FigureSet, sums: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(figures.compute(np.atleast_2d(np.asarray(sums, dtype=np.float64))), dtype=np.float64)


def _p_values(null: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """(1 + #{|null| >= |observed|}) / (1 + #defined null values), per column; NaN where undefined."""
    defined = ~np.isnan(null)
    # A resampled difference equal to the observed one up to rounding counts as "as extreme".
    tol = 1e-12 * np.maximum(1.0, np.abs(observed))
    extreme = (np.abs(np.where(defined, null, 0.0)) >= np.abs(observed) - tol) & defined
    n = defined.sum(axis=0)
    p = (1.0 + extreme.sum(axis=0)) / (1.0 + n)
    return np.where(np.isnan(observed) | (n == 0), np.nan, p)


def _strata_sums(rows: np.ndarray, labels: np.ndarray, genres: list[str]) -> dict[str, np.ndarray]:
    out = {g: rows[labels == g].sum(axis=0, dtype=np.float64) for g in genres}
    out[stats.ALL] = rows.sum(axis=0, dtype=np.float64)
    return out


def paired_test(a: np.ndarray, b: np.ndarray, strata: Sequence[str], figures: FigureSet | Sequence[FigureSet], *,
                method: str = "bootstrap", resamples: int = DEFAULT_RESAMPLES,
                seed: int = stats.DEFAULT_SEED) -> Comparison:
    """Compare run A with run B (rows aligned: row i of both is the same sentence) on every figure and stratum."""
    return compare_all({0: a, 1: b}, strata, figures, method=method, resamples=resamples, seed=seed)[(0, 1)]


def compare_all(runs: Mapping[Hashable, np.ndarray], strata: Sequence[str],
                figures: FigureSet | Sequence[FigureSet], *, method: str = "bootstrap",
                resamples: int = DEFAULT_RESAMPLES, seed: int = stats.DEFAULT_SEED) -> dict[tuple, Comparison]:
    """Every pair (a, b) of ``runs`` (in the mapping's order, a before b), compared on every figure and stratum.

    Under the bootstrap every pair sees the same resamples (one seeded draw of sentences per genre, shared
    by all runs), so each run is resampled once, not once per pair; the figure sets are taken one at a time
    to keep memory small. A pair's test is exactly :func:`paired_test` of its two runs.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
    if resamples < 1:
        raise ValueError("at least one resample is needed")
    names = list(runs)
    shapes = {np.shape(runs[n]) for n in names}
    if len(shapes) > 1 or any(len(runs[n]) != len(strata) for n in names):
        raise ValueError("the runs' rows must cover the same sentences in the same order")
    labels = np.array(list(strata), dtype=object)
    genres = sorted(set(strata))
    pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
    parts: dict[tuple, list[tuple]] = {pair: [] for pair in pairs}
    # The draws are made once and shared by every figure set and run (integer counts kept small in memory).
    draws = [(g, idx, w.astype(np.float32)) for g, idx, w in stats.resampling_weights(strata, resamples, seed)] \
        if method == "bootstrap" else []
    for part in split(figures):
        cols = part.columns
        local = {n: (runs[n] if cols is None else runs[n][:, cols]) for n in names}
        point = {n: {g: _figures(part, s)[0] for g, s in _strata_sums(local[n], labels, genres).items()}
                 for n in names}
        if method == "bootstrap":
            resampled = _resampled_figures(local, draws, part)
        for x, y in pairs:
            observed = {g: point[x][g] - point[y][g] for g in point[x]}
            if method == "bootstrap":
                null, low, high = _spread({g: resampled[x][g] - resampled[y][g] for g in resampled[x]})
            else:
                null = _randomised(local[x], local[y], labels, genres, part, resamples, seed)
                nan = np.full(len(part.keys), np.nan)
                low, high = {g: nan for g in null}, {g: nan for g in null}
            parts[(x, y)].append((observed, low, high, {g: _p_values(null[g], observed[g]) for g in observed}))
    keys = keys_of(figures)
    out = {}
    for pair, pieces in parts.items():
        joined = [{g: np.concatenate([piece[i][g] for piece in pieces]) for g in pieces[0][0]} for i in range(4)]
        out[pair] = Comparison(keys, *joined)
    return out


def _resampled_figures(local, draws, figures) -> dict[Hashable, dict[str, np.ndarray]]:
    """Per run and stratum, the figures of the shared resamples: arrays of shape (resamples, keys)."""
    names = list(local)
    out = {n: {} for n in names}
    totals: dict[Hashable, np.ndarray] = {}
    for genre, idx, weights in draws:
        for n, s in zip(names, stats.weighted_sums([local[n] for n in names], idx, weights)):
            out[n][genre] = _figures(figures, s)
            totals[n] = s if n not in totals else totals[n] + s
    for n in names:
        out[n][stats.ALL] = _figures(figures, totals[n])
    return out


def _spread(diffs: dict[str, np.ndarray]):
    """The centred null distribution and the percentile interval of resampled differences."""
    null, low, high = {}, {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for genre, d in diffs.items():
            null[genre] = d - np.nanmean(d, axis=0)
            # nanpercentile walks the columns one by one in Python: only where a resample is undefined
            percentile = np.nanpercentile if np.isnan(d).any() else np.percentile
            low[genre], high[genre] = percentile(d, stats.CI_PERCENTILES, axis=0)
    return null, low, high


def _randomised(a, b, labels, genres, figures, resamples, seed):
    """Differences under the null hypothesis that A and B are exchangeable sentence by sentence."""
    rng = np.random.default_rng(seed)
    diffs: dict[str, np.ndarray] = {}
    total_a = total_b = None
    for genre in genres:
        idx = np.flatnonzero(labels == genre)
        ga, gb = a[idx].astype(np.float64), b[idx].astype(np.float64)
        swap = rng.integers(0, 2, size=(resamples, len(idx))).astype(np.float64)
        moved = swap @ (gb - ga)  # what the swapped sentences add to A and take from B
        pa = ga.sum(axis=0) + moved
        pb = gb.sum(axis=0) - moved
        diffs[genre] = _figures(figures, pa) - _figures(figures, pb)
        total_a = pa if total_a is None else total_a + pa
        total_b = pb if total_b is None else total_b + pb
    diffs[stats.ALL] = _figures(figures, total_a) - _figures(figures, total_b)
    return diffs


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values, in the given order; undefined ones (None/NaN) stay None and do not count.

    Sorted ascending p(1) <= ... <= p(m): adjusted p(i) = max over j <= i of min(1, (m - j + 1) p(j)).
    """
    known = [(p, i) for i, p in enumerate(p_values) if p is not None and not math.isnan(p)]
    known.sort()
    m = len(known)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


@dataclass
class Ranked:
    run: Hashable
    score: float | None
    rank_low: int   # best rank the run could have (1 + runs significantly better)
    rank_high: int  # worst rank (number of runs − runs significantly worse)
    cluster: int    # 1 for the top cluster


def rank_clusters(scores: Mapping[Hashable, float | None],
                  differs: Callable[[Hashable, Hashable], bool]) -> list[Ranked]:
    """Runs ordered by score (best first; undefined last) with rank ranges and clusters, as in the WMT findings.

    ``differs(x, y)`` says whether the difference between runs x and y is significant. A new cluster starts
    between positions i and i+1 when every run above is significantly better than every run below, so a
    cluster holds runs that the tests cannot tell apart from their neighbours.
    """
    order = sorted(scores, key=lambda r: (scores[r] is None, -(scores[r] or 0.0)))
    n = len(order)

    def better(x, y):  # x significantly better than y
        return scores[x] is not None and (scores[y] is None or scores[x] > scores[y]) and differs(x, y)

    out, cluster = [], 1
    for i, run in enumerate(order):
        if i and all(better(x, y) for x in order[:i] for y in order[i:]):
            cluster += 1
        above = sum(1 for x in order if x != run and better(x, run))
        below = sum(1 for y in order if y != run and better(run, y))
        out.append(Ranked(run, scores[run], 1 + above, n - below, cluster))
    return out
