"""Each result's analysis, computed once by its kind (:meth:`evaluation.kinds.contract.Kind.analyse`) and kept.

A :class:`~evaluation.models.RunAnalysis` per result and analysis schema: the document (JSON, what the pages draw
and the bundle carries) and the index (zlib-compressed JSON, the sentences behind every number, read only by the
pages that list sentences or compare runs). Computed after a test run's scoring (:mod:`evaluation.analysis.tasks`),
else on the first request that needs it; never per page view. Worker code when it computes: it reads gold.
"""
from __future__ import annotations

import json
import logging
import time
import zlib
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


def pack(index: dict) -> bytes:
    return zlib.compress(json.dumps(index, separators=(",", ":"), ensure_ascii=False).encode("utf-8"), 6)


def unpack(data: bytes) -> dict:
    return json.loads(zlib.decompress(data).decode("utf-8"))


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
