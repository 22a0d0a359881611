"""Every gold sentence's count rows on disk while a run is scored, read back in blocks of rows.

A corpus of 100 million words has about 4.7 million gold sentences; their count rows (672 bytes each with
the default options) would take 3 GB of memory. They are written instead, one document's rows at a time
once the document is counted, to an unnamed temporary file (:func:`tempfile.TemporaryFile`: removed by the
system when closed or when the process ends, in ``TMPDIR``), and read back in blocks of at most
:data:`BLOCK_ROWS` rows: for the sums, and by the bootstrap once per batch of resamples. The pages read
stay in the system's file cache, not in the process. The sentence ids of each document, which only the
paired tests ask for, go to a second file.

:class:`RowSpill` is the file; :class:`CountRows` is its rows in gold order, each run of rows one document
with its genre. Pure: numpy and the standard library.
"""
from __future__ import annotations

import json
import tempfile
from typing import Iterator, NamedTuple

import numpy as np

# rows read at a time: 8192 rows of 336 int16 columns (the default options) are 5.5 MB, 11 MB once in float32
BLOCK_ROWS = 8192
ROW_DTYPE = np.int16  # a sentence's counts are bounded by parseval.annotations.limits (4,000 relations, 2,000 groups)


class Segment(NamedTuple):
    """One document's rows in the spill: rows ``start`` to ``start + n``, its genre, its ids' bytes."""

    genre: str
    start: int
    n: int
    ids: tuple[int, int]  # (offset, length) in the ids file; (0, 0) when not kept


class RowSpill:
    """An append-only file of count rows, each ``fc`` (``ncols`` columns) then ``fp`` and ``cr`` in their
    compact columns (``ncompact`` each), in int16."""

    def __init__(self, ncols: int, ncompact: int):
        self.ncols, self.ncompact = ncols, ncompact
        self.width = ncols + 2 * ncompact
        self.size = 0  # rows written
        self._rows = tempfile.TemporaryFile(prefix="easy-rows-")
        self._ids = None
        self._ids_size = 0

    def append(self, fc: np.ndarray, fp_compact: np.ndarray, cr_compact: np.ndarray,
               ids: list[str] | None = None) -> tuple[int, tuple[int, int]]:
        """Write rows at the end; return the first one's number and where their ids went."""
        start = self.size
        rows = np.empty((len(fc), self.width), dtype=ROW_DTYPE)
        rows[:, :self.ncols] = fc
        rows[:, self.ncols:self.ncols + self.ncompact] = fp_compact
        rows[:, self.ncols + self.ncompact:] = cr_compact
        self._rows.seek(start * self.width * rows.itemsize)
        self._rows.write(memoryview(rows).cast("B"))
        self.size += len(rows)
        span = (0, 0)
        if ids is not None:
            if self._ids is None:
                self._ids = tempfile.TemporaryFile(prefix="easy-ids-")
            data = json.dumps(ids).encode("utf-8")
            self._ids.seek(self._ids_size)
            self._ids.write(data)
            span = (self._ids_size, len(data))
            self._ids_size += len(data)
        return start, span

    def read(self, start: int, n: int) -> np.ndarray:
        """Rows ``start`` to ``start + n``: an (n, width) int16 array."""
        out = np.empty((n, self.width), dtype=ROW_DTYPE)
        view = memoryview(out).cast("B")
        self._rows.seek(start * self.width * out.itemsize)
        got = 0
        while got < len(view):
            k = self._rows.readinto(view[got:])
            if not k:
                raise OSError("the count rows file is shorter than what was written to it")
            got += k
        return out

    def ids(self, span: tuple[int, int]) -> list[str]:
        offset, length = span
        if not length:
            return []
        self._ids.seek(offset)
        return json.loads(self._ids.read(length).decode("utf-8"))

    def close(self) -> None:
        self._rows.close()
        if self._ids is not None:
            self._ids.close()


