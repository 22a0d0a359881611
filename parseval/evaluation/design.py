"""How many test sentences a campaign needs: a design aid from two runs' stored paired test.

A difference's standard error shrinks as 1/√n with the number of test sentences n (the difference of two
figures is, to first order, a mean over sentences), so a test set that detects a difference ``mde`` with
80% power detects ``target`` with n·(mde / target)² sentences. From two runs compared on the current test
sentences (a baseline pair such as two off-the-shelf parsers, or two development checks):

* per genre: what the genre's sentences detect on their own, and how many it would need to detect
  ``target`` on its own;
* over all genres: what the test set detects, and how many sentences (in the current genre proportions)
  would detect ``target``.

The estimate is as good as the pair is typical: runs that disagree on more sentences need more.
Pure: the standard library and :mod:`parseval.evaluation.paired`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from parseval.evaluation import paired

ALL = "ALL"


@dataclass
class Need:
    stratum: str
    sentences: int
    se: float | None
    detectable: float | None   # what the current sentences detect with ``power``
    needed: int | None         # sentences to detect the target (None when the standard error is unknown)


def needed(sentences: int, se: float, target: float, *, alpha: float = paired.ALPHA,
           power: float = paired.POWER) -> int:
    """Sentences that detect ``target`` with ``power``, when ``sentences`` give the standard error ``se``."""
    return scaled(sentences, paired.detectable(se, alpha, power), target)


def scaled(sentences: int, detectable: float, target: float) -> int:
    """Sentences that detect ``target`` when ``sentences`` detect ``detectable`` (same power and level):
    n·(detectable / target)², rounded up. Arithmetic only: what a page does with stored detectable differences."""
    if target <= 0:
        raise ValueError("the difference to detect must be positive")
    return int(math.ceil(sentences * (detectable / target) ** 2))


def detectables(sentences: Mapping[str, int], se: Mapping[str, float | None], *, alpha: float = paired.ALPHA,
                power: float = paired.POWER) -> dict[str, float | None]:
    """``{genre or ALL: what its sentences detect with power}``, None where the standard error is unknown or 0:
    the part of :func:`plan` that does not depend on the difference to detect (computed once, stored)."""
    out = {}
    for stratum in sentences:
        s = se.get(stratum)
        out[stratum] = paired.detectable(s, alpha, power) if s is not None and s > 0 else None
    return out


def plan(sentences: Mapping[str, int], se: Mapping[str, float | None], target: float, *,
         alpha: float = paired.ALPHA, power: float = paired.POWER) -> list[Need]:
    """One :class:`Need` per genre (sorted), then ``ALL`` with the genres' shares of the sentences needed."""
    return plan_detectable(sentences, detectables(sentences, se, alpha=alpha, power=power), target, se)


def plan_detectable(sentences: Mapping[str, int], detectable: Mapping[str, float | None], target: float,
                    se: Mapping[str, float | None] | None = None) -> list[Need]:
    """:func:`plan` from the detectable differences already computed (:func:`detectables`)."""
    if target <= 0:
        raise ValueError("the difference to detect must be positive")
    out = []
    for stratum in sorted(g for g in sentences if g != ALL) + [ALL]:
        n, d = int(sentences[stratum]), detectable.get(stratum)
        out.append(Need(stratum, n, (se or {}).get(stratum), d, scaled(n, d, target) if d is not None else None))
    return out


def split(total: int, sentences: Mapping[str, int]) -> dict[str, int]:
    """``total`` sentences shared among the genres in their current proportions (rounded up)."""
    n = sum(v for g, v in sentences.items() if g != ALL)
    return {g: int(math.ceil(total * v / n)) for g, v in sorted(sentences.items()) if g != ALL}
