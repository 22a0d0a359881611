"""The bootstrap's resampled sums are the same numbers however many resamples are drawn at a time."""
from __future__ import annotations

import numpy as np
import pytest

from parseval.evaluation import stats


@pytest.mark.parametrize("budget", [1, 7, 200, 10_000_000])
def test_resampled_sums_do_not_depend_on_the_chunks(monkeypatch, budget):
    rng = np.random.default_rng(0)
    rows = [rng.integers(0, 40, size=(90, 13)).astype(np.int16), rng.integers(0, 9, size=(90, 13)).astype(np.int32)]
    strata = ["a"] * 50 + ["b"] * 30 + ["c"] * 10
    whole = [(g, stats.weighted_sums(rows, idx, w)) for g, idx, w in stats.resampling_weights(strata, 120, 5)]
    monkeypatch.setattr(stats, "RESAMPLE_BUDGET", budget)  # 1: one resample and one column at a time
    chunked = list(stats.resampled_sums(rows, strata, 120, 5))
    assert [g for g, _ in chunked] == [g for g, _ in whole] == ["a", "b", "c"]
    for (_, got), (_, want) in zip(chunked, whole):
        assert all(x.shape == (120, 13) and np.array_equal(x, y) for x, y in zip(got, want))
    assert whole[0][1][0].sum() > 0


def _blocks(rows, strata, size):
    labels = np.array(strata, dtype=object)

    def blocks(genre):
        picked = rows[labels == genre]
        return [picked[k:k + size] for k in range(0, len(picked), size)]
    return blocks


@pytest.mark.parametrize("budget, block", [(1, 1), (70, 11), (10_000_000, 1000)])
def test_streamed_sums_are_the_in_memory_sums(monkeypatch, budget, block):
    """Where the float32 products are exact, the rows streamed in blocks give the very same numbers."""
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 40, size=(90, 13)).astype(np.int16)
    strata = ["b"] * 30 + ["a"] * 50 + ["c"] * 10
    whole = list(stats.resampled_sums([rows], strata, 120, 5))
    monkeypatch.setattr(stats, "WEIGHT_BUDGET", budget)
    monkeypatch.setattr(stats, "RESAMPLE_BUDGET", budget)
    sizes = {g: strata.count(g) for g in set(strata)}
    streamed = list(stats.streamed_resampled_sums(sizes, _blocks(rows, strata, block), 120, 5))
    assert [g for g, _ in streamed] == [g for g, _ in whole] == ["a", "b", "c"]
    for (_, got), (_, (want,)) in zip(streamed, whole):
        assert got.shape == (120, 13) and got.dtype == np.float64 and np.array_equal(got, want)


@pytest.mark.parametrize("block", [1, 500, 5000])
def test_streamed_sums_stay_exact_beyond_float32(block):
    """Sums above 2**24 are exact integers (float32 products would round them)."""
    rng = np.random.default_rng(2)
    rows = rng.integers(20_000, 32_000, size=(3000, 4)).astype(np.int16)
    strata = ["x"] * 3000
    (_, idx, weights), = stats.resampling_weights(strata, 40, 9)
    exact = weights.astype(np.int64) @ rows[idx].astype(np.int64)
    assert exact.min() > 2 ** 24
    (_, got), = stats.streamed_resampled_sums({"x": 3000}, _blocks(rows, strata, block), 40, 9)
    assert np.array_equal(got.astype(np.int64), exact) and np.array_equal(got, exact.astype(np.float64))
    (_, (in_float32,)), = stats.resampled_sums([rows], strata, 40, 9)
    assert not np.array_equal(in_float32, exact.astype(np.float64))  # what the float32 products gave


@pytest.mark.parametrize("n", [1, 7, 4000, stats._DRAWS_AT_ONCE // 2 + 1, stats._DRAWS_AT_ONCE + 3])
def test_a_resample_counts_n_uniform_draws_one_resample_after_the_other(n):
    """The definition the docs give (n integers in [0, n), counted), whether several resamples are counted in
    one call or one (n > _DRAWS_AT_ONCE / 2), and the same resamples when drawn a few at a time."""
    got = stats.resample_counts(np.random.default_rng(11), n, 9)
    rng = np.random.default_rng(11)
    want = np.array([np.bincount(rng.integers(0, n, size=n), minlength=n) for _ in range(9)])
    assert got.shape == (9, n) and np.array_equal(got, want)
    rng = np.random.default_rng(11)
    pieces = np.vstack([stats.resample_counts(rng, n, k) for k in (4, 1, 4)])
    assert np.array_equal(pieces, got)
    assert (got.sum(axis=1) == n).all()


def test_resample_counts_follow_the_multinomial_law():
    """Each count is Binomial(n, 1/n): mean 1, variance 1 - 1/n; two counts covary by -1/n. Over 40,000
    resamples of 20 rows the standard errors are about 0.0012 (mean) and 0.007 (variance)."""
    n = 20
    counts = stats.resample_counts(np.random.default_rng(3), n, 40_000).astype(float)
    assert abs(counts.mean() - 1) < 0.005
    assert abs(counts.var(axis=0).mean() - (1 - 1 / n)) < 0.02
    cov = np.cov(counts[:, 0], counts[:, 1])[0, 1]
    assert abs(cov + 1 / n) < 0.02
