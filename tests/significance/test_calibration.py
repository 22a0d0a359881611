"""The paired tests are calibrated and the stated minimum detectable effect has its power, by simulation.

Null campaigns exchange two runs' per-sentence rows at random, sentence by sentence (neither run is better):
a test at alpha = 0.05 must reject in at most 5% of them, within simulation error. Planted differences of the
stated minimum detectable effect must be found 80 ± 5% of the time. Small and seeded; the thousand-campaign
version on the demo's real runs is benchmarks/significance_calibration.py.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from parseval.annotations.conllu import parse_conllu, write_conllu
from campaign import demo_kinds
from parseval.evaluation import calibration, metrics, paired
from parseval.evaluation.figure_sets import metric_figures


def _null_interval(rate: calibration.Rate) -> tuple[float, float]:
    """The 99% interval of a null rejection rate. Four such checks are made, each on a few hundred seeded
    campaigns: at 95% one of them would fail by the luck of its seed one time in ten or so. The bootstrap
    test's true rate on the dependency runs is 5.3% (20,000 campaigns, either generation of draws), and
    seed 7's first 400 campaigns reject 7.5% with scorer 1.2's draws: at 95% that would be a failure."""
    return calibration.wilson(rate.rejected, rate.campaigns, 0.99)


@pytest.fixture(scope="module")
def dependency_runs(shared_data):
    """LAS rows of two damaged parses of the UD Sequoia test set (10% and 14% of heads moved)."""
    gold_text = (shared_data / "ud-french" / "fr_sequoia-ud-test.conllu").read_text(encoding="utf-8")
    gold = parse_conllu(gold_text)
    text = write_conllu(gold)
    runs = []
    for rate, seed in ((0.10, 1), (0.14, 2)):
        damaged = parse_conllu(demo_kinds.damage_heads(text, demo_kinds.DepRecipe("x", "", rate, seed),
                                                       random.Random(seed)))
        runs.append(metrics.get("dependency").score_with_rows(gold, damaged, punct="upos", pos="upos")[1])
    # two genres, as a campaign's strata
    strata = ["first" if i < len(gold) // 2 else "second" for i in range(len(gold))]
    [figures] = metric_figures(["dependency"])
    key = figures.keys.index(("micro", "deps-las", "", "", "ALL"))
    return np.asarray(runs[0]), np.asarray(runs[1]), strata, figures, key


@pytest.fixture(scope="module")
def easy_runs(shared_data, tmp_path_factory):
    """Count rows of two perturbed EASY runs (the demo's recipes) of three reference documents."""
    from parseval.annotations.easy import read_document, write_document
    from campaign import demo
    from parseval.evaluation.easy.files import genre_of
    from parseval.evaluation.easy.scoring import count_sentences
    from evaluation.kinds.easy.figures import easy_figures
    from evaluation.kinds.easy.rows import counted_rows

    tmp = tmp_path_factory.mktemp("easy-runs")
    names = ("general_elda.xml", "mail_10.xml", "oral_delic_2.xml", "litteraire_1.xml")
    paths = [p for p in (shared_data / "easy-ref" / "ref" / n for n in names) if p.exists()]
    gold = {p.stem: read_document(p, gold=True, strict=True, name=p.name) for p in paths}
    rows = []
    for recipe in (demo.TEAMS[0]["runs"][0], demo.TEAMS[1]["runs"][0]):
        files = {}
        for name, doc in gold.items():
            files[name] = tmp / f"{recipe.name[:8]}-{name}.xml"
            write_document(demo.perturb(doc, recipe), files[name])
        plan, counted, counting = count_sentences(gold, files, {n: genre_of(n) for n in gold},
                                                  matches=("EQUAL",), modes=("HYP",))
        keys, strata, matrix = counted_rows(plan, counted, counting)
        rows.append(matrix)
    figures = [f for f in easy_figures(plan) if f.keys[0][1] == "relations"][0]
    key = figures.keys.index(("micro", "relations", "HYP", "EQUAL", "ALL"))
    return rows[0], rows[1], list(strata), figures, key


def test_easy_relations_are_calibrated_under_the_null(easy_runs):
    a, b, strata, figures, key = easy_runs
    narrow, key = calibration.narrowed(figures, key)
    assert len(narrow.columns) == 3  # found correct, found, reference of all relation types
    for method in ("bootstrap", "ar"):
        rate = calibration.simulate(a, b, strata, narrow, key, method=method, campaigns=300, resamples=300, seed=3)
        assert _null_interval(rate)[0] <= paired.ALPHA and rate.rate > 0.01, (method, rate.rate, rate.interval)


def test_the_tests_are_calibrated_under_the_null(dependency_runs):
    a, b, strata, figures, key = dependency_runs
    narrow, key = calibration.narrowed(figures, key)
    assert calibration.difference(a, b, narrow, key) > 0.02  # the runs differ; their exchanges do not
    for method in ("bootstrap", "ar"):
        rate = calibration.simulate(a, b, strata, narrow, key, method=method, campaigns=400,
                                    resamples=400 if method == "bootstrap" else 200, seed=7)
        low, high = _null_interval(rate)
        assert low <= paired.ALPHA, (method, rate.rate, rate.interval)  # not above 5% beyond simulation error
        assert abs(rate.mean_diff) < 0.002  # nothing planted
        assert rate.rate > 0.01  # and it is a test: it does reject, at about its level
    # the check can fail: a test whose standard error is understated by a third rejects far too often
    x = [calibration.exchanged(a, b, np.random.default_rng(s).random(len(a)) < 0.5) for s in range(200)]
    d = np.array([calibration.difference(u, v, narrow, key) for u, v in x])
    _, se = calibration.stated_mde(a, b, strata, narrow, key, resamples=400)
    too_small = (paired.normal_p(d, np.full(len(d), se * 2 / 3)) < paired.ALPHA).sum()
    assert calibration.wilson(int(too_small), len(d))[0] > paired.ALPHA


def test_the_stated_minimum_detectable_effect_has_80_percent_power(dependency_runs):
    a, b, strata, figures, key = dependency_runs
    narrow, key = calibration.narrowed(figures, key)
    mde, se = calibration.stated_mde(a, b, strata, narrow, key, resamples=400)
    assert mde == pytest.approx((1.959964 + 0.841621) * se, rel=1e-5)
    full = calibration.difference(a, b, narrow, key)
    rate = calibration.simulate(a, b, strata, narrow, key, share=calibration.share_for(mde, full), campaigns=400,
                                resamples=400, seed=11)
    assert rate.mean_diff == pytest.approx(mde, rel=0.1)  # the planted difference is the stated MDE
    assert 0.75 <= rate.rate <= 0.85, (rate.rate, rate.interval)
    # half the MDE is found far less often: the power curve rises with the planted difference
    half = calibration.simulate(a, b, strata, narrow, key, share=calibration.share_for(mde / 2, full),
                                campaigns=200, resamples=400, seed=12)
    assert half.rate < 0.45


def test_wilson_interval_by_hand():
    # k = 5 of n = 100, z = 1.96: centre (0.05 + 0.019208) / 1.038416 = 0.066648,
    # half-width 1.96 sqrt(0.000475 + 0.0000960) / 1.038416 = 0.045103
    low, high = calibration.wilson(5, 100)
    assert low == pytest.approx(0.021545, abs=1e-5) and high == pytest.approx(0.111751, abs=1e-5)
