"""Per result, what the paired tests need of its run, computed once and kept on the worker's disk.

A pair's values depend on its two runs through each run's :class:`~parseval.evaluation.paired.RunFigures`
only: its point figures per stratum and its centred fixed-point resampled figures (int32; exact integers,
so that figures kept and figures recomputed give the same sums, bit for bit). Computing them resamples the
run's rows (about 0.11 s of CPU per EASY run); a new run's pairs need those of every run already there. So
they are kept, per result and context, as numpy files under the var folder (``var/cache/significance``, or
``PARSEVAL_SIGNIFICANCE_CACHE_DIR``), which the significance worker reads memory-mapped, a chunk of rows at
a time, so that a hundred runs' figures are never all in memory.

* The key of an entry: the result (its id, creation time, run checksum, gold checksum, scorer version,
  kind) and the context of the pairs (:func:`evaluation.significance.sets._context`: method, resamples,
  seed, figures, gold, the test sentences and their genres), with :data:`FORMAT`. The file's name holds a
  digest of it, the entry the key itself: an entry of another key (another database's result of the same
  id, a changed context) is not used.
* An entry is a cache: one missing, half written, damaged (its XXH3-64 digest, checked when opened, differs) or of
  another key is ignored and the figures are computed again from the rows and written again. Two workers
  writing one entry write the same bytes, each under a temporary name renamed into place.
* The test sentences of a result (its rows' keys and genres) are kept the same way, so that a computation
  whose runs are all kept reads no run's rows at all.
* :func:`sweep` bounds the folder: it removes the entries whose result no longer has that fingerprint (or is
  gone), the figures whose result and context no significance set still compares, and then, past
  ``PARSEVAL_SIGNIFICANCE_CACHE_BYTES``, the least recently used (an entry read is touched). An entry used
  within the task's time limit is never removed: a computation may be reading it.
"""
from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np
import xxhash
from django.conf import settings

from evaluation.models import Result, SentenceRows, SignificanceFigure, SignificanceSet
from evaluation.results.sentence_rows import RunRows, rows_of
from evaluation.significance import packing
from parseval.evaluation import paired

logger = logging.getLogger(__name__)

# 2: the figures' data checked by XXH3-64 (the xxhash package) instead of CRC-32 (a hundred runs' 800 MB read
# and checked in 0.10 s of CPU instead of 0.26 s, for each computation), the key files packed arrays instead of
# numpy's zip archives (SUFFIXES)
FORMAT = 2


def cache_dir() -> Path:
    path = Path(getattr(settings, "PARSEVAL_SIGNIFICANCE_CACHE_DIR", None)
                or Path(settings.VAR_DIR) / "cache" / "significance")
    path.mkdir(parents=True, exist_ok=True)
    return path


def fingerprint(result: Result) -> list:
    """What names a result's rows: they are computed once per result and never change."""
    return [result.pk, result.created_at.isoformat(), result.run.sha256, result.gold_sha256, result.scorer_version,
            result.metric]


def _digest(key) -> str:
    return hashlib.sha256(json.dumps(key, separators=(",", ":")).encode()).hexdigest()[:32]


def _key_text(key) -> str:
    return json.dumps(key, separators=(",", ":"))


def _write(path: Path, write: Callable) -> bool:
    """``write(file object)`` to a temporary file renamed to ``path``; False when it cannot be stored."""
    try:
        fd, name = tempfile.mkstemp(prefix=".partial-", dir=path.parent)
    except OSError as exc:
        logger.warning("significance cache %s not stored: %s", path.name, exc)
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.replace(name, path)
        return True
    except OSError as exc:  # a cache: the computation goes on without it
        logger.warning("significance cache %s not stored: %s", path.name, exc)
        return False
    finally:
        Path(name).unlink(missing_ok=True)


