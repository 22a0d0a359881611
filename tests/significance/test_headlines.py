"""A figure's headlines formatted from its packed row at once (evaluation.significance.headlines) are the ones the
set gives one pair at a time (sets._figure_heads then sets.headline), undefined values included."""
from __future__ import annotations

import numpy as np

from evaluation.significance import headlines, packing, sets as significance

ALPHA = 0.05


def _row(ids: list[int]) -> dict:
    """A packed figure row of four results (six pairs) with every kind of value a pair can have."""
    nan = np.nan
    heads = np.array([[0.0123456789, 0.004, 0.002],     # a plain difference
                      [-0.031, nan, nan],                # no standard error: no interval, no p, no MDE
                      [nan, nan, nan],                   # undefined in both runs: left out
                      [0.0, 0.0, 1.0],                   # equal on every sentence
                      [0.25, 0.01, 1e-300],              # a p below what the scale can round
                      [-1e-7, 0.0300000000005, 0.7]])    # a difference rounded to -0.0
    p_holm = np.array([0.012, nan, nan, 1.0, 5e-300, 1.0])
    agreement = np.arange(6 * len(significance.AGREEMENT), dtype=np.int32).reshape(6, -1)
    return {"figure": "micro|x||", "results": ids, "family": 4,
            "heads": packing.pack({"heads": heads, "p_holm": p_holm, "agreement": agreement})}


def test_a_figure_s_headlines_at_once_are_those_of_one_pair_at_a_time():
    ids = [3, 8, 11, 40]
    row = _row(ids)
    expected = [(h["result_a_id"], h["result_b_id"], significance.headline(h, 1, ALPHA))
                for h in significance._figure_heads(row, ALPHA)]
    found = headlines.entries(significance.headline_columns(row, ALPHA))
    assert found == expected
    assert [list(h) for _, _, h in found] == [list(h) for _, _, h in expected]  # the keys in the same order
    assert [(a, b) for a, b, _ in found] == [(3, 8), (3, 11), (8, 11), (8, 40), (11, 40)]  # (3, 40) undefined
    by_pair = {(a, b): h for a, b, h in found}
    assert by_pair[(3, 11)]["ci"] is None and by_pair[(3, 11)]["p"] is None and by_pair[(3, 11)]["mde"] is None
    assert by_pair[(3, 11)]["significant"] is False and by_pair[(3, 11)]["diff"] == -0.031
    # by hand: 0.0123456789 rounded to 6 decimals, its interval ± 1.96 × 0.004 = ± 0.00784
    assert by_pair[(3, 8)]["diff"] == 0.012346 and by_pair[(3, 8)]["ci"] == [0.004506, 0.020186]
    assert by_pair[(3, 8)]["significant"] is True and by_pair[(8, 11)]["significant"] is False
    assert by_pair[(8, 40)]["p_holm"] == 5e-300 and by_pair[(8, 40)]["significant"] is True
    assert by_pair[(11, 40)]["diff"] == 0.0 and np.signbit(by_pair[(11, 40)]["diff"])  # -0.0, as round() gives


def test_only_the_pairs_between_the_results_asked_for():
    ids = [3, 8, 11, 40]
    columns = significance.headline_columns(_row(ids), ALPHA)
    assert [(a, b) for a, b, _ in headlines.entries(columns, [40, 8, 11])] == [(8, 11), (8, 40), (11, 40)]
    assert [(a, b) for a, b, _ in headlines.entries(columns, [3, 40])] == []  # their one pair is undefined
    assert headlines.entries(columns, []) == []


def test_the_other_way_round_is_the_set_s_second_minus_first():
    row = _row([3, 8, 11, 40])
    for h in significance._figure_heads(row, ALPHA):
        forward = significance.headline(h, 1, ALPHA)
        assert headlines.oriented(forward, -1) == significance.headline(h, -1, ALPHA)


def test_packed_arrays_come_back_as_they_were_at_every_level():
    """The packing the set's rows and the worker's kept figures share: shapes (0-d too), dtypes, values and order,
    compressed or not, and the same bytes for the same arrays."""
    arrays = {"key": np.array('[2,"figures"]'), "none": np.zeros((2, 0, 3)), "t": np.arange(12).reshape(3, 4).T,
              "nan": np.array([np.nan, -0.0, 1e-300]), "u": np.array([7], dtype=np.uint64)}
    for level in (0, 1, 6):
        data = packing.pack(arrays, level=level)
        back = packing.unpack(data)
        assert list(back) == list(arrays) and packing.pack(back, level=level) == data
        for name, a in arrays.items():
            assert back[name].shape == a.shape and back[name].dtype == a.dtype
            assert np.array_equal(back[name], a, equal_nan=a.dtype.kind == "f")
    assert str(packing.unpack(packing.pack(arrays))["key"]) == '[2,"figures"]'
    assert len(packing.pack({"z": np.zeros(10000)})) < len(packing.pack({"z": np.zeros(10000)}, level=0)) / 10
