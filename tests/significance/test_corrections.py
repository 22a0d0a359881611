"""Holm (per figure, across the pairs) and Benjamini–Hochberg (per table, across the cells), written out by hand.

The stored sets recompute both over the stored raw p-values (test_incremental): here the arithmetic itself.
"""
from __future__ import annotations

import math

import pytest

from parseval.evaluation import paired


def test_holm_over_four_p_values_by_hand():
    # sorted: 0.005, 0.01, 0.03, 0.04; m = 4
    # steps: 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, 1 x 0.04 = 0.04 -> running max 0.02, 0.03, 0.06, 0.06
    adjusted = paired.holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_benjamini_hochberg_over_four_p_values_by_hand():
    # sorted: 0.005, 0.01, 0.03, 0.04; m = 4
    # m p(i) / i: 0.02, 0.02, 0.04, 0.04 -> running min from the largest: 0.02, 0.02, 0.04, 0.04
    adjusted = paired.benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.02, 0.04, 0.04, 0.02])


def test_an_undefined_p_value_is_outside_the_family():
    # m = 3 (the None is not counted): sorted 0.01, 0.02, 0.2
    # Holm: 3 x 0.01 = 0.03, 2 x 0.02 = 0.04, 1 x 0.2 = 0.2
    assert paired.holm([0.02, None, 0.2, 0.01]) == pytest.approx([0.04, None, 0.2, 0.03])
    # BH: 3 x 0.01 / 1 = 0.03, 3 x 0.02 / 2 = 0.03, 3 x 0.2 / 3 = 0.2
    assert paired.benjamini_hochberg([0.02, None, 0.2, 0.01]) == pytest.approx([0.03, None, 0.2, 0.03])


def test_adjusted_values_stop_at_one():
    # Holm over 3: 3 x 0.5 = 1.5 -> 1; BH: 3 x 0.5 / 1 = 1.5, 3 x 0.6 / 2 = 0.9, 3 x 0.7 / 3 = 0.7 -> 0.7, 0.7, 0.7
    assert paired.holm([0.5, 0.6, 0.7]) == [1.0, 1.0, 1.0]
    assert paired.benjamini_hochberg([0.5, 0.6, 0.7]) == pytest.approx([0.7, 0.7, 0.7])
    assert not any(math.isnan(v) for v in paired.holm([0.5, 0.6, 0.7]))
