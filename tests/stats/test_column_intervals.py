"""The intervals of many columns in one call are :func:`interval`'s numbers, bit for bit."""
from __future__ import annotations

import numpy as np

from parseval.evaluation.stats import column_intervals, interval


def test_column_intervals_are_interval_column_by_column():
    rng = np.random.default_rng(1)
    for trial in range(100):
        b, c = int(rng.integers(1, 300)), int(rng.integers(1, 30))
        a = rng.random((b, c)) * rng.choice([1, 1e-3, 1e6])
        if trial % 3 == 0:
            a = np.round(a, 2)  # ties
        if trial % 2:
            a[rng.integers(0, b), rng.integers(0, c)] = np.nan  # an undefined resample: left to interval()
        got = column_intervals(a)
        assert set(got) == {k for k in range(c) if not np.isnan(a[:, k]).any()}
        for k, ci in got.items():
            assert ci == interval(a[:, k])
    assert column_intervals(np.empty((0, 3))) == {}
