"""The paired tests, Holm's correction and the ranking clusters, on cases small enough to work out by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from evaluation import paired
from evaluation.easy.scoring import Plan
from evaluation.kinds.easy.figures import easy_figures
from evaluation.paired import FigureSet, holm, paired_test, rank_clusters
from annotations.easy.schema import DEFAULT_SCHEMA

# One figure: accuracy = correct / total, rows (correct, total) per sentence.
ACCURACY = FigureSet(("acc",), lambda s: (s[:, 0] / s[:, 1])[:, None])


def test_holm_by_hand():
    # sorted: 0.01 (x3 = 0.03), 0.02 (x2 = 0.04), 0.04 (x1 = 0.04); back in the given order
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    # undefined p-values do not count in m; the step-down keeps the adjusted values monotone
    assert holm([0.05, None, 0.04]) == pytest.approx([0.08, None, 0.08])  # m = 2: 0.04 x 2, max(0.08, 0.05)
    assert holm([0.6, 0.7]) == [1.0, 1.0]  # 0.6 x 2 capped at 1


def test_a_clearly_better_run_is_significant_and_the_interval_excludes_zero():
    n = 40
    strata = ["news"] * 20 + ["web"] * 20
    a = np.array([[1, 1]] * n, dtype=np.int64)          # every sentence right: accuracy 1
    b = np.array([[0, 1]] * 30 + [[1, 1]] * 10)         # 10 of 40 right: accuracy 0.25
    comp = paired_test(a, b, strata, ACCURACY, resamples=200, seed=7)
    assert comp.diff["ALL"][0] == pytest.approx(0.75)   # 1 - 10/40
    assert comp.diff["web"][0] == pytest.approx(0.5)    # web holds the last 20: 10 of them right in B
    assert comp.low["ALL"][0] > 0
    # No centred resample reaches 0.75 away from 0 (the spread is far smaller): p = 1 / (200 + 1)
    assert comp.p["ALL"][0] == pytest.approx(1 / 201)


def test_identical_runs_differ_by_nothing():
    rng = np.random.default_rng(1)
    a = np.column_stack([rng.integers(0, 5, 30), np.full(30, 5)])
    comp = paired_test(a, a.copy(), ["g"] * 30, ACCURACY, resamples=100, seed=1)
    assert comp.diff["ALL"][0] == 0.0
    assert comp.p["ALL"][0] == 1.0  # every resampled difference is 0, as far from 0 as the observed one
    assert comp.low["ALL"][0] == comp.high["ALL"][0] == 0.0


def test_approximate_randomisation():
    a = np.array([[1, 1]] * 20)
    b = np.array([[0, 1]] * 20)
    comp = paired_test(a, b, ["g"] * 20, ACCURACY, method="ar", resamples=500, seed=3)
    assert comp.diff["ALL"][0] == 1.0
    # Only the shuffles that swap none or all 20 sentences reach |1|: chance 2 / 2**20, none in 500.
    assert comp.p["ALL"][0] == pytest.approx(1 / 501)
    assert math.isnan(comp.low["ALL"][0])  # no interval from a randomisation test
    with pytest.raises(ValueError):
        paired_test(a, b, ["g"] * 20, ACCURACY, method="t-test")


def test_the_same_seed_gives_the_same_p_values():
    rng = np.random.default_rng(5)
    a = np.column_stack([rng.integers(0, 4, 50), np.full(50, 4)])
    b = np.column_stack([rng.integers(0, 4, 50), np.full(50, 4)])
    one = paired_test(a, b, ["x"] * 25 + ["y"] * 25, ACCURACY, resamples=300, seed=11)
    two = paired_test(a, b, ["x"] * 25 + ["y"] * 25, ACCURACY, resamples=300, seed=11)
    assert one.p["ALL"][0] == two.p["ALL"][0] and one.low["y"][0] == two.low["y"][0]


def test_rank_clusters_as_in_the_wmt_findings():
    scores = {"A": 0.9, "B": 0.85, "C": 0.6, "D": 0.58, "E": None}
    significant = {frozenset(p) for p in (("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("A", "E"),
                                          ("B", "E"), ("C", "E"), ("D", "E"))}
    ranked = rank_clusters(scores, lambda x, y: frozenset((x, y)) in significant)
    assert [r.run for r in ranked] == ["A", "B", "C", "D", "E"]
    # A and B tie (cluster 1, ranks 1-2); C and D tie (cluster 2, ranks 3-4); E is below everyone.
    assert [(r.cluster, r.rank_low, r.rank_high) for r in ranked] == [(1, 1, 2), (1, 1, 2), (2, 3, 4), (2, 3, 4),
                                                                      (3, 5, 5)]


def test_rank_clusters_a_chain_of_ties_is_one_cluster():
    # A > C significant, but B ties with both: no line can be drawn, ranks overlap.
    scores = {"A": 3.0, "B": 2.0, "C": 1.0}
    ranked = rank_clusters(scores, lambda x, y: {x, y} == {"A", "C"})
    assert [(r.run, r.cluster, r.rank_low, r.rank_high) for r in ranked] == [
        ("A", 1, 1, 2), ("B", 1, 1, 3), ("C", 1, 2, 3)]


def test_easy_figures_are_the_engine_f():
    plan = Plan(DEFAULT_SCHEMA, ("EQUAL",), ("HYP",))
    constituents, relations = easy_figures(plan)  # one figure set per way
    t = len(DEFAULT_SCHEMA.group_types) + 1  # the types and all types
    assert len(constituents.columns) == 3 * t  # fc, fp and cr of the way
    sums = np.zeros((1, 3 * t))
    # first type: fc = 3, fp = 4, cr = 6 -> F = 2·3 / (4 + 6) = 0.6; all types hold the same counts
    sums[0, [0, t - 1]], sums[0, [t, 2 * t - 1]], sums[0, [2 * t, 3 * t - 1]] = 3, 4, 6
    out = constituents.compute(sums)[0]
    assert constituents.keys[0] == ("micro", "constituents", "", "EQUAL", DEFAULT_SCHEMA.group_types[0])
    assert out[0] == pytest.approx(0.6) and out[t - 1] == pytest.approx(0.6)
    # the macro F: the mean of the defined per-type F (only the first type has items) = 0.6
    assert constituents.keys[-1] == ("macro", "constituents", "", "EQUAL", "ALL")
    assert out[-1] == pytest.approx(0.6)
    assert math.isnan(relations.compute(np.zeros((1, len(relations.columns))))[0][-1])  # nothing anywhere


def test_every_pair_at_once_is_each_pair_alone():
    rng = np.random.default_rng(9)
    runs = {k: np.column_stack([rng.integers(0, 6, 60), np.full(60, 6)]) for k in "xyz"}
    strata = ["a"] * 30 + ["b"] * 30
    together = paired.compare_all(runs, strata, ACCURACY, resamples=150, seed=4)
    assert set(together) == {("x", "y"), ("x", "z"), ("y", "z")}
    alone = paired_test(runs["y"], runs["z"], strata, ACCURACY, resamples=150, seed=4)
    for g in ("a", "b", "ALL"):
        assert together[("y", "z")].p[g][0] == alone.p[g][0]
        assert together[("y", "z")].low[g][0] == alone.low[g][0]


def test_methods_named():
    assert paired.METHODS == ("bootstrap", "ar")
