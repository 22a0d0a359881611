"""The statistics layer every metric shares: count rows, their sums, figures, bootstrap intervals.

A metric describes each scored sentence by one row of sufficient statistics
(counts, or sums of per-word scores) and gives one function from *summed*
rows to its figures. Everything else is here, once, for every kind:

* :func:`ratio` and :func:`f_measure` define precision, recall and F (and
  every other fraction) once; an undefined ratio is NaN here and ``None``
  (JSON ``null``, "–" on pages) once it leaves this layer, never 0.0;
* :func:`aggregate` sums the rows per genre and over all genres;
* :func:`resampled_sums` is the genre-stratified bootstrap EASY has always
  used: sentences drawn with replacement within each genre (:func:`resample_counts`,
  genres in sorted order, from one seeded generator), so the same seed gives
  the same intervals on every machine;
* :func:`interval` turns resampled figures into a 95% percentile interval.

Pure: numpy and the standard library only.
"""
from __future__ import annotations

import math
import warnings
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

ALL = "ALL"
DEFAULT_SEED = 12345
CI_LEVEL = 0.95
CI_PERCENTILES = (2.5, 97.5)

# ``{column: summed value}``; values are floats for a point figure, arrays of shape (B,) under the bootstrap.
Sums = Mapping[str, "np.ndarray | float"]
FigureFunction = Callable[[Sums], Mapping[str, "np.ndarray | float"]]


def ratio(num, den):
    """``num / den``; NaN where ``den`` is 0 (undefined). Scalars stay Python floats, arrays stay arrays."""
    if np.ndim(num) == 0 and np.ndim(den) == 0:
        return num / den if den else math.nan
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def f_measure(p, r):
    """The harmonic mean 2PR / (P + R); NaN where P or R is undefined, 0 where both are 0."""
    if np.ndim(p) == 0 and np.ndim(r) == 0:
        if math.isnan(p) or math.isnan(r):
            return math.nan
        return 2 * p * r / (p + r) if p + r else 0.0
    p = np.asarray(p, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    s = p + r
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, 2 * p * r / np.where(s > 0, s, 1.0), np.where(np.isnan(s), np.nan, 0.0))


def f_from_counts(matched, test, gold):
    """F = 2·matched / (test + gold) over arrays of counts; NaN where both sides are empty."""
    den = test + gold
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 2.0 * matched / np.where(den > 0, den, 1), np.nan)


def prf(matched: int, test: int, gold: int) -> tuple[float | None, float | None, float | None]:
    """P = matched/test, R = matched/gold, F = 2·matched/(test+gold), each None when undefined.

    F is undefined only when both sides are empty (nothing found and nothing to find), and 0 when
    nothing matched.
    """
    p = matched / test if test else None
    r = matched / gold if gold else None
    f = 2 * matched / (test + gold) if (test + gold) else None
    return p, r, f


