"""Each result's analysis, computed once by its kind (:meth:`evaluation.kinds.contract.Kind.analyse`) and kept.

A :class:`~evaluation.models.RunAnalysis` per result and analysis schema: the document (JSON, what the pages draw
and the bundle carries) and the index (zlib-compressed JSON, the sentences behind every number, read only by the
pages that list sentences or compare runs, part by part: :class:`Index`). Computed after a test run's scoring (:mod:`evaluation.analysis.tasks`),
else on the first request that needs it; never per page view. Worker code when it computes: it reads gold.
"""
from __future__ import annotations

import json
import logging
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from django.db import IntegrityError, transaction

from campaign import kinds
from evaluation.models import Result, RunAnalysis
from evaluation.results.sentence_rows import RowsUnavailable

SCHEMA = "parseval-analysis/1"
logger = logging.getLogger(__name__)


@dataclass
class Stored:
    """A result's analysis as the pages read it: the document at once, the index when first asked for."""

    row: RunAnalysis

    @property
    def document(self) -> dict:
        return self.row.document

    @cached_property
    def index(self) -> dict:
        return unpack(bytes(self.row.index))


MAGIC = b"PVA1"
BIG_PARTS = ("confusions", "errors")  # their own parts; every bucket table too; the rest is "meta"
ERROR_BLOCK = 1000  # the errors are kept in parts of this many sentences: a sentence view reads one


def _plain(value):
    """``value`` with numpy arrays and arrays of the ``array`` module as lists (JSON's), the rest as is."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        return value.tolist()
    return value


def _compressed(value) -> bytes:
    """``value`` as zlib-compressed JSON (one part at a time: the largest part's text is what is held)."""
    return zlib.compress(json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False).encode("utf-8"), 6)


def _compressed_confusions(confusions: dict) -> bytes:
    """The confusions part as :func:`_compressed` writes it, its JSON text made and compressed a table at a time
    (the same bytes: zlib's output does not depend on how its input is cut)."""
    packer = zlib.compressobj(6)
    out, first = [packer.compress(b"{")], True
    for name, cells in confusions.items():
        text = ("" if first else ",") + json.dumps(name, ensure_ascii=False) + ":" + json.dumps(
            _plain(cells), separators=(",", ":"), ensure_ascii=False)
        out.append(packer.compress(text.encode("utf-8")))
        first = False
    out.append(packer.compress(b"}"))
    out.append(packer.flush())
    return b"".join(out)