def sentences(result: Result) -> tuple[RunRows, dict]:
    """The result's test sentences (keys and genres, ``rows`` None) and its parameters (its document's): kept,
    or read from its stored rows and its document."""
    key = _key_text([FORMAT, "sentences", fingerprint(result)])
    path = cache_dir() / f"{result.pk}-{_digest(key)}{SENTENCES}"
    try:
        z = packing.unpack(path.read_bytes())
        if str(z["key"]) == key:
            _touch(path)
            return RunRows(z["keys"], z["strata"], None), json.loads(str(z["parameters"]))
        logger.warning("significance cache %s: of another result, not used", path.name)
    except FileNotFoundError:
        pass
    except Exception as exc:  # damaged or half written: read again
        logger.warning("significance cache %s not used: %s", path.name, exc)
    stored = SentenceRows.objects.filter(result=result).values_list("data", flat=True).first()
    if stored is not None:  # the keys and genres only, not the rows
        with np.load(io.BytesIO(bytes(stored)), allow_pickle=False) as z:
            keys, strata = z["keys"], z["strata"]
    else:
        found = rows_of(result)  # computed and kept (RowsUnavailable when it cannot be)
        keys, strata = found.keys, found.strata
    if "document" in result.get_deferred_fields():  # its parameters only: not the engine's whole output
        # (megabytes), which would stay loaded on the result for the whole computation
        parameters = Result.objects.filter(pk=result.pk).values_list("document__parameters", flat=True).first()
    else:
        parameters = (result.document or {}).get("parameters")
    parameters = parameters or {}
    _write(path, lambda fh: fh.write(packing.pack({
        "key": np.array(key), "keys": keys, "strata": strata,
        "parameters": np.array(json.dumps(parameters, sort_keys=True))}, level=0)))
    return RunRows(keys, strata, None), parameters


class StoredRows:
    """The fixed-point figures of one entry, read a chunk of rows at a time from the file (no mapping kept
    open): a hundred runs' figures are never all resident. The file is opened at the first read and kept
    open until the entry is dropped (a computation reads each run's file about a hundred times: opening it
    each time cost more than reading)."""

    def __init__(self, path: Path, shape: tuple[int, int], offset: int):
        self.path, self.shape, self.offset = path, shape, offset
        self._fd: int | None = None

    def __getitem__(self, rows: slice) -> np.ndarray:
        start, stop, _ = rows.indices(self.shape[0])
        width = self.shape[1]
        out = np.empty((max(stop - start, 0), width), dtype=np.int32)
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY)
        if os.preadv(self._fd, [memoryview(out).cast("B")], self.offset + start * width * 4) != out.nbytes:
            raise OSError(f"{self.path.name}: shorter than its header says")
        return out

    def __del__(self):
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def run_figures(result: Result, context: str, figures, strata_count: int, sentence_count: int, draws: Callable,
                rows: Callable[[], np.ndarray]) -> paired.RunFigures:
    """The result's :class:`~parseval.evaluation.paired.RunFigures` in ``context``: the kept entry, or computed
    from ``rows()`` with ``draws()`` (:func:`parseval.evaluation.paired.shared_draws`) and kept."""
    key = _key_text([FORMAT, "figures", fingerprint(result), context])
    stem = cache_dir() / f"{result.pk}-{_digest(key)}"
    found = _load(stem, key, figures, strata_count, sentence_count)
    if found is not None:
        return found
    computed = paired.run_figures(rows(), figures, draws())
    if computed.fixed is None:  # a figure beyond [0, 1]: not kept (the pairs are computed from the rows)
        return computed
    fixed = np.ascontiguousarray(computed.fixed)
    check = _digest_of(fixed.data)
    if _write(stem.with_suffix(".npy"), lambda fh: np.save(fh, fixed, allow_pickle=False)) and _write(
            stem.with_suffix(META), lambda fh: fh.write(packing.pack({
                "key": np.array(key), "point": computed.point, "sums": computed.sums, "digests": computed.digests,
                "check": np.array(check, dtype=np.uint64)}, level=0))):
        # read back as any later computation will, but for the digest of the bytes just written (9 MB per EASY run)
        found = _load(stem, key, figures, strata_count, sentence_count, checked=False)
        if found is not None:
            return found
    return computed


