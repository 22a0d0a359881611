"""One EASY run scored in shards of documents, merged into exactly the document :func:`score_corpus` returns.

A large run is cut BY DOCUMENTS into shards, each a run of consecutive gold documents in gold order,
counted apart (:func:`count_shard`, in any process) and merged once (:func:`merge`). Nothing of the
scoring is summed in a shard: a shard keeps its per-sentence count rows, its per-document statistics
and its warnings, and the merge lays them end to end in shard order, which is gold order. What the
single pass computes over the whole corpus is then computed once, on the merged rows: the sums per
genre, the bootstrap (it draws over every sentence of a genre, so it cannot be split), the layers
submitted and the warnings that depend on them. The merged document is byte for byte the single
pass's, given the same gold in the same order (``tests/easy/test_shards.py``).

The warnings keep the single pass's order: the gold's warnings per document; then what reading the
runs said, document after document; then what the end of the counting said (gold documents without a
run); then the layers missing from the whole run. A shard keeps the second and third apart so that the
merge can lay all of one before all of the other. Of each list a shard keeps only the first
``MAX_WARNINGS`` and how many it said (:mod:`parseval.evaluation.easy.warning_log`): laid end to end, they give
the single pass's first warnings and its count of the rest.

A shard travels between processes as bytes (:meth:`ShardCounts.to_bytes`: numpy's ``.npz`` with the
statistics as JSON, read back without pickle).
"""
from __future__ import annotations

import io
import json
import weakref
import zipfile
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from parseval.annotations.easy.reader import DEFAULT_MAX_PROBLEMS
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.errors import InputError, Problem
from parseval.evaluation.stats import DEFAULT_SEED

from .ranges import MATCHES, MODES
from .row_spill import ROW_DTYPE, CountRows, RowSpill, Segment
from .counting import Plan
from .scoring import DEFAULT_BOOTSTRAP, LAYERS, _check_options, count_sentences, result_document
from .warning_log import WarningLog, as_dicts

_ARRAYS = ("fc", "fp_compact", "cr_compact")
WRITE_ROWS = 1024  # rows copied at a time into a shard's bytes (0.7 MB with the default options)