def pack(index: dict) -> bytes:
    """The index (:mod:`evaluation.kinds.analysis`) in parts, each compressed JSON, so that a page reads only
    what it needs: the sentence keys and genres ("meta"), one attribute's buckets, the confusions, the errors.
    ``MAGIC``, the header's length (4 bytes), the header (JSON: each part's offset and length), the parts.

    Each part is made and compressed in turn, so that only one part's JSON is held at a time; a compact index
    (``split(..., compact=True)``: numpy arrays, :class:`evaluation.kinds.analysis.Errors`) is written as the
    same bytes as its lists."""
    meta = {k: v for k, v in index.items() if k != "buckets" and k not in BIG_PARTS}
    blobs: dict[str, bytes] = {"meta": b"", "confusions": _compressed_confusions(index.get("confusions", {}))}
    errors = index.get("errors", [])
    streamed = errors.blocks(ERROR_BLOCK) if hasattr(errors, "blocks") else None
    if streamed is None:
        position = {key: i for i, key in enumerate(index.get("keys", []))}
        grouped: dict[int, list] = {}
        for error in errors:
            grouped.setdefault(position.get(error[0], 0) // ERROR_BLOCK, []).append(error)
        streamed = sorted(grouped.items())
    error_blocks, error_count = [], 0
    for block, part in streamed:
        error_blocks.append(block)
        error_count += len(part)
        blobs[f"errors:{block}"] = _compressed(part)
    meta["error_blocks"], meta["error_count"] = sorted(error_blocks), error_count
    for name, table in index.get("buckets", {}).items():  # one part per bucket: a list reads one bucket's
        meta.setdefault("bucket_names", {})[name] = list(table)
        for bucket, entry in table.items():
            blobs[f"bucket:{name}\t{bucket}"] = _compressed(entry)
    blobs["meta"] = _compressed(meta)
    header, offset = {}, 0
    for name, blob in blobs.items():
        header[name] = [offset, len(blob)]
        offset += len(blob)
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return MAGIC + len(head).to_bytes(4, "big") + head + b"".join(blobs.values())


class Index(Mapping):
    """A stored index read part by part, each part when first asked for: ``index["keys"]`` reads the meta part,
    ``index["buckets"][attribute]`` that attribute's table, ``index["errors"]`` the errors."""

    def __init__(self, data: bytes):
        if data[:4] != MAGIC:
            raise ValueError("not a stored analysis index")
        size = int.from_bytes(data[4:8], "big")
        self._header = json.loads(data[8:8 + size].decode("utf-8"))
        self._data, self._start, self._parts = data, 8 + size, {}

    def part(self, name: str):
        if name not in self._parts:
            offset, length = self._header[name]
            blob = self._data[self._start + offset:self._start + offset + length]
            self._parts[name] = json.loads(zlib.decompress(blob).decode("utf-8"))
        return self._parts[name]

    def __getitem__(self, key):
        if key == "buckets":
            return _Buckets(self, self.part("meta").get("bucket_names", {}))
        if key == "errors":
            return [e for block in self.part("meta").get("error_blocks", []) for e in self.part(f"errors:{block}")]
        if key in BIG_PARTS:
            return self.part(key)
        if key in ("error_blocks", "bucket_names", "error_count"):
            raise KeyError(key)
        return self.part("meta")[key]

    def errors_of(self, key: str) -> list:
        """The errors of the sentence ``key`` (reading one part of the errors)."""
        try:
            block = self["keys"].index(key) // ERROR_BLOCK
        except ValueError:
            return []
        if block not in self.part("meta").get("error_blocks", []):
            return []
        return [e for e in self.part(f"errors:{block}") if e[0] == key]

    def _names(self) -> list[str]:
        return [k for k in self.part("meta") if k not in ("error_blocks", "bucket_names", "error_count")] + [
            "buckets", *BIG_PARTS]

    def error_count(self) -> int:
        return self.part("meta").get("error_count", 0)

    def first_errors(self, n: int) -> list:
        """The first ``n`` errors in corpus order (reading only the blocks that hold them)."""
        out = []
        for block in self.part("meta").get("error_blocks", []):
            if len(out) >= n:
                break
            out.extend(self.part(f"errors:{block}"))
        return out[:n]

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class _Buckets(Mapping):
    """``{attribute: {bucket: entry}}``, each bucket's entry read when asked for."""

    def __init__(self, index: Index, names: dict[str, list[str]]):
        self._index, self._names = index, names

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        return _Table(self._index, name, self._names[name])

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class _Table(Mapping):
    def __init__(self, index: Index, attribute: str, buckets: list[str]):
        self._index, self._attribute, self._buckets = index, attribute, buckets

    def __getitem__(self, bucket):
        if bucket not in self._buckets:
            raise KeyError(bucket)
        return self._index.part(f"bucket:{self._attribute}\t{bucket}")

    def __iter__(self):
        return iter(self._buckets)

    def __len__(self) -> int:
        return len(self._buckets)


def unpack(data: bytes) -> Index:
    return Index(data)


def stored(result: Result) -> Stored | None:
    """The kept analysis of ``result``, or None (not computed yet)."""
    row = RunAnalysis.objects.filter(result=result, schema=SCHEMA).first()
    return Stored(row) if row is not None else None


def analysis_of(result: Result, *, compute: bool = True) -> Stored | None:
    """The analysis of ``result``: the kept one, else (``compute``) computed now by its kind and kept. None when the
    kind has none for it (the raw-text track, a kind without analysis) or its files or gold are gone."""
    kept = stored(result)
    if kept is not None or not compute:
        return kept
    started = time.perf_counter()
    try:
        made = kinds.get(result.metric).analyse(result)
    except RowsUnavailable as exc:
        logger.info("no analysis of result %s: %s", result.pk, exc)
        return None
    if made is None:
        return None
    seconds = time.perf_counter() - started
    try:
        with transaction.atomic():
            row = RunAnalysis.objects.create(result=result, schema=SCHEMA, document=made.document,
                                             index=pack(made.index), seconds=seconds)
    except IntegrityError:  # computed at the same time by another request or the worker: keep the first
        row = RunAnalysis.objects.get(result=result, schema=SCHEMA)
    return Stored(row)