def _load(stem: Path, key: str, figures, strata_count: int, sentence_count: int,
          checked: bool = True) -> paired.RunFigures | None:
    meta, data = stem.with_suffix(META), stem.with_suffix(".npy")
    try:
        z = packing.unpack(meta.read_bytes())
        if str(z["key"]) != key:
            logger.warning("significance cache %s: of another key, not used", meta.name)
            return None
        point, sums, digests, check = (np.array(z["point"]), np.array(z["sums"]), np.array(z["digests"]),
                                       int(z["check"]))
        mapped = np.load(data, mmap_mode="r", allow_pickle=False)
        try:
            rows = paired.figure_rows(figures, strata_count)[-1][1] if paired.split(figures) else 0
            keys = len(paired.keys_of(figures))
            if (mapped.dtype != np.int32 or mapped.ndim != 2 or mapped.shape[0] != rows
                    or point.shape != (strata_count, keys) or sums.shape != (2, rows)
                    or digests.shape != (len(paired.split(figures)), sentence_count)
                    or (checked and _digest_of(mapped.data) != check)):
                logger.warning("significance cache %s: damaged, not used", data.name)
                return None
            shape, offset = mapped.shape, mapped.offset
        finally:
            del mapped
    except FileNotFoundError:
        return None
    except Exception as exc:  # half written, truncated, unreadable: computed again
        logger.warning("significance cache %s not used: %s", stem.name, exc)
        return None
    _touch(meta)
    return paired.RunFigures(point, StoredRows(data, shape, offset), sums, digests)


def _digest_of(data) -> int:
    """What tells a damaged entry's figures: a non-cryptographic 64-bit digest (an entry is the worker's own
    file, written under a temporary name and renamed: what it guards against is the disk, not a writer)."""
    return xxhash.xxh3_64_intdigest(data)


def _touch(path: Path) -> None:
    """Used now: the last to go when the folder is past its bound (:func:`sweep`)."""
    try:
        os.utime(path)
    except OSError:
        pass


# -- the folder's bound ---------------------------------------------------------------------------------------

PARTIAL = ".partial-"
# An entry's key files (packed arrays, :mod:`evaluation.significance.packing`, uncompressed: read by every
# computation, a hundred runs' in 0.03 s where numpy's zip archives took 0.14 s); those of format 1 were
# numpy's .npz, still listed so that the sweep removes them
META, SENTENCES = ".meta.pack", ".sentences.pack"
KEYED = (SENTENCES, META, ".sentences.npz", ".meta.npz")
SUFFIXES = (*KEYED, ".npy")


def _entries(folder: Path) -> tuple[dict[str, list], list]:
    """``{stem: [(path, size, mtime), ...]}`` of the folder's entries (an entry's figures are two files, its
    sentences one), and the temporary files of writers (``(path, size, mtime)``)."""
    entries: dict[str, list] = {}
    partial = []
    with os.scandir(folder) as found:
        for item in found:
            try:
                st = item.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed meanwhile
                continue
            if not item.is_file(follow_symlinks=False):
                continue
            record = (Path(item.path), st.st_size, st.st_mtime)
            if item.name.startswith(PARTIAL):
                partial.append(record)
                continue
            for suffix in SUFFIXES:
                if item.name.endswith(suffix):
                    stem = item.name[:-len(suffix)]
                    stem += ".sentences" if suffix.startswith(".sentences") else ""
                    entries.setdefault(stem, []).append(record)
                    break
    return entries, partial


def _entry_key(files: list) -> list | None:
    """An entry's key (``[FORMAT, what, fingerprint, context...]``), None when it cannot be read (half of a
    figures entry, a damaged file)."""
    keyed = [path for path, _, _ in files if path.name.endswith(KEYED)]
    if len(keyed) != 1 or (keyed[0].name.endswith(META) and len(files) != 2) or not keyed[0].name.endswith(
            (META, SENTENCES)):
        return None  # half of an entry, or one of format 1
    try:
        key = json.loads(str(packing.unpack(keyed[0].read_bytes())["key"]))
    except Exception:
        return None
    return key if isinstance(key, list) and len(key) >= 3 else None


