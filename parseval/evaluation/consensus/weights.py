"""Run weights for a consensus, from the runs' scores on the development sample.

The development sample's gold is public and every run annotates the whole
corpus, so each run can be scored on the development sentences: those
scores, and never the test subset's, weigh the runs. A consensus weighted
by its own test figures would be tuned on what it is then scored on.

The weight of a run is its development F (a number in [0, 1]) raised to a
power (``sharpness``, default 1: proportional to F). A run with no
development figure (its team sent nothing for those sentences) takes the
smallest weight of the others, so that it is neither ignored nor favoured;
when no run has one, the weights are equal.
"""
from __future__ import annotations

from typing import Sequence

from parseval.annotations.errors import InputError
from parseval.evaluation.stats import ALL


def weights_from_development(scores: Sequence[float | None], *, sharpness: float = 1.0) -> list[float]:
    if sharpness < 0:
        raise InputError("the sharpness of development weights must be >= 0")
    known = [s for s in scores if s is not None]
    if any(not 0 <= s <= 1 for s in known):
        raise InputError("development scores are F values between 0 and 1")
    if not known or all(s == 0 for s in known):
        return [1.0] * len(scores)
    weighed = [s ** sharpness for s in known]
    floor = min(w for w in weighed)
    return [floor if s is None else s ** sharpness for s in scores]


def figure_value(cells, key) -> float | None:
    """The value (F, else recall) of the cell named by ``key`` among a result document's micro/macro cells."""
    aggregation, layer, mode, match, type_ = key
    for c in cells:
        if (c.get("layer"), c.get("mode") or "", c.get("match") or "", c.get("genre"), c.get("type")) == \
                (layer, mode, match, ALL, type_):
            return c.get("f") if c.get("f") is not None else c.get("r")
    return None