def defined(value) -> float | None:
    """A figure as it leaves the statistics layer: a float, or None when undefined (NaN)."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def column_sums(rows: np.ndarray, columns: Sequence[str], index=None) -> dict[str, float]:
    """``{column: sum}`` over the rows ``index`` (all when None), summed in row order like the engines do."""
    picked = rows if index is None else rows[index]
    return {name: float(sum(picked[:, k].tolist())) for k, name in enumerate(columns)}


def aggregate(rows: np.ndarray, columns: Sequence[str], strata: Sequence[str], figures: FigureFunction,
              exact: Callable[[np.ndarray | None], dict[str, float]] | None = None
              ) -> dict[str, dict[str, float | None]]:
    """``{genre: {figure: value}}`` for every genre and ``ALL``, from per-sentence rows: nothing is re-scored.

    ``exact(index)`` may give some column sums again, added in the engine's own order (a sum of per-word
    scores summed per sentence first can differ from the engine's in the last binary digit).
    """
    labels = np.array(list(strata), dtype=object)

    def sums_of(index):
        sums = column_sums(rows, columns, index)
        if exact is not None:
            sums.update(exact(index))
        return sums

    out = {ALL: {k: defined(v) for k, v in figures(sums_of(None)).items()}}
    for genre in sorted(set(strata)):
        out[genre] = {k: defined(v) for k, v in figures(sums_of(np.flatnonzero(labels == genre))).items()}
    return out


def resampling_weights(strata: Sequence[str], bootstrap: int,
                       seed: int) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """Per genre (sorted): its row indices and how often each row is drawn in each of ``bootstrap`` resamples.

    The genres in sorted order, each genre's sentences drawn with replacement (:func:`resample_counts`), from
    one generator seeded with ``seed``: the draws :func:`resampled_sums` uses. Callers that resample several
    sets of columns draw once and sum with :func:`weighted_sums`.
    """
    labels = np.array(list(strata), dtype=object)
    rng = np.random.default_rng(seed)
    for genre in sorted(set(strata)):
        idx = np.flatnonzero(labels == genre)
        yield genre, idx, resample_counts(rng, len(idx), bootstrap)


# draws counted in one call: the resamples of a small stratum are counted a few at a time, in one bincount over
# consecutive slots (a large stratum's, one at a time), so that the counts being incremented stay in the cache
_DRAWS_AT_ONCE = 1 << 16


def resample_counts(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """How often each of ``n`` rows is drawn in each of ``size`` resamples: int64 counts, shape (size, n).

    A resample is ``n`` rows drawn with replacement: ``n`` integers uniform in [0, n) from ``rng``
    (``Generator.integers``), counted. The resamples are drawn one after the other, so drawing ``size=B``
    gives the draws of ``size=b`` and then of ``size=B - b``: resamples taken a few at a time are the same
    resamples. A resample's counts follow the multinomial law (n; 1/n, ..., 1/n), which scorer 1.1 drew with
    ``Generator.multinomial``: one binomial per row (a logarithm, an exponential and a loop), about 60 ns a
    row against 4 here (about an eighth of the default EASY command at 24x the reference).
    """
    out = np.empty((size, n), dtype=np.int64)
    step = max(1, _DRAWS_AT_ONCE // max(n, 1))
    for first in range(0, size, step):
        k = min(step, size - first)
        draws = rng.integers(0, n, size=(k, n))
        if k > 1:
            draws += (np.arange(k, dtype=np.int64) * n)[:, None]  # resample i counts in slots i*n .. i*n + n-1
        out[first:first + k] = np.bincount(draws.ravel(), minlength=k * n).reshape(k, n)
    return out


def weighted_sums(matrices: Sequence[np.ndarray], idx: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """The column sums of the resamples ``weights`` of the rows ``idx`` of each matrix: arrays (B, columns).

    Resampling counts times the per-sentence rows: one matrix product per matrix. Integer rows are
    multiplied in float32, which is exact while the sums stay below 2**24; other rows in float64.
    """
    w32 = w64 = None
    part = []
    for x in matrices:
        if np.issubdtype(x.dtype, np.integer):
            w32 = weights.astype(np.float32) if w32 is None else w32
            part.append((w32 @ x[idx].astype(np.float32)).astype(np.float64))
        else:
            w64 = weights.astype(np.float64) if w64 is None else w64
            part.append(w64 @ x[idx].astype(np.float64))
    return tuple(part)


# resample counts drawn at a time: at most about this many integers (a genre's weights take resamples x its
# sentences), never B x sentences
RESAMPLE_BUDGET = 2_000_000


def resampled_sums(matrices: Sequence[np.ndarray], strata: Sequence[str], bootstrap: int,
                   seed: int, budget: int = RESAMPLE_BUDGET) -> Iterator[tuple[str, tuple[np.ndarray, ...]]]:
    """Per genre (sorted), the column sums of ``bootstrap`` resamples of its rows: arrays of shape (B, columns).

    The same draws as :func:`resampling_weights`, taken a few resamples at a time (:data:`RESAMPLE_BUDGET`;
    see :func:`resample_counts`), so that
    memory does not grow with B times the corpus size. The sums are the same numbers. ``budget``: the draws held
    at a time (the same numbers whatever it is; a smaller one holds less, a little slower).
    """
    if not all(np.issubdtype(x.dtype, np.integer) for x in matrices):
        # float rows: a product's rounding may depend on the shape of the operands; keep them whole
        for genre, idx, weights in resampling_weights(strata, bootstrap, seed):
            yield genre, weighted_sums(matrices, idx, weights)
        return
    labels = np.array(list(strata), dtype=object)
    rng = np.random.default_rng(seed)
    for genre in sorted(set(strata)):
        idx = np.flatnonzero(labels == genre)
        n = len(idx)
        # the genre's rows in float32 (exact while the sums stay below 2**24), a block of columns at a time
        width = max(1, budget // n)
        whole = all(x.shape[1] <= width for x in matrices)
        rows = [x[idx].astype(np.float32) for x in matrices] if whole else None
        parts = []
        chunk = max(1, budget // n)
        for start in range(0, bootstrap, chunk):
            weights = resample_counts(rng, n, min(chunk, bootstrap - start)).astype(np.float32)
            if whole:
                parts.append(tuple((weights @ x).astype(np.float64) for x in rows))
            else:
                parts.append(tuple(np.hstack([(weights @ x[idx, k:k + width].astype(np.float32)).astype(np.float64)
                                              for k in range(0, x.shape[1], width)]) for x in matrices))
        yield genre, tuple(np.concatenate(cols) for cols in zip(*parts))


# resample weights held at a time by :func:`streamed_resampled_sums`, in float32: 64 MB, whatever the corpus size
WEIGHT_BUDGET = 16_000_000
EXACT_FLOAT32 = 2 ** 24  # every integer up to this is a float32


def streamed_resampled_sums(sizes: Mapping[str, int], blocks: Callable[[str], Iterable[np.ndarray]],
                            bootstrap: int, seed: int) -> Iterator[tuple[str, np.ndarray]]:
    """:func:`resampled_sums` of integer rows that are never all in memory: per genre (sorted), the column
    sums of ``bootstrap`` resamples of its ``sizes[genre]`` rows, an array (B, columns) of float64 integers.

    ``blocks(genre)`` gives the genre's rows in order, a block of rows at a time, as often as asked: once
    per batch of resamples, a batch being as many as :data:`WEIGHT_BUDGET` weights hold (every resample at
    once while a genre has under 16,000 sentences). The draws are :func:`resampled_sums`'s (the same draws,
    taken a few at a time). Each block's product is in float32 when that is exact (every
    partial sum an integer under 2**24: the largest weight times the largest column sum of absolute values
    stays under it), else in float64; the blocks are summed in float64. So the sums are exact integers at any
    corpus size below 2**53, and the same numbers as :func:`resampled_sums` wherever its float32 ones are.
    """
    rng = np.random.default_rng(seed)
    for genre in sorted(sizes):
        if sizes[genre] > 0:
            yield genre, _streamed_genre(rng, sizes[genre], lambda g=genre: blocks(g), bootstrap, genre)


def _streamed_genre(rng, n: int, blocks: Callable[[], Iterable[np.ndarray]], bootstrap: int,
                    genre: str) -> np.ndarray:
    """One genre's resampled sums for :func:`streamed_resampled_sums` (its buffers freed on return)."""
    width, largest = 0, 0
    totals = None
    for block in blocks():
        part = np.abs(block).sum(axis=0, dtype=np.int64)
        totals = part if totals is None else totals + part
    if totals is not None:
        width, largest = len(totals), int(totals.max(initial=0))
    out = np.zeros((bootstrap, width), dtype=np.float64)
    batch = max(1, min(bootstrap, WEIGHT_BUDGET // n))
    draw = max(1, RESAMPLE_BUDGET // n)
    # a column per resample: a block's weights are then consecutive rows, multiplied without a copy
    weights = np.empty((n, batch), dtype=np.float32)
    rows32 = None
    for first in range(0, bootstrap, batch):
        b = min(batch, bootstrap - first)
        for k in range(0, b, draw):
            d = min(draw, b - k)
            weights[:, k:k + d] = resample_counts(rng, n, d).T
        w = weights[:, :b]
        in_float32 = float(w.max(initial=0)) * largest < EXACT_FLOAT32
        acc = out[first:first + b]
        at = 0
        for block in blocks():
            r = len(block)
            if in_float32:
                if rows32 is None or len(rows32) < r:
                    rows32 = np.empty((r, width), dtype=np.float32)
                np.copyto(rows32[:r], block)
                acc += w[at:at + r].T @ rows32[:r]
            else:
                acc += w[at:at + r].T.astype(np.float64) @ block.astype(np.float64)
            at += r
        if at != n:
            raise ValueError(f"genre {genre}: {at} rows read, {n} expected")
    return out


def interval(samples) -> list[float] | None:
    """The 95% percentile interval of resampled figures (undefined resamples left out); None if none is defined."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(np.asarray(samples, dtype=np.float64), CI_PERCENTILES)
    if math.isnan(lo) or math.isnan(hi):
        return None
    return [float(lo), float(hi)]


def column_intervals(samples) -> dict[int, list[float]]:
    """``{column: interval}`` for the columns of ``samples`` (resamples x columns) in which every resample is
    defined: :func:`interval`'s numbers (the same percentile arithmetic, per column), in one call. The other
    columns are left to :func:`interval`, one at a time."""
    a = np.asarray(samples, dtype=np.float64)
    if not a.shape[0]:
        return {}
    clean = np.flatnonzero(~np.isnan(a).any(axis=0))
    if not len(clean):
        return {}
    lo, hi = np.percentile(a[:, clean], CI_PERCENTILES, axis=0)
    return {c: [low, high] for c, low, high in zip(clean.tolist(), lo.tolist(), hi.tolist())}


def bootstrap_intervals(rows: np.ndarray, columns: Sequence[str], strata: Sequence[str], figures: FigureFunction,
                        *, bootstrap: int, seed: int, ratios: Sequence[str] | None = None
                        ) -> dict[str, dict[str, list[float] | None]]:
    """``{genre or ALL: {figure: [low, high] | None}}``: genre-stratified percentile intervals of ``figures``.

    Only the figures named in ``ratios`` (all when None) get an interval. The ALL resamples are the sums
    of the genre resamples, as in EASY.
    """
    if bootstrap <= 0 or not len(rows):
        return {}
    boot: dict[str, np.ndarray] = {}
    total = None
    for genre, (part,) in resampled_sums([rows], strata, bootstrap, seed):
        boot[genre] = part
        total = part if total is None else total + part
    boot[ALL] = total
    out = {}
    for genre, sums in boot.items():
        values = figures({name: sums[:, k] for k, name in enumerate(columns)})
        out[genre] = {k: interval(v) for k, v in values.items() if ratios is None or k in ratios}
    return out