class CountRows:
    """The count rows of every gold sentence in gold order, read from a :class:`RowSpill`: one
    :class:`Segment` per gold document, in gold order (the spill holds them in the order they were counted).

    :meth:`blocks` reads them a block at a time; :attr:`fc`, :attr:`fp_compact`, :attr:`cr_compact` (and
    :attr:`fp`, :attr:`cr` expanded) load all of them at once, for the paths that need every row together
    (the paired tests' rows, a shard's counts)."""

    def __init__(self, spill: RowSpill, segments: list[Segment], expand: np.ndarray | None = None):
        self.spill, self.segments, self.expand = spill, segments, expand
        self._whole = None

    def __len__(self) -> int:
        return sum(s.n for s in self.segments)

    @property
    def genres(self) -> list[str]:
        """The genres that have rows, sorted (the bootstrap's strata, in its order)."""
        return sorted({s.genre for s in self.segments if s.n})

    def size(self, genre: str) -> int:
        return sum(s.n for s in self.segments if s.genre == genre)

    def blocks(self, genre: str | None = None, max_rows: int | None = None) -> Iterator[np.ndarray]:
        """The rows of ``genre`` (every row when None) in gold order, in blocks of at most ``max_rows``
        (default :data:`BLOCK_ROWS`) rows; documents next to each other in the file are read together."""
        limit = max(1, max_rows or BLOCK_ROWS)
        pending_start, pending_n = 0, 0
        for seg in self.segments:
            if (genre is not None and seg.genre != genre) or not seg.n:
                continue
            start, n = seg.start, seg.n
            if pending_n and pending_start + pending_n != start:
                yield from self._read(pending_start, pending_n, limit)
                pending_n = 0
            if not pending_n:
                pending_start = start
            pending_n += n
            if pending_n >= limit:
                whole = pending_n - pending_n % limit
                yield from self._read(pending_start, whole, limit)
                pending_start, pending_n = pending_start + whole, pending_n - whole
        if pending_n:
            yield from self._read(pending_start, pending_n, limit)

    def _read(self, start: int, n: int, limit: int) -> Iterator[np.ndarray]:
        for at in range(start, start + n, limit):
            yield self.spill.read(at, min(limit, start + n - at))

    def column_sums(self, genre: str | None = None) -> np.ndarray:
        """The int64 column sums of the rows of ``genre`` (every row when None), ``fc`` then compact fp, cr."""
        total = np.zeros(self.spill.width, dtype=np.int64)
        for block in self.blocks(genre):
            total += block.sum(axis=0, dtype=np.int64)
        return total

    def split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``fc``, compact ``fp`` and compact ``cr`` parts of rows or sums laid out as the spill's columns."""
        a, b = self.spill.ncols, self.spill.ncols + self.spill.ncompact
        return x[..., :a], x[..., a:b], x[..., b:]

    def ids(self, segment: Segment) -> list[str]:
        return self.spill.ids(segment.ids)

    def _all(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._whole is None:
            rows = np.empty((len(self), self.spill.width), dtype=ROW_DTYPE)
            at = 0
            for block in self.blocks():
                rows[at:at + len(block)] = block
                at += len(block)
            self._whole = self.split(rows)
        return self._whole

    @property
    def fc(self) -> np.ndarray:
        return self._all()[0]

    @property
    def fp_compact(self) -> np.ndarray:
        return self._all()[1]

    @property
    def cr_compact(self) -> np.ndarray:
        return self._all()[2]

    @property
    def fp(self) -> np.ndarray:
        return self.fp_compact[:, self.expand]

    @property
    def cr(self) -> np.ndarray:
        return self.cr_compact[:, self.expand]

    @property
    def done(self) -> np.ndarray:
        return np.ones(len(self), dtype=bool)  # a document goes to the spill once every row of it is counted

    def close(self) -> None:
        self._whole = None
        self.spill.close()
