"""The paired tests, Holm's correction and the ranking clusters, on cases small enough to work out by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from parseval.evaluation import paired
from parseval.evaluation.easy.counting import Plan
from evaluation.kinds.easy.figures import easy_figures
from parseval.evaluation.paired import FigureSet, holm, paired_test, rank_clusters
from parseval.annotations.easy.schema import DEFAULT_SCHEMA

# One figure: accuracy = correct / total, rows (correct, total) per sentence.
ACCURACY = FigureSet(("acc",), lambda s: (s[:, 0] / s[:, 1])[:, None])


def test_benjamini_hochberg_by_hand():
    # sorted 0.01, 0.02, 0.04 (m = 3): 0.01·3/1 = 0.03, 0.02·3/2 = 0.03, 0.04·3/3 = 0.04; step-up minimum from the top
    assert paired.benjamini_hochberg([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.03])
    # 0.01, 0.04, 0.045 (m = 3): 0.03, 0.06, 0.045 -> the second takes the minimum above it, 0.045
    assert paired.benjamini_hochberg([0.045, 0.04, 0.01]) == pytest.approx([0.045, 0.045, 0.03])
    # undefined values do not count in m: 0.02·2/1 = 0.04, 0.03·2/2 = 0.03 -> 0.03, 0.03
    assert paired.benjamini_hochberg([0.03, None, 0.02]) == pytest.approx([0.03, None, 0.03])
    assert paired.benjamini_hochberg([0.9, 0.8]) == [0.9, 0.9]
    # arrays: one family per row
    rows = paired.bh_adjust(np.array([[0.04, 0.01, 0.02], [0.5, np.nan, 0.5]]))
    assert rows[0] == pytest.approx([0.04, 0.03, 0.03]) and rows[1][0] == 0.5 and math.isnan(rows[1][1])


def test_benjamini_hochberg_is_never_above_holm():
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 49, 105):
        for _ in range(200):
            p = rng.random(m) ** rng.uniform(0.2, 5)  # from all clearly null to many tiny values
            p[rng.random(m) < 0.1] = np.nan
            bh, ho = paired.bh_adjust(p), paired.holm_adjust(p)
            known = ~np.isnan(p)
            assert (np.isnan(bh) == ~known).all() and (bh[known] <= ho[known] + 1e-15).all()
            assert (bh[known] >= p[known] * (1 - 1e-12)).all()


def test_replicability_counts_by_hand():
    # Dror et al. 2017: four genres, one-sided p 0.001, 0.01, 0.03, 0.4 at alpha 0.05.
    p = [0.03, 0.001, 0.4, 0.01]
    # Bonferroni partial conjunction: u=1: 4·0.001 = 0.004; u=2: 3·0.01 = 0.03; u=3: 2·0.03 = 0.06 > 0.05 -> k = 2
    assert paired.partial_conjunction(p, 2) == pytest.approx(0.03)
    assert paired.replicability(p) == 2
    # = the number of Holm rejections: 0.004, 0.03, 0.06, 0.4
    assert sum(1 for v in paired.holm(p) if v <= 0.05) == 2
    # Fisher, u=3: -2 (ln 0.03 + ln 0.4) = 8.8456, χ² with 4 dof: e^(-4.4228) (1 + 4.4228) = 0.0648 > 0.05
    assert paired.partial_conjunction(p, 3, "fisher") == pytest.approx(math.exp(-4.42279) * 5.42279, rel=1e-4)
    # u=2: -2 (ln 0.01 + ln 0.03 + ln 0.4) = 18.0560, 6 dof: e^(-9.0280) (1 + 9.0280 + 9.0280²/2) = 0.006094
    assert paired.partial_conjunction(p, 2, "fisher") == pytest.approx(0.006094, rel=1e-3)
    assert paired.replicability(p, method="fisher") == 2
    assert paired.replicability([0.2, None, 0.3]) == 0
    # every row at once: the same counts
    rng = np.random.default_rng(4)
    rows = rng.random((300, 6)) ** 4
    rows[rng.random((300, 6)) < 0.15] = np.nan
    for method in ("bonferroni", "fisher"):
        assert paired.replicability_counts(rows, 0.05, method).tolist() == [
            paired.replicability(list(r), 0.05, method) for r in rows]


def test_minimum_detectable_effect():
    # (z(0.975) + z(0.8))·se = (1.959964 + 0.841621)·se; Bonferroni's first step for 45 pairs: z(1 - 0.05/90)
    assert paired.detectable(0.01) == pytest.approx(0.0280159, rel=1e-5)
    assert paired.detectable(0.01, family=45) == pytest.approx((3.260767 + 0.841621) * 0.01, rel=1e-5)


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
    # The p-value is the normal tail of the bootstrap distribution: erfc(|d| / (se·√2)), with se the standard
    # deviation of the 200 resampled differences (every resample holds the same 20 sentences of each genre).
    from parseval.evaluation import stats
    draws = list(stats.resampling_weights(strata, 200, 7))
    resampled_b = sum(w @ b[idx] for _, idx, w in draws)
    d = 1.0 - resampled_b[:, 0] / resampled_b[:, 1]  # A is 1 in every resample
    assert comp.se["ALL"][0] == pytest.approx(d.std(ddof=1))
    assert comp.p["ALL"][0] == pytest.approx(math.erfc(0.75 / (d.std(ddof=1) * math.sqrt(2))))
    assert comp.p["ALL"][0] < 1e-20  # no floor at 1 / (B + 1): a family of thousands can reach its threshold
    # the interval is d ± 1.96 se: it leaves out 0 exactly when p < 0.05
    assert comp.low["ALL"][0] == pytest.approx(0.75 - 1.959964 * d.std(ddof=1), abs=1e-5)


def test_identical_runs_differ_by_nothing():
    rng = np.random.default_rng(1)
    a = np.column_stack([rng.integers(0, 5, 30), np.full(30, 5)])
    comp = paired_test(a, a.copy(), ["g"] * 30, ACCURACY, resamples=100, seed=1)
    assert comp.diff["ALL"][0] == 0.0
    assert comp.p["ALL"][0] == 1.0  # no difference, and none in any resample
    assert comp.low["ALL"][0] == comp.high["ALL"][0] == 0.0


def test_no_spread_in_the_resamples_is_untestable_not_significant():
    # one sentence holds the only item: in every resample that defines the figure, A has it and B not
    a = np.array([[1, 1]] + [[0, 0]] * 9)
    b = np.array([[0, 1]] + [[0, 0]] * 9)
    comp = paired_test(a, b, ["g"] * 10, ACCURACY, resamples=100, seed=2)
    assert comp.diff["ALL"][0] == 1.0 and comp.se["ALL"][0] == 0.0
    assert math.isnan(comp.p["ALL"][0])


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


def test_sentences_needed_by_hand():
    from parseval.evaluation import design

    # 400 sentences give se 0.5 point: MDE (1.959964 + 0.841621) x 0.005 = 0.014008; to detect 1 point,
    # 400 x (1.4008)² = 784.9 -> 785 sentences; to detect 2 points a quarter of that, 196.2 -> 197
    assert design.needed(400, 0.005, 0.01) == 785
    assert design.needed(400, 0.005, 0.02) == 197
    rows = design.plan({"news": 300, "web": 100, "ALL": 400}, {"news": 0.006, "web": None, "ALL": 0.005}, 0.01)
    assert [(r.stratum, r.needed) for r in rows] == [("news", math.ceil(300 * (2.801585 * 0.6) ** 2)),
                                                     ("web", None), ("ALL", 785)]
    assert rows[-1].detectable == pytest.approx(0.014008, abs=1e-6)
    assert design.split(785, {"news": 300, "web": 100, "ALL": 400}) == {"news": 589, "web": 197}
    with pytest.raises(ValueError):
        design.needed(400, 0.005, 0)


def test_a_family_of_thousands_can_reach_its_threshold_with_a_thousand_resamples():
    # A counted p-value is at least 1/1001: Holm across 4,950 pairs needs p < 0.05/4950 = 1.0e-5 at its first
    # step, which no count of 1,000 resamples can give. The bootstrap's normal p has no such floor.
    rng = np.random.default_rng(3)
    strata = ["a"] * 150 + ["b"] * 150
    a = np.column_stack([rng.binomial(10, 0.85, 300), np.full(300, 10)])
    b = np.column_stack([rng.binomial(10, 0.75, 300), np.full(300, 10)])
    p = paired_test(a, b, strata, ACCURACY, resamples=1000, seed=1).p["ALL"][0]
    assert p < 0.05 / 4950 / 100
    assert paired.holm([p] + [0.5] * 4949)[0] < 0.05
    # approximate randomisation counts: its shuffles are raised to what the family needs (twice m / alpha)
    assert paired.shuffles_needed(4950) == 198000 and paired.shuffles_needed(45) == 1800
    assert 1 / (paired.shuffles_needed(104) + 1) < 0.05 / 104


def test_a_difference_the_resamples_never_vary_gets_the_counted_bootstrap_p():
    # Run A right on every one of 10 sentences (1 of 1), run B wrong on every one (0 of 1): every resample
    # gives the difference 1.0, se = 0; p is 1 / (B + 1) = 1/101, not undefined (the single-item case above
    # stays undefined: the runs differ on one sentence only).
    a = np.array([[1, 1]] * 10)
    b = np.array([[0, 1]] * 10)
    comp = paired_test(a, b, ["g"] * 10, ACCURACY, resamples=100, seed=2)
    assert comp.diff["ALL"][0] == 1.0 and comp.se["ALL"][0] == 0.0
    assert comp.p["ALL"][0] == pytest.approx(1 / 101) and comp.p["g"][0] == pytest.approx(1 / 101)


def test_pairs_in_blocks_and_pairs_from_kept_figures_are_the_pairs_at_once():
    rng = np.random.default_rng(4)
    n = 120
    strata = ["a", "b", "c"][:1] * 40 + ["b"] * 40 + ["c"] * 40
    runs = {}
    for r in range(6):
        total = rng.integers(1, 4, size=n)
        runs[r] = np.stack([rng.binomial(total, 0.4 + 0.08 * r), total], axis=1).astype(np.uint8)
    pairs = sorted(((x, y) for x in range(6) for y in range(x + 1, 6)), key=lambda p: (p[1], p[0]))
    whole, = paired.compare_parts(runs, strata, ACCURACY, resamples=100, seed=3, pairs=pairs)
    blocks = list(paired.compare_parts(runs, strata, ACCURACY, resamples=100, seed=3, pairs=pairs, pairs_at_once=4))
    # 15 pairs by second run: 1, 2, 3, 4, 5 pairs; blocks of at least 4 cut where the second run changes
    assert [len(c.pairs) for c in blocks] == [6, 4, 5]
    for field in ("diff", "se", "p"):
        assert np.concatenate([getattr(c, field) for c in blocks]).tobytes() == getattr(whole, field).tobytes()
    # a run's kept figures: the same bytes each time they are computed
    draws = paired.shared_draws(strata, 100, 3)
    alone, beside = paired.run_figures(runs[2], ACCURACY, draws), paired.run_figures(runs[2], ACCURACY, draws)
    assert alone.fixed.dtype == np.int32 and alone.fixed.shape == (4, 100)  # 3 genres and ALL, 100 resamples
    assert alone.fixed.tobytes() == beside.fixed.tobytes() and alone.sums.tobytes() == beside.sums.tobytes()
    assert (alone.sums[0] == (alone.fixed.astype(np.float64) ** 2).sum(axis=1)).all()  # Σ z², exact
    # a pair computed from the kept figures of its two runs alone is the pair computed among six
    kept = {r: paired.run_figures(runs[r], ACCURACY, draws) for r in (1, 4)}
    (one,) = paired.compare_parts(runs, strata, ACCURACY, resamples=100, seed=3, pairs=[(1, 4)],
                                  prepared=kept.__getitem__)
    k = pairs.index((1, 4))
    assert one.se[0].tobytes() == whole.se[k].tobytes() and one.p[0].tobytes() == whole.p[k].tobytes()


def test_a_run_resampled_for_every_figure_set_at_once_is_resampled_set_by_set(monkeypatch):
    """Integer rows are resampled with one matrix product for every figure set's columns (overlapping, out of
    order, one set reading every column, equal columns resampled once): the same figures, bit for bit, as each
    set's own product."""
    rng = np.random.default_rng(11)
    n = 90
    strata = ["a"] * 30 + ["b"] * 25 + ["c"] * 35
    total = rng.integers(1, 5, size=(n, 3))
    # hits 0-2, totals 3-5, and 6 the same counts as 3 (as the gold's counts recur in every way of EASY)
    rows = np.concatenate([rng.binomial(total, 0.6), total, total[:, :1]], axis=1).astype(np.uint8)
    parts = [FigureSet(("p",), lambda s: (s[:, 0] / s[:, 1])[:, None], np.array([2, 5])),
             FigureSet(("q", "r"), lambda s: s[:, :2] / s[:, 2:], np.array([0, 1, 3, 4])),
             FigureSet(("s",), lambda s: (s[:, 1] / s[:, 4])[:, None]),
             FigureSet(("t",), lambda s: (s[:, 1] / s[:, 0])[:, None], np.array([6, 0]))]
    draws = paired.shared_draws(strata, 200, 5)
    together = paired.run_figures(rows, parts, draws)
    monkeypatch.setattr(paired, "_shared_sums", lambda *args: None)
    apart = paired.run_figures(rows, parts, draws)
    assert together.fixed.shape == (4 * 5, 200)  # 3 genres and ALL, 5 keys
    for field in ("point", "fixed", "sums", "digests"):
        assert getattr(together, field).tobytes() == getattr(apart, field).tobytes()
