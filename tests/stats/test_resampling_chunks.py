"""The bootstrap's resampled sums are the same numbers however many resamples are drawn at a time."""
from __future__ import annotations

import numpy as np
import pytest

from evaluation import stats


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