def _live(key: list, results: dict, compared: set) -> bool:
    if key[0] != FORMAT or not isinstance(key[2], list) or not key[2]:
        return False
    pk = key[2][0]
    if results.get(pk) != key[2]:  # gone, or another result of that id (another database)
        return False
    if key[1] == "sentences":
        return True
    return key[1] == "figures" and len(key) == 4 and (key[3], pk) in compared


def sweep(limit: int | None = None, *, now: float | None = None) -> dict:
    """Remove the entries no computation will read again, then the least recently used past ``limit`` bytes
    (``PARSEVAL_SIGNIFICANCE_CACHE_BYTES``); what it found and removed, in entries and bytes.

    Removed: an entry whose result is gone or is another (its fingerprint differs), of another
    :data:`FORMAT`, unreadable, or half of one; figures whose result and context no stored significance set
    compares (a set's context changes with its seed, resamples, gold, figures or test sentences; a re-scored
    run's results are new ones); a writer's temporary file. Every entry is safe to remove (it is computed
    again when needed), but none used within the task's time limit is: a computation running may be reading
    it, or may have written it for a set not stored yet."""
    limit = settings.PARSEVAL_SIGNIFICANCE_CACHE_BYTES if limit is None else limit
    now = time.time() if now is None else now
    recent = now - settings.CELERY_TASK_TIME_LIMIT
    entries, partial = _entries(cache_dir())
    total = sum(size for files in entries.values() for _, size, _ in files) + sum(s for _, s, _ in partial)
    outcome = {"entries": len(entries), "bytes": total, "stale": 0, "evicted": 0}
    removed = 0
    for path, size, mtime in partial:
        if mtime < recent:  # its writer died: a live writer renames it within the task's time limit
            path.unlink(missing_ok=True)
            removed += size
    keys = {stem: _entry_key(files) for stem, files in entries.items()
            if max(mtime for _, _, mtime in files) < recent}
    pks = {key[2][0] for key in keys.values() if key and isinstance(key[2], list) and key[2]}
    results = {r.pk: fingerprint(r) for r in Result.objects.filter(pk__in=[pk for pk in pks if isinstance(pk, int)])
               .select_related("run").only("pk", "created_at", "run__sha256", "gold_sha256", "scorer_version",
                                           "metric")}
    # Per set its results and its contexts (a track's each), not every figure row's list of results: at a
    # hundred runs those are thousands of rows of a hundred ids
    contexts: dict[int, set] = {}
    for set_id, context in SignificanceFigure.objects.values_list("set_id", "context").distinct():
        contexts.setdefault(set_id, set()).add(context)
    compared = {(context, pk) for set_id, ids in SignificanceSet.objects.filter(pk__in=list(contexts))
                .values_list("pk", "results") for context in contexts[set_id] for pk in ids or ()}
    kept = []
    for stem, files in entries.items():
        size = sum(s for _, s, _ in files)
        if stem in keys and (keys[stem] is None or not _live(keys[stem], results, compared)):
            _remove(files)
            removed += size
            outcome["stale"] += 1
        else:
            kept.append((max(mtime for _, _, mtime in files), size, files))
    left = total - removed
    for mtime, size, files in sorted(kept, key=lambda e: e[0]):
        if left <= limit:
            break
        if mtime >= recent:
            continue
        _remove(files)
        left -= size
        outcome["evicted"] += 1
    outcome["bytes_left"] = left
    return outcome


def _remove(files: list) -> None:
    # the key's file first: a reader that finds the figures without it computes them again
    for path, _, _ in sorted(files, key=lambda f: not f[0].name.endswith(KEYED)):
        path.unlink(missing_ok=True)


def sweep_safely() -> dict | None:
    """:func:`sweep` after a computation: a sweep that fails (a database away) is logged, never the task's
    failure; the next one does its work."""
    try:
        return sweep()
    except Exception:
        logger.warning("significance cache not swept", exc_info=True)
        return None
