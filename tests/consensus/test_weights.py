"""Development weights, by hand."""
import pytest

from parseval.annotations.errors import InputError
from parseval.evaluation.consensus.votes import normalised
from parseval.evaluation.consensus.weights import weights_from_development


def test_weights_follow_the_development_figure():
    # F 0.9, 0.6, 0.3 -> weights 0.9, 0.6, 0.3 -> shares 0.5, 0.333, 0.167
    assert normalised(weights_from_development([0.9, 0.6, 0.3]), 3) == pytest.approx([0.5, 1 / 3, 1 / 6])
    # sharpness 2: 0.81, 0.36, 0.09 (sum 1.26)
    assert weights_from_development([0.9, 0.6, 0.3], sharpness=2) == pytest.approx([0.81, 0.36, 0.09])


def test_a_run_without_development_figure_takes_the_smallest_weight():
    assert weights_from_development([0.8, None, 0.4]) == pytest.approx([0.8, 0.4, 0.4])
    assert weights_from_development([None, None]) == [1.0, 1.0]


def test_out_of_range_scores_are_refused():
    with pytest.raises(InputError):
        weights_from_development([80.0, 60.0])
