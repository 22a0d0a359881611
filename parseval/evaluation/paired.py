"""Paired significance between two runs scored on the same sentences, multiple-test corrections, ranking clusters.

Built on the statistics layer (:mod:`parseval.evaluation.stats`): a run is its
per-sentence rows of sufficient statistics; a :class:`FigureSet` turns summed
rows into figures. Two runs are compared on the *same* resamples:

* ``bootstrap`` (default): the statistics layer's genre-stratified resamples
  (:func:`parseval.evaluation.stats.resampling_weights`: every resample draws the same
  sentences for both runs, within each genre, from one seeded generator;
  Koehn 2004). The resampled differences give the difference's standard
  error ``se``; the test is the normal approximation of the bootstrap
  distribution (Efron & Tibshirani 1993, ch. 12 and 16): two-sided
  ``p = erfc(|d| / (se·√2))``, and the 95% interval is ``d ± 1.96·se``, so
  ``p < 0.05`` exactly when the interval leaves out 0. Unlike a count of
  resamples ``(1 + k) / (1 + B)``, this p has no floor at ``1 / (B + 1)``:
  a family of thousands of tests can reach its corrected threshold with
  1,000 resamples (docs/significance.md, "Tests that can reach their decision").
* ``ar`` (approximate randomisation, Noreen 1989; Riezler & Maxwell 2005):
  each sentence's two rows swapped with probability 1/2; p is the share of
  shuffles whose difference is at least as far from 0 as the observed one
  (+1 corrected). It gives no interval; its number of shuffles is raised to
  what the family needs (:func:`shuffles_needed`).

Every pair is computed at once (:func:`compare_arrays`): each run is resampled
once, and the variance of every pair's difference comes from one Gram matrix
of the runs' centred resampled figures, so the cost grows with the runs, and
only a matrix product with their square.

:func:`holm` (family-wise, Holm 1979) and :func:`benjamini_hochberg` (false
discovery rate, Benjamini & Hochberg 1995) adjust a family's p-values;
:func:`replicability` counts the genres where one run is better (Dror et al.
2017). :func:`rank_clusters` orders runs by a figure and groups them as the
WMT findings do.

Pure: numpy and the standard library only.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Callable, Hashable, Iterator, Mapping, Sequence

import numpy as np

from parseval.evaluation import stats

METHODS = ("bootstrap", "ar")
DEFAULT_RESAMPLES = 1000
ALPHA = 0.05
POWER = 0.80
Z_CI = NormalDist().inv_cdf(1 - (1 - stats.CI_LEVEL) / 2)


@dataclass(frozen=True)
class FigureSet:
    """How summed per-sentence rows become figures.

    ``compute`` maps summed rows of shape (m, columns) to figures of shape
    (m, len(keys)), NaN where a figure is undefined.
    """

    keys: tuple[Hashable, ...]
    compute: Callable[[np.ndarray], np.ndarray]
    columns: np.ndarray | None = None  # the row columns it reads (all when None), in the order compute expects
    # ``compute`` as data, for readers without the platform (a publication bundle): (name, arguments, the
    # cell field each key is published in); see parseval.evaluation.figure_sets.from_recipe. Empty: none.
    recipe: tuple = ()


def split(figures: FigureSet | Sequence[FigureSet]) -> list[FigureSet]:
    return [figures] if isinstance(figures, FigureSet) else list(figures)


def keys_of(figures: FigureSet | Sequence[FigureSet]) -> tuple[Hashable, ...]:
    return tuple(k for part in split(figures) for k in part.keys)


@dataclass
class Comparison:
    """Per stratum (every genre and ``ALL``), arrays of shape (len(keys),): A − B, its interval, p and standard
    error (NaN under approximate randomisation, which gives none)."""

    keys: tuple[Hashable, ...]
    diff: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]
    p: dict[str, np.ndarray]
    se: dict[str, np.ndarray] | None = None


@dataclass
class Compared:
    """Every pair of runs at once: arrays of shape (pairs, strata, keys).

    ``strata`` are the sorted genres then ``ALL``; ``pairs`` holds (a, b) in the runs' order, a before b, and
    every figure is a − b. ``resamples`` is the number of resamples or shuffles actually drawn.
    """

    pairs: list[tuple]
    strata: list[str]
    keys: tuple[Hashable, ...]
    diff: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p: np.ndarray
    resamples: int

    def comparison(self, index: int) -> Comparison:
        def per(a):
            return {g: a[index, s] for s, g in enumerate(self.strata)}
        return Comparison(self.keys, per(self.diff), per(self.low), per(self.high), per(self.p), per(self.se))


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


def normal_p(diff, se, *, one_sided: bool = False, floor: float | None = None) -> np.ndarray:
    """p of ``diff`` against N(0, se²): two-sided erfc(|d| / (se·√2)), or one-sided (H1: d > 0) erfc(d/(se·√2))/2.

    Where the resamples never vary (se = 0) there is no normal curve to read: p is 1 for no difference, and
    for a difference the counted bootstrap's own answer, ``floor`` = 1 / (B + 1) (every resample gives the
    observed difference and no centred one is as far from 0: two runs that differ by the same amount on
    every sentence), or undefined (NaN) when no floor is given.
    """
    diff = np.asarray(diff, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, (diff if one_sided else np.abs(diff)) / np.where(se > 0, se, 1.0), np.nan)
    known = ~np.isnan(z)
    p = np.full(z.shape, np.nan)
    scaled = (z[known] / math.sqrt(2.0)).tolist()  # math.erfc value by value (numpy has none): the same bits
    p[known] = np.fromiter(map(math.erfc, scaled), dtype=np.float64, count=len(scaled)) * (0.5 if one_sided else 1.0)
    if not one_sided:
        p = np.where((se == 0) & (diff == 0), 1.0, p)
        if floor is not None:
            p = np.where((se == 0) & (diff != 0) & ~np.isnan(diff), floor, p)
    return p


def shuffles_needed(family: int, alpha: float = ALPHA) -> int:
    """Shuffles a counted p-value needs to reach Holm's first step, alpha / family, with a margin of 2:
    the smallest such p is 1 / (B + 1)."""
    return int(math.ceil(2 * max(family, 1) / alpha))


def paired_test(a: np.ndarray, b: np.ndarray, strata: Sequence[str], figures: FigureSet | Sequence[FigureSet], *,
                method: str = "bootstrap", resamples: int = DEFAULT_RESAMPLES,
                seed: int = stats.DEFAULT_SEED) -> Comparison:
    """Compare run A with run B (rows aligned: row i of both is the same sentence) on every figure and stratum."""
    return compare_all({0: a, 1: b}, strata, figures, method=method, resamples=resamples, seed=seed)[(0, 1)]


def compare_all(runs: Mapping[Hashable, np.ndarray], strata: Sequence[str],
                figures: FigureSet | Sequence[FigureSet], *, method: str = "bootstrap",
                resamples: int = DEFAULT_RESAMPLES, seed: int = stats.DEFAULT_SEED) -> dict[tuple, Comparison]:
    """Every pair (a, b) of ``runs`` (in the mapping's order, a before b), compared on every figure and stratum."""
    out = compare_arrays(runs, strata, figures, method=method, resamples=resamples, seed=seed)
    return {pair: out.comparison(i) for i, pair in enumerate(out.pairs)}


def compare_arrays(runs: Mapping[Hashable, np.ndarray], strata: Sequence[str],
                   figures: FigureSet | Sequence[FigureSet], *, method: str = "bootstrap",
                   resamples: int = DEFAULT_RESAMPLES, seed: int = stats.DEFAULT_SEED) -> Compared:
    """Every pair of ``runs`` on every figure and stratum, as arrays (:class:`Compared`): the figure sets of
    :func:`compare_parts` side by side."""
    parts = list(compare_parts(runs, strata, figures, method=method, resamples=resamples, seed=seed))
    if not parts:
        raise ValueError("no figure to compare")
    joined = [np.concatenate([getattr(part, f) for part in parts], axis=2)
              for f in ("diff", "se", "low", "high", "p")]
    return Compared(parts[0].pairs, parts[0].strata, keys_of(figures), *joined[:4], p=joined[4],
                    resamples=resamples)


def compare_parts(runs: Mapping[Hashable, np.ndarray], strata: Sequence[str],
                  figures: FigureSet | Sequence[FigureSet], *, method: str = "bootstrap",
                  resamples: int = DEFAULT_RESAMPLES, seed: int = stats.DEFAULT_SEED,
                  pairs: Sequence[tuple] | None = None,
                  prepared: Callable[[Hashable], RunFigures] | None = None,
                  pairs_at_once: int | None = None) -> Iterator[Compared]:
    """Every pair of ``runs`` on every figure and stratum, one :class:`Compared` per figure set, so that a
    caller storing the results holds one figure set's pairs at a time (a hundred runs: 4,950 pairs).

    ``pairs``: only these (a, b) (a − b), e.g. the pairs a new run adds to those already computed; only the
    runs they name are resampled. By default every pair, in the mapping's order.

    ``prepared``: each run's :class:`RunFigures` by name (e.g. kept on disk), instead of computing them from
    ``runs``, whose rows are then read only for approximate randomisation or a figure outside [0, 1].
    ``pairs_at_once``: with ``prepared``, a figure set's pairs are yielded in blocks of about that many
    (pairs with the same second run kept in one block), so that a caller holds one block at a time.

    Under the bootstrap every pair sees the same resamples (one seeded draw of sentences per genre, shared
    by all runs and figure sets: they depend on the seed and the sentences only), so each run is resampled
    once. A pair's values depend on its two runs, the seed and the sentences only, never on which other
    runs are compared at the same time (:func:`_pair_variances` sums exact integers), so pairs computed as
    runs arrive are those computed at once, bit for bit. A pair's test is exactly :func:`paired_test` of
    its two runs.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
    if resamples < 2:
        raise ValueError("at least two resamples are needed")
    names = list(runs)
    if prepared is None:  # with ``prepared`` the rows are read only where needed (they may be loaded on access)
        shapes = {np.shape(runs[n]) for n in names}
        if len(shapes) > 1 or any(len(runs[n]) != len(strata) for n in names):
            raise ValueError("the runs' rows must cover the same sentences in the same order")
    labels = np.array(list(strata), dtype=object)
    genres = sorted(set(strata))
    where = [np.flatnonzero(labels == g) for g in genres]
    if pairs is None:
        pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
    else:
        pairs = [tuple(pair) for pair in pairs]
        named = {n for pair in pairs for n in pair}
        names = [n for n in names if n in named]  # only the runs of the pairs asked for are resampled
    index = {n: i for i, n in enumerate(names)}
    ia = np.array([index[x] for x, _ in pairs], dtype=np.intp)
    ib = np.array([index[y] for _, y in pairs], dtype=np.intp)
    parts = split(figures)
    kept: dict = {}
    if method == "bootstrap":
        if prepared is None:
            draws = shared_draws(strata, resamples, seed)
            kept = {n: run_figures(runs[n], figures, draws) for n in names}
            prepared = kept.__getitem__
        prepared_runs = [prepared(n) for n in names]
        if all(r.fixed is not None for r in prepared_runs):
            yield from _compare_prepared(prepared_runs, names, runs, pairs, ia, ib, parts, genres, where, resamples,
                                         pairs_at_once)
            return
        kept = {}
    # approximate randomisation, or a figure beyond [0, 1] (none of the platform's): every run's rows at once
    draws = shared_draws(strata, resamples, seed) if method == "bootstrap" else []
    for part in parts:
        cols = part.columns
        x = np.stack([runs[n] if cols is None else runs[n][:, cols] for n in names])  # (runs, sentences, c)
        point = _stratum_figures(part, [x[:, idx].sum(axis=1, dtype=np.float64) for idx in where]
                                 + [x.sum(axis=1, dtype=np.float64)])       # (strata, runs, keys)
        diff = point[:, ia] - point[:, ib]                                  # (strata, pairs, keys)
        if method == "bootstrap":
            se = np.sqrt(_pair_variances(_resampled(x, draws, part), ia, ib, overwrite=True))
            p = normal_p(diff, se)
            _constant_differences(p, diff, se, lambda i, x=x: x[i], ia, ib, where, 1.0 / (resamples + 1))
            low, high = diff - Z_CI * se, diff + Z_CI * se
        else:
            p = np.stack([_randomised(x[i], x[j], labels, genres, part, resamples, seed) for i, j in zip(ia, ib)],
                         axis=1) if len(pairs) else np.zeros_like(diff)
            se = low = high = np.full(diff.shape, np.nan)
        arrays = [np.moveaxis(v, 1, 0) for v in (diff, se, low, high, p)]   # (pairs, strata, keys)
        yield Compared(pairs, genres + [stats.ALL], part.keys, *arrays[:4], p=arrays[4], resamples=resamples)


def shared_draws(strata, resamples: int, seed: int) -> list:
    """The draws shared by every run and figure set (resampling counts are exact in float32)."""
    return [(g, idx, w.astype(np.float32)) for g, idx, w in stats.resampling_weights(strata, resamples, seed)]


UNDEFINED = np.iinfo(np.int32).min  # a resampled figure undefined in a resample, in :attr:`RunFigures.fixed`


@dataclass
class RunFigures:
    """What the pairs need of one run under the bootstrap, whatever the other runs: a function of the run's
    rows, the figures, the seed, the number of resamples and the sentences only.

    ``point``: the figures of every stratum (genres then ``ALL``), shape (strata, keys of every figure set).
    ``fixed``: the resampled figures, rounded to multiples of 2**-bits (:func:`_quantum_bits`) and centred on
    a multiple of it, counted in those units (int32; :data:`UNDEFINED` where a figure is undefined), one
    row per figure set, stratum and key (figure set by figure set, then strata, then keys), one column per
    resample; None when some figure lies outside [0, 1] (the pairs are then computed from the rows).
    """

    point: np.ndarray
    fixed: np.ndarray | None
    sums: np.ndarray | None = None  # (2, rows): Σ z² and Σ z of each row of ``fixed`` (undefined counted as 0)
    digests: np.ndarray | None = None  # (figure sets, sentences): :func:`row_digests` of each set's columns


_DIGEST = np.random.default_rng(20260).integers(1, 2 ** 63, size=4096, dtype=np.uint64) | np.uint64(1)


def row_digests(rows: np.ndarray) -> np.ndarray:
    """One 64-bit digest per row (Σ row[j]·w[j] mod 2**64, fixed odd random w): two runs' rows differ on a
    sentence when their digests differ (the same rows, the same digest; distinct rows collide with a chance
    of about 2**-63), so that :func:`_constant_differences` needs no rows."""
    width = rows.shape[1]
    weights = _DIGEST[:width] if width <= len(_DIGEST) else np.resize(_DIGEST, width)
    with np.errstate(over="ignore"):
        return (rows.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)


def figure_rows(figures: FigureSet | Sequence[FigureSet], strata_count: int) -> list[tuple[int, int]]:
    """The rows of :attr:`RunFigures.fixed` of each figure set: (first, end)."""
    out, start = [], 0
    for part in split(figures):
        end = start + strata_count * len(part.keys)
        out.append((start, end))
        start = end
    return out


def run_figures(rows: np.ndarray, figures: FigureSet | Sequence[FigureSet], draws) -> RunFigures:
    """One run's :class:`RunFigures` from its rows and the shared draws (:func:`shared_draws`)."""
    points, fixed, sums, digests, exact_all = [], [], [], [], True
    genres_where = [idx for _, idx, _ in draws]
    parts = split(figures)
    shared = _shared_sums(rows, parts, draws)
    for part in parts:
        cols = part.columns
        x = (rows if cols is None else rows[:, cols])[None]
        digests.append(row_digests(x[0]))
        points.append(_stratum_figures(part, [x[:, idx].sum(axis=1, dtype=np.float64) for idx in genres_where]
                                       + [x.sum(axis=1, dtype=np.float64)])[:, 0])   # (strata, keys)
        f = _resampled(x, draws, part) if shared is None else _resampled_from(shared, part)  # (strata, keys, 1, B)
        s, k, _, b = f.shape
        f = f.reshape(s * k, b)
        defined = ~np.isnan(f)
        if not (((f >= 0) | ~defined).all() and ((f <= 1) | ~defined).all()):
            exact_all = False
            continue
        z = np.where(defined, f, 0.0)
        z *= float(2 ** _quantum_bits(b))
        np.rint(z, out=z)
        count = defined.sum(axis=1)
        z -= np.rint(z.sum(axis=1) / np.maximum(count, 1))[:, None]  # as _pair_variances centres them
        z[~defined] = 0.0
        sums.append(np.stack([np.einsum("rb,rb->r", z, z), z.sum(axis=1)]))  # exact integers
        z = z.astype(np.int32)
        z[~defined] = UNDEFINED
        fixed.append(z)
    if not exact_all:
        return RunFigures(np.concatenate(points, axis=1), None)
    return RunFigures(np.concatenate(points, axis=1), np.concatenate(fixed, axis=0), np.concatenate(sums, axis=1),
                      np.stack(digests))


def _shared_sums(rows: np.ndarray, parts: list[FigureSet], draws) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Integer rows: the resampled sums of the columns the figure sets read, genres then ALL, each (B, distinct
    columns), and for each column read (sorted) the index of its sums. One matrix product per genre for every
    figure set at once (a set's own product has a few dozen columns, too narrow for BLAS to run at its speed),
    each distinct column once (an EASY run's 780 columns hold about 300 distinct ones: the gold's counts
    recur in every way). Every sum is an exact integer (:func:`_resampled`), so each figure set's columns are
    the sums its own product gives. None for other rows."""
    if not np.issubdtype(rows.dtype, np.integer) or not rows.size:
        return None
    used = (np.arange(rows.shape[1]) if any(part.columns is None for part in parts)
            else np.unique(np.concatenate([np.asarray(part.columns) for part in parts])))
    by_column = np.ascontiguousarray(rows[:, used].T)  # each column's values as one byte string, to group equal ones
    _, first, column = np.unique(by_column.view(np.dtype((np.void, by_column.shape[1] * by_column.itemsize))).ravel(),
                                 return_index=True, return_inverse=True)
    distinct = by_column[first].T
    out, total = [], None
    for _, idx, weights in draws:
        s = (weights.astype(np.float32, copy=False) @ distinct[idx].astype(np.float32)).astype(np.float64)
        out.append(s)
        total = s if total is None else total + s
    return (used, column.reshape(-1)), out + [total]


def _resampled_from(shared: tuple, figures: FigureSet) -> np.ndarray:
    """:func:`_resampled` of one run from its :func:`_shared_sums`: shape (strata, keys, 1, resamples)."""
    (used, column), sums = shared
    where = column if figures.columns is None else column[np.searchsorted(used, figures.columns)]
    b = sums[0].shape[0]
    # every stratum's resamples in one call (figures are computed row by row: the same values)
    out = _figures(figures, np.concatenate([s[:, where] for s in sums]))  # (strata·B, keys)
    return out.reshape(len(sums), b, 1, -1).transpose(0, 3, 2, 1)


ROWS_BYTES = 16 * 2 ** 20  # float64 figures of the runs multiplied at once: rows of a figure set taken in chunks


def _compare_prepared(prepared: list[RunFigures], names, runs, pairs, ia, ib, parts, genres, where,
                      resamples: int, pairs_at_once: int | None = None):
    """:func:`compare_parts` from the runs' :class:`RunFigures`, without their rows."""
    strata = len(genres) + 1
    r, b = len(prepared), resamples
    scale = float(2 ** _quantum_bits(b))
    offset = 0
    for number, (part, (first, end)) in enumerate(zip(parts, figure_rows(parts, strata))):
        k = len(part.keys)
        point = np.stack([run.point[:, offset:offset + k] for run in prepared], axis=1)  # (strata, runs, keys)
        offset += k
        var = np.full((end - first, len(ia)), np.nan)
        step = max(1, ROWS_BYTES // (8 * max(r, 1) * b))
        for lo in range(first, end, step):
            hi = min(end, lo + step)
            z = np.empty((hi - lo, r, b))
            defined = None
            for i, run in enumerate(prepared):
                chunk = run.fixed[lo:hi]
                missing = chunk == UNDEFINED
                if missing.any():
                    if defined is None:
                        defined = np.ones(z.shape, dtype=bool)
                    defined[:, i] = ~missing
                    chunk[missing] = 0
                z[:, i] = chunk
            sums = None
            if all(run.sums is not None for run in prepared):
                sums = tuple(np.stack([run.sums[j, lo:hi] for run in prepared], axis=1) for j in (0, 1))
            var[lo - first:hi - first] = _gram_variances(z, defined, ia, ib, b, sums)
        var = np.maximum(var, 0.0) / (scale * scale)
        se_all = np.sqrt(var.reshape(strata, k, -1).transpose(0, 2, 1))  # (strata, pairs, keys)
        del var
        for lo, hi in _pair_blocks(pairs, pairs_at_once):
            diff = point[:, ia[lo:hi]] - point[:, ib[lo:hi]]
            se = se_all[:, lo:hi]
            p = normal_p(diff, se)
            _constant_differences(p, diff, se, lambda i, n=number: prepared[i].digests[n], ia[lo:hi], ib[lo:hi],
                                  where, 1.0 / (resamples + 1))
            low, high = diff - Z_CI * se, diff + Z_CI * se
            arrays = [np.moveaxis(v, 1, 0) for v in (diff, se, low, high, p)]
            yield Compared(pairs[lo:hi], genres + [stats.ALL], part.keys, *arrays[:4], p=arrays[4],
                           resamples=resamples)


def _pair_blocks(pairs: list[tuple], size: int | None) -> list[tuple[int, int]]:
    """Consecutive blocks of about ``size`` pairs (all when None), never cutting between two pairs with the
    same second run."""
    if not size or len(pairs) <= size:
        return [(0, len(pairs))]
    out, start = [], 0
    for k in range(1, len(pairs)):
        if k - start >= size and pairs[k][1] != pairs[k - 1][1]:
            out.append((start, k))
            start = k
    out.append((start, len(pairs)))
    return out


def _constant_differences(p, diff, se, rows_of, ia, ib, where, floor: float) -> None:
    """Where the resamples never vary yet the runs differ (se = 0, d ≠ 0), p is the counted bootstrap's own
    answer, 1 / (B + 1), when the runs' rows differ on at least two sentences of the stratum: they differ by
    the same amount everywhere, which every resample repeats. On one sentence only (a single item decides the
    figure) there is nothing to resample and p stays undefined. Such cells are rare: looked at one by one.
    ``rows_of(i)``: run i's rows, or one digest per row (:func:`row_digests`)."""
    for s_, pair, key in zip(*np.nonzero((se == 0) & (diff != 0) & ~np.isnan(diff))):
        a, b = rows_of(ia[pair]), rows_of(ib[pair])
        if s_ < len(where):
            a, b = a[where[s_]], b[where[s_]]
        differs = a != b
        differing = (differs.any(axis=1) if differs.ndim > 1 else differs).sum()
        if differing >= 2:
            p[s_, pair, key] = floor


def _stratum_figures(figures: FigureSet, sums: list[np.ndarray]) -> np.ndarray:
    """Summed rows (one (runs, c) array per stratum) to figures of shape (strata, runs, keys)."""
    s, r = len(sums), sums[0].shape[0]
    return _figures(figures, np.concatenate(sums, axis=0)).reshape(s, r, -1)


RUNS_AT_ONCE = 16  # runs resampled in one matrix product: a hundred runs' resampled sums never all in memory


def _resampled(x: np.ndarray, draws, figures: FigureSet) -> np.ndarray:
    """The figures of the shared resamples: shape (strata, keys, runs, resamples), genres then ALL.

    One matrix product per genre for :data:`RUNS_AT_ONCE` runs at once: resampling counts (B, n_g) times the
    genre's rows laid side by side (n_g, runs × c). Integer rows are multiplied in float32, exact while sums
    stay below 2**24 (a run's figures are then the same whichever runs it is resampled with).
    """
    runs = x.shape[0]
    if runs <= RUNS_AT_ONCE:
        return _resampled_runs(x, draws, figures)
    first = _resampled_runs(x[:RUNS_AT_ONCE], draws, figures)
    out = np.empty(first.shape[:2] + (runs,) + first.shape[3:])
    out[:, :, :RUNS_AT_ONCE] = first
    for start in range(RUNS_AT_ONCE, runs, RUNS_AT_ONCE):
        out[:, :, start:start + RUNS_AT_ONCE] = _resampled_runs(x[start:start + RUNS_AT_ONCE], draws, figures)
    return out


def _resampled_runs(x: np.ndarray, draws, figures: FigureSet) -> np.ndarray:
    runs, _, c = x.shape
    exact32 = np.issubdtype(x.dtype, np.integer)
    sums, total = [], None
    for _, idx, weights in draws:
        block = x[:, idx].transpose(1, 0, 2).reshape(len(idx), runs * c)
        if exact32:
            s = (weights.astype(np.float32, copy=False) @ block.astype(np.float32)).astype(np.float64)
        else:
            s = weights.astype(np.float64, copy=False) @ block.astype(np.float64, copy=False)
        sums.append(s)
        total = s if total is None else total + s
    sums.append(total)
    b = total.shape[0]
    # stratum by stratum: the figures' temporaries for one stratum's resamples at a time (row-wise: the same)
    out = np.stack([_figures(figures, s.reshape(-1, c)) for s in sums])  # (strata, B·runs, keys)
    return out.reshape(len(sums), b, runs, -1).transpose(0, 3, 2, 1)


# The resampled figures are counted in units of 2**-bits before their products are summed. Figures are
# proportions: a row (stratum, figure) with a value outside [0, 1] is summed in floating point instead.


def _quantum_bits(b: int) -> int:
    """Bits of the fixed-point figures: centred figures lie in [−1, 1], so every sum of B products of two of
    them, and the sum of four such sums, stays an exact integer in float64 (below 2**53), whatever the order
    of summation: 20 bits at 1,000 resamples."""
    return max(8, (53 - 2 - int(math.ceil(math.log2(max(b, 2))))) // 2)


def _cover(ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Runs such that every pair names one of them (greedy: the run in most pairs left, first): the columns
    of the Gram matrices that :func:`_pair_variances` computes. Every pair against one new run: that run."""
    left = np.ones(len(ia), dtype=bool)
    chosen: list[int] = []
    size = int(max(ia.max(initial=-1), ib.max(initial=-1))) + 1
    while left.any():
        degree = np.bincount(ia[left], minlength=size) + np.bincount(ib[left], minlength=size)
        run = int(np.argmax(degree))
        chosen.append(run)
        left &= (ia != run) & (ib != run)
    return np.array(sorted(chosen), dtype=np.intp)


def _pair_variances(f: np.ndarray, ia: np.ndarray, ib: np.ndarray, *, overwrite: bool = False) -> np.ndarray:
    """Variance over the resamples of f[a] − f[b] for every pair, from Gram matrices: shape (strata, pairs, keys).

    ``f`` has shape (strata, keys, runs, B). Resamples where either figure is undefined are left out of that
    pair's variance (sums over the resamples both define, by masked products). ``overwrite``: ``f`` may be
    used as working memory.

    The figures are first rounded to multiples of 2**-bits (:func:`_quantum_bits`: 2**-20 at 1,000
    resamples: the standard error moves by about 1e-6 of itself, against a Monte Carlo error of 2%) and centred on a multiple of it: every product and
    sum below is then an exact integer, so a pair's variance is the same whatever the other runs in the
    matrices, their order or the BLAS blocking: a run's pairs computed when it arrives are those a
    computation of every pair at once gives. Only the columns of :func:`_cover` are multiplied: adding
    one run to a hundred costs a hundred products, not ten thousand.
    """
    s, k, r, b = f.shape
    f = f.reshape(s * k, r, b)
    defined = ~np.isnan(f)
    scale = float(2 ** _quantum_bits(b))
    exact = ((f >= 0) | ~defined).all(axis=(1, 2)) & ((f <= 1) | ~defined).all(axis=(1, 2))
    if exact.all() and overwrite:  # ``f`` becomes the centred fixed-point figures (a hundred runs: 90 MB)
        z = f
        z[~defined] = 0.0
    else:
        z = np.where(defined, f, 0.0)
    z *= scale
    np.rint(z, out=z)
    count = defined.sum(axis=2)
    z -= np.rint(z.sum(axis=2) / np.maximum(count, 1))[..., None]  # centred: exact integer sums
    z[~defined] = 0.0
    if not exact.all():  # figures beyond [0, 1] (none of the platform's): floating point, centred exactly
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nan_to_num(np.nanmean(f[~exact], axis=2, keepdims=True))
        z[~exact] = np.where(defined[~exact], f[~exact] - mean, 0.0)
        scale_rows = np.where(exact, scale, 1.0)[:, None]
    else:
        scale_rows = scale
    var = _gram_variances(z, defined, ia, ib, b)
    var = np.maximum(var, 0.0) / (scale_rows * scale_rows)  # rounding can leave a tiny negative for identical runs
    return var.reshape(s, k, -1).transpose(0, 2, 1)


def _gram_variances(z: np.ndarray, defined: np.ndarray | None, ia: np.ndarray, ib: np.ndarray, b: int,
                    sums: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Variance over the resamples of z[:, a] − z[:, b] for every pair, shape (rows, pairs): ``z`` (rows, runs,
    B) centred figures, 0 where undefined (``defined`` False). Products of fixed-point figures: exact integers
    whatever the order of summation (:func:`_pair_variances`); only the columns of :func:`_cover` multiplied.
    ``defined`` None: every figure defined. ``sums``: each run's Σ z² and Σ z per row, shape (rows, runs),
    when already known (exact integers: the same values)."""
    r = z.shape[1]
    var = np.full((z.shape[0], len(ia)), np.nan)
    if len(ia):
        cover = _cover(ia, ib)
        in_cover = np.isin(ib, cover)
        u = np.where(in_cover, ia, ib)  # each pair as (u, c), c in the cover: a difference's variance is its
        c = np.where(in_cover, ib, ia)  # opposite's
        col = np.searchsorted(cover, c)
        if 2 * len(cover) > r:  # most runs: the whole Gram matrix, without copying the columns
            zz = (z @ z.transpose(0, 2, 1))[:, u, c]      # Σ_t z_u z_c: (sk, pairs)
        else:
            zz = (z @ z[:, cover].transpose(0, 2, 1))[:, u, col]
        full = np.ones(z.shape[0], dtype=bool) if defined is None else defined.all(axis=(1, 2))
        if full.any():
            if sums is None:
                sq, total = np.einsum("srb,srb->sr", z, z)[full], z.sum(axis=2)[full]  # no copy of z
            else:
                sq, total = sums[0][full], sums[1][full]
            s1 = total[:, u] - total[:, c]
            s2 = sq[:, u] + sq[:, c] - 2 * zz[full]
            var[full] = (s2 - s1 * s1 / b) / (b - 1)
        holes = ~full
        if holes.any():
            zh, m = z[holes], defined[holes].astype(np.float64)
            mc, zhc = m[:, cover].transpose(0, 2, 1), zh[:, cover].transpose(0, 2, 1)
            zm_uc = (zh @ mc)[:, u, col]                  # Σ z_u · [c defined]
            zm_cu = (m @ zhc)[:, u, col]                  # Σ z_c · [u defined]
            z2m_uc = ((zh * zh) @ mc)[:, u, col]
            z2m_cu = (m @ (zhc * zhc))[:, u, col]
            n = (m @ mc)[:, u, col]
            s1 = zm_uc - zm_cu
            s2 = z2m_uc + z2m_cu - 2 * zz[holes]
            with np.errstate(divide="ignore", invalid="ignore"):
                var[holes] = np.where(n >= 2, (s2 - s1 * s1 / np.maximum(n, 1)) / (n - 1), np.nan)
    return var


def _randomised(a, b, labels, genres, figures, resamples, seed) -> np.ndarray:
    """Counted p-values of A − B under the null that A and B are exchangeable sentence by sentence:
    shape (strata, keys). The same seed for every pair: every pair sees the same shuffles."""
    rng = np.random.default_rng(seed)
    diffs, observed = [], []
    total_a = total_b = None
    for genre in genres:
        idx = np.flatnonzero(labels == genre)
        ga, gb = a[idx].astype(np.float64), b[idx].astype(np.float64)
        swap = rng.integers(0, 2, size=(resamples, len(idx))).astype(np.float64)
        moved = swap @ (gb - ga)  # what the swapped sentences add to A and take from B
        pa = ga.sum(axis=0) + moved
        pb = gb.sum(axis=0) - moved
        diffs.append(_figures(figures, pa) - _figures(figures, pb))
        observed.append((_figures(figures, ga.sum(axis=0)) - _figures(figures, gb.sum(axis=0)))[0])
        total_a = pa if total_a is None else total_a + pa
        total_b = pb if total_b is None else total_b + pb
    diffs.append(_figures(figures, total_a) - _figures(figures, total_b))
    observed.append((_figures(figures, a.sum(axis=0, dtype=np.float64))
                     - _figures(figures, b.sum(axis=0, dtype=np.float64)))[0])
    return np.stack([_p_values(d, o) for d, o in zip(diffs, observed)])


# -- corrections ------------------------------------------------------------------------------

def _ordered(p: np.ndarray):
    """Rows of ``p`` sorted ascending (NaN last), the order, and the number of defined values per row."""
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(np.where(np.isnan(p), np.inf, p), axis=-1, kind="stable")
    return np.take_along_axis(p, order, axis=-1), order, (~np.isnan(p)).sum(axis=-1, keepdims=True)


def _unsorted(adjusted: np.ndarray, order: np.ndarray, m: np.ndarray) -> np.ndarray:
    rank = np.arange(adjusted.shape[-1])
    adjusted = np.where(rank < m, np.minimum(adjusted, 1.0), np.nan)
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def holm_adjust(p) -> np.ndarray:
    """Holm's step-down adjusted p-values along the last axis (one family per row); NaN stays NaN, not counted.

    Sorted ascending p(1) <= ... <= p(m): adjusted p(i) = max over j <= i of min(1, (m - j + 1) p(j)).
    """
    sorted_p, order, m = _ordered(p)
    rank = np.arange(sorted_p.shape[-1])
    scaled = np.where(rank < m, (m - rank) * sorted_p, -np.inf)
    return _unsorted(np.maximum.accumulate(np.minimum(scaled, 1.0), axis=-1), order, m)


def bh_adjust(p) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (false discovery rate) along the last axis; NaN stays NaN.

    Sorted ascending: adjusted p(i) = min over j >= i of min(1, m p(j) / j).
    """
    sorted_p, order, m = _ordered(p)
    rank = np.arange(sorted_p.shape[-1])
    scaled = np.where(rank < m, m * sorted_p / (rank + 1), np.inf)
    return _unsorted(np.minimum.accumulate(scaled[..., ::-1], axis=-1)[..., ::-1], order, m)


def _as_list(values: np.ndarray) -> list[float | None]:
    return [None if math.isnan(v) else float(v) for v in values]


def _as_array(p_values: Sequence[float | None]) -> np.ndarray:
    return np.array([math.nan if p is None else p for p in p_values], dtype=np.float64)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's adjusted p-values (Holm 1979), in the given order; undefined ones (None/NaN) stay None and do not
    count in the family."""
    return _as_list(holm_adjust(_as_array(p_values))) if len(p_values) else []


def benjamini_hochberg(p_values: Sequence[float | None]) -> list[float | None]:
    """Benjamini–Hochberg adjusted p-values (false discovery rate, 1995), in the given order; None stays None."""
    return _as_list(bh_adjust(_as_array(p_values))) if len(p_values) else []


# -- agreement across genres (Dror et al. 2017) ------------------------------------------------

def _chi2_sf_even(x: float, dof: int) -> float:
    """P(χ² with ``dof`` (even) degrees of freedom >= x): e^(−x/2) Σ_{j < dof/2} (x/2)^j / j!."""
    half, term, total = x / 2.0, 1.0, 1.0
    for j in range(1, dof // 2):
        term *= half / j
        total += term
    return min(1.0, math.exp(-half) * total)


def partial_conjunction(p_values: Sequence[float], u: int, method: str = "bonferroni") -> float:
    """The p-value of "at least u of the N null hypotheses are false" (Benjamini & Heller 2008), from the
    N - u + 1 largest p-values: Bonferroni (N - u + 1)·p(u), or Fisher's combination."""
    p = sorted(p_values)
    n = len(p)
    rest = p[u - 1:]
    if method == "bonferroni":
        return min(1.0, (n - u + 1) * rest[0])
    statistic = -2.0 * sum(math.log(max(v, 1e-300)) for v in rest)
    return _chi2_sf_even(statistic, 2 * (n - u + 1))


def replicability(p_values: Sequence[float | None], alpha: float = ALPHA, method: str = "bonferroni") -> int:
    """In how many of the N data sets the alternative holds, with family-wise error at most alpha
    (Dror et al. 2017, TACL 5: "Replicability analysis for NLP", the counting procedure):
    k = max{u : p^(j/N) <= alpha for every j <= u}, the partial conjunction p-values tested in sequence.
    With Bonferroni's combination k is the number of Holm rejections. Undefined p-values are left out."""
    known = [p for p in p_values if p is not None and not math.isnan(p)]
    k = 0
    for u in range(1, len(known) + 1):
        if partial_conjunction(known, u, method) > alpha:
            break
        k = u
    return k


def replicability_counts(p, alpha: float = ALPHA, method: str = "bonferroni") -> np.ndarray:
    """:func:`replicability` for every row of ``p`` at once (NaN left out of its row)."""
    sorted_p, _, m = _ordered(p)
    u = np.arange(1, sorted_p.shape[-1] + 1)
    if method == "bonferroni":
        combined = (m - u + 1) * sorted_p
    else:
        logs = -2.0 * np.log(np.maximum(np.where(np.isnan(sorted_p), 1.0, sorted_p), 1e-300))
        half = np.cumsum(logs[..., ::-1], axis=-1)[..., ::-1] / 2.0  # half of Σ over the N − u + 1 largest
        combined = np.zeros_like(half)
        with np.errstate(divide="ignore"):
            log_half = np.log(half)
        for j in range(sorted_p.shape[-1]):  # e^(−h) Σ_{j < N − u + 1} h^j / j!, term by term in logs
            term = np.exp(-half + (j * log_half if j else 0.0) - math.lgamma(j + 1))
            combined += np.where(j < m - u + 1, term, 0.0)
        combined = np.minimum(combined, 1.0)
    rejected = (combined <= alpha) & (u <= m)
    return np.cumprod(rejected, axis=-1).sum(axis=-1)


# -- power ------------------------------------------------------------------------------------

def detectable(se, alpha: float = ALPHA, power: float = POWER, family: int = 1):
    """The smallest true difference a two-sided test at ``alpha / family`` detects with ``power``, given the
    difference's standard error: (z(1 − α/(2·family)) + z(power))·se (normal approximation; Cohen 1988)."""
    normal = NormalDist()
    factor = normal.inv_cdf(1 - alpha / (2 * max(family, 1))) + normal.inv_cdf(power)
    return factor * np.asarray(se, dtype=np.float64) if np.ndim(se) else factor * float(se)


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
