"""Warnings kept as the result shows them: the first :data:`MAX_WARNINGS`, and how many were said.

The result lists the gold's warnings (per document, in gold order), then the runs' (in the order they
were said), cut after the first :data:`MAX_WARNINGS` with a line saying how many more there were. A
corpus of many documents may say millions; holding them all until the cut made memory grow with the
corpus. So each side keeps only what could still be shown, and counts the rest:

* :class:`WarningLog`, for warnings said in the order they are listed (the runs'): the first ``limit``.
* :class:`GoldWarnings`, for the gold's: documents are read when their run comes, which need not be gold
  order, so it keeps the first ``limit`` in gold order among the documents read so far. A document read
  later can only push warnings further back, so those dropped could never have been shown.

The two concatenated and cut at ``limit`` are then exactly the first ``limit`` of every warning: a side
drops a warning only when it already keeps ``limit`` before it. The same holds for the logs of shards laid
end to end (:meth:`WarningLog.add`), which is how the sharded merge keeps the single pass's list.
"""
from __future__ import annotations

import heapq
from typing import Iterable

MAX_WARNINGS = 1000


class WarningLog:
    """The first ``limit`` warnings said (``kept``, in order) and how many were said (``total``). It takes
    ``append`` and ``extend`` as a list does, so that a reader can write its warnings to it."""

    def __init__(self, limit: int = MAX_WARNINGS):
        self.limit = limit
        self.kept: list = []
        self.total = 0

    def append(self, warning) -> None:
        self.total += 1
        if len(self.kept) < self.limit:
            self.kept.append(warning)

    def extend(self, warnings: Iterable) -> None:
        for w in warnings:
            self.append(w)

    def add(self, kept: list, total: int) -> None:
        """What another log kept and counted (a shard's), as if its warnings were said here one by one."""
        self.kept.extend(kept[:max(0, self.limit - len(self.kept))])
        self.total += total

    def said(self) -> tuple[list, int]:
        """``(kept, total)``, as :meth:`add` takes them."""
        return self.kept, self.total


class GoldWarnings:
    """The gold's warnings, documents added in any order: the first ``limit`` in gold order among those added
    (``kept``) and how many were said (``total``)."""

    def __init__(self, order: Iterable[str], limit: int = MAX_WARNINGS):
        self.limit = limit
        self.position = {key: i for i, key in enumerate(order)}
        self.by_position: dict[int, list] = {}  # the documents with warnings kept
        self.last: list[int] = []  # their positions, negated: a heap whose top is the last in gold order
        self.size = 0  # warnings kept
        self.total = 0

    def add(self, key: str, warnings: list, total: int | None = None) -> None:
        """Document ``key``'s warnings (its first ``limit`` at least, when ``total`` says how many it had)."""
        self.total += len(warnings) if total is None else total
        if not warnings:
            return
        at = self.position[key]
        self.by_position[at] = list(warnings[:self.limit])
        heapq.heappush(self.last, -at)
        self.size += len(self.by_position[at])
        while self.size > self.limit:  # drop from the end in gold order: never shown
            tail = self.by_position[-self.last[0]]
            cut = min(len(tail), self.size - self.limit)
            del tail[len(tail) - cut:]
            self.size -= cut
            if not tail:
                del self.by_position[-heapq.heappop(self.last)]

    @property
    def kept(self) -> list:
        return [w for at in sorted(self.by_position) for w in self.by_position[at]]


def as_dicts(log: WarningLog | GoldWarnings) -> WarningLog:
    """A log of the same warnings as ``Problem.as_dict()`` dicts (what the result and a shard's bytes hold)."""
    out = WarningLog(log.limit)
    out.add([w.as_dict() for w in log.kept], log.total)
    return out
