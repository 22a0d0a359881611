"""Weighted votes: the counting rule every kind's combination shares.

A *ballot* is what one run says about one sentence: the set of items it
proposes (groups, relations, arcs, labelled spans...). Each run's weight is
normalised so that the weights sum to 1; an item's *agreement* is then the
sum of the weights of the runs that proposed it, a number in (0, 1]. A run
proposing the same item twice votes for it once: EASY compares items as
sets, and so does every other kind here.

Ties are broken by the order of the runs (the first run that proposed an
item wins), which keeps the consensus deterministic: the order is the
caller's, and the command line and the platform both pass the runs in a
documented order.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Hashable, Iterable, Sequence, TypeVar

from parseval.annotations.errors import InputError

K = TypeVar("K", bound=Hashable)


def normalised(weights: Sequence[float] | None, runs: int) -> tuple[float, ...]:
    """Weights summing to 1: equal when ``weights`` is None."""
    if runs < 1:
        raise InputError("nothing to combine: no run given")
    if weights is None:
        return (1.0 / runs,) * runs
    if len(weights) != runs:
        raise InputError(f"{len(weights)} weights given for {runs} runs: give one weight per run")
    if any(w < 0 or w != w for w in weights):
        raise InputError("a run's weight must be a number >= 0")
    total = float(sum(weights))
    if total <= 0:
        raise InputError("the weights sum to 0: at least one run must have a positive weight")
    return tuple(w / total for w in weights)


def tally(ballots: Iterable[tuple[float, Iterable[K]]]) -> dict[K, float]:
    """Each item's agreement, in the order items were first proposed."""
    votes: dict[K, float] = {}
    for weight, items in ballots:
        for item in dict.fromkeys(items):
            votes[item] = votes.get(item, 0.0) + weight
    return votes


def winner(votes: dict[K, float]) -> tuple[K, float] | None:
    """The item with most agreement (the first proposed on a tie), or None when nobody voted."""
    best = None
    for item, weight in votes.items():
        if best is None or weight > best[1] + 1e-12:
            best = (item, weight)
    return best


def kept(votes: dict[K, float], threshold: float) -> dict[K, float]:
    """The items whose agreement is above ``threshold`` (strictly; 1e-9 absorbs rounding)."""
    return {item: weight for item, weight in votes.items() if weight > threshold + 1e-9}


def heaviest_disjoint(spans: Iterable[tuple[int, int, float, K]]) -> list[K]:
    """The set of pairwise disjoint half-open spans ``[start, end)`` of maximal total weight.

    Weighted interval scheduling: spans sorted by end, ``best[i]`` the best
    weight using the first ``i`` spans, each either left out or taken after the
    last span that ends before it starts. Returned in the order of the spans'
    starts. On equal total weight, the selection with the earlier spans wins.
    """
    items = sorted(spans, key=lambda s: (s[1], s[0]))
    ends = [s[1] for s in items]
    best = [0.0] * (len(items) + 1)
    take = [False] * len(items)
    previous = [0] * len(items)
    for i, (start, _end, weight, _key) in enumerate(items):
        j = bisect_right(ends, start, 0, i)  # spans 0..j-1 end at or before this one starts
        previous[i] = j
        with_it = best[j] + weight
        if with_it > best[i] + 1e-12:
            best[i + 1], take[i] = with_it, True
        else:
            best[i + 1] = best[i]
    chosen = []
    i = len(items)
    while i > 0:
        if take[i - 1]:
            chosen.append(items[i - 1])
            i = previous[i - 1]
        else:
            i -= 1
    chosen.sort(key=lambda s: s[0])
    return [s[3] for s in chosen]