@dataclass
class ShardCounts:
    """What one shard's counting leaves for the merge (rows in the shard's gold order).

    ``rows`` are the shard's ``fc``, ``fp_compact`` and ``cr_compact`` arrays (read from bytes), or, just
    counted, the :class:`CountRows` on the counting's temporary file: :meth:`to_bytes` then copies them
    into the bytes a block at a time, so that a worker holds the shard's rows once (as bytes), not whole
    as arrays and again as bytes; they are loaded whole only if asked for (``fc``...: a merge in the
    same process). The file is closed when the shard is dropped."""

    rows: CountRows | tuple[np.ndarray, np.ndarray, np.ndarray]
    documents: list[dict]  # the result's "documents" entries of the shard's gold documents
    # each the first MAX_WARNINGS said, as the result could show them (parseval.evaluation.easy.warning_log)
    gold_warnings: list[dict]
    run_warnings: list[dict]  # said while the run documents were read
    late_warnings: list[dict]  # said at the end of the counting (gold documents without a run)
    submitted: dict[str, bool]
    stats: dict[str, int]
    dedup: dict[str, int]
    extra: dict = field(default_factory=dict)  # the caller's own (JSON)
    # how many warnings of each list were said ({"gold": n, "run": n, "late": n}); a list missing: all kept
    warnings_said: dict = field(default_factory=dict)

    def __post_init__(self):
        if isinstance(self.rows, CountRows):
            weakref.finalize(self, self.rows.close)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``fc``, ``fp_compact`` and ``cr_compact``, whole."""
        if isinstance(self.rows, CountRows):
            return self.rows.fc, self.rows.fp_compact, self.rows.cr_compact
        return self.rows

    fc = property(lambda self: self.arrays()[0])
    fp_compact = property(lambda self: self.arrays()[1])
    cr_compact = property(lambda self: self.arrays()[2])

    def _blocks(self, part: int):
        """The rows of array ``part`` (0: fc, 1: fp_compact, 2: cr_compact), a block at a time, and its shape."""
        if not isinstance(self.rows, CountRows):
            whole = self.rows[part]
            return whole.shape, (whole[at:at + WRITE_ROWS] for at in range(0, len(whole), WRITE_ROWS))
        rows = self.rows
        width = (rows.spill.ncols, rows.spill.ncompact, rows.spill.ncompact)[part]
        return (len(rows), width), (rows.split(block)[part] for block in rows.blocks(max_rows=WRITE_ROWS))

    def said(self, which: str) -> tuple[list[dict], int]:
        kept = getattr(self, f"{which}_warnings")
        return kept, self.warnings_said.get(which, len(kept))

    def to_bytes(self) -> bytes:
        meta = {"documents": self.documents, "gold_warnings": self.gold_warnings,
                "run_warnings": self.run_warnings, "late_warnings": self.late_warnings,
                "submitted": self.submitted, "stats": self.stats, "dedup": self.dedup, "extra": self.extra,
                "warnings_said": self.warnings_said}
        # numpy's .npz, as np.savez writes it, each array written from its blocks
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            with archive.open("meta.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8),
                                          allow_pickle=False)
            for part, name in enumerate(_ARRAYS):
                shape, blocks = self._blocks(part)
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array_header_1_0(member, {"descr": np.lib.format.dtype_to_descr(
                        np.dtype(ROW_DTYPE)), "fortran_order": False, "shape": shape})
                    for block in blocks:
                        member.write(np.ascontiguousarray(block, dtype=ROW_DTYPE).data)
        return out.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "ShardCounts":
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode("utf-8"))
            rows = tuple(z[name] for name in _ARRAYS)
        return cls(rows, **meta)


def count_shard(gold_docs, run_docs, genres=None, *, matches: Iterable[str] = MATCHES,
                modes: Iterable[str] = MODES, schema: EasySchema = DEFAULT_SCHEMA, corpus=None,
                max_problems: int | None = DEFAULT_MAX_PROBLEMS,
                progress: Callable[[int, int], None] | None = None) -> ShardCounts:
    """Count one shard: ``gold_docs`` its gold documents (in gold order) and ``run_docs`` their runs, as
    :func:`score_corpus` takes them. Raises :class:`InputError` as the single pass would for these documents."""
    matches, modes = _check_options(tuple(matches), tuple(modes), 0)
    plan, gold, counting = count_sentences(gold_docs, run_docs, genres, matches=matches, modes=modes,
                                           progress=progress, schema=schema, corpus=corpus,
                                           max_problems=max_problems)
    # the shard's own "no <layer>" warnings (counting.layer_warnings) are left: the merge says them for the run
    gold_log, run_log, late_log = (as_dicts(log) for log in (gold.warnings, counting.warnings,
                                                              counting.late_warnings))
    return ShardCounts(counting.rows, documents=gold.documents,
                       gold_warnings=gold_log.kept, run_warnings=run_log.kept, late_warnings=late_log.kept,
                       submitted=dict(counting.submitted), stats=dict(counting.stats), dedup=dict(gold.dedup),
                       warnings_said={"gold": gold_log.total, "run": run_log.total, "late": late_log.total})


def merge(shards: Iterable[ShardCounts], *, matches: Iterable[str] = MATCHES, modes: Iterable[str] = MODES,
          bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED, gold_sha256: str = "",
          schema: EasySchema = DEFAULT_SCHEMA) -> dict:
    """The result document of the shards of one run, given in gold order (as :func:`score_corpus` returns).

    Each shard's rows are written to a :class:`RowSpill` as it comes and the bootstrap reads them from
    there: given a generator (each shard read from its bytes when its turn comes), the merge holds one
    shard's rows at a time, not the corpus's."""
    matches, modes = _check_options(tuple(matches), tuple(modes), bootstrap)
    plan = Plan(schema, matches, modes)
    spill = RowSpill(plan.ncols, plan.ncompact)
    try:
        names: set[str] = set()
        documents, segments = [], []
        gold_warnings, run_warnings, late_warnings = WarningLog(), WarningLog(), WarningLog()
        submitted: dict[str, bool] | None = None
        stats: dict[str, int] = {}
        dedup: dict[str, int] = {}
        for shard in shards:
            for d in shard.documents:
                if d["name"] in names:
                    raise InputError(f"two gold documents share the name {d['name']}")
                names.add(d["name"])
            if shard.fc.shape[1:] != (plan.ncols,) or shard.fp_compact.shape[1:] != (plan.ncompact,):
                raise ValueError("a shard was counted with other range functions, modes or schema")
            if len(shard.fc) != sum(d["gold_sentences"] for d in shard.documents):
                raise ValueError("the shards' rows do not match their documents")
            at, _ = spill.append(shard.fc, shard.fp_compact, shard.cr_compact)
            for d in shard.documents:
                segments.append(Segment(d["genre"], at, d["gold_sentences"], (0, 0)))
                at += d["gold_sentences"]
            documents.extend(shard.documents)
            # each shard kept the first warnings of its lists: laid end to end, the first of the run's
            gold_warnings.add(*shard.said("gold"))
            run_warnings.add(*shard.said("run"))
            late_warnings.add(*shard.said("late"))
            submitted = ({layer: submitted[layer] or shard.submitted[layer] for layer in submitted}
                         if submitted is not None else dict(shard.submitted))
            stats, dedup = _summed((stats, shard.stats)), _summed((dedup, shard.dedup))
        if submitted is None:
            raise InputError("no gold document")
        run_warnings.add(*late_warnings.said())
        run_warnings.extend(Problem(f"the run has no {layer}: layer reported as not submitted").as_dict()
                            for layer in LAYERS if not submitted[layer])
        rows = CountRows(spill, segments, plan.expand)
        return result_document(
            plan, rows, submitted, gold_warnings=gold_warnings, run_warnings=run_warnings,
            documents=documents, counts={"gold_sentences": len(rows), **stats, **dedup},
            bootstrap=bootstrap, seed=seed, gold_sha256=gold_sha256, schema=schema)
    finally:
        spill.close()


def _summed(parts) -> dict[str, int]:
    total: dict[str, int] = {}
    for part in parts:
        for key, value in part.items():
            total[key] = total.get(key, 0) + value
    return total


def split(sizes: list[tuple[str, int]], per_shard: int) -> list[list[str]]:
    """Consecutive documents ``(name, sentences)`` grouped into shards of at most ``per_shard`` sentences (a
    larger document is a shard of its own); one shard when ``per_shard`` is 0 or the run fits in one."""
    if per_shard <= 0:
        return [[name for name, _ in sizes]] if sizes else []
    shards: list[list[str]] = []
    current: list[str] = []
    filled = 0
    for name, n in sizes:
        if current and filled + n > per_shard:
            shards.append(current)
            current, filled = [], 0
        current.append(name)
        filled += n
    if current:
        shards.append(current)
    return shards
