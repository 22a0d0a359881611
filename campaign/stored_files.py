"""Local copies of stored files, for the readers that need a path.

Stored files go through Django's storage API (config/storage.py): on the embedded default they are files
under the var folder, in a deployment on object storage they are objects in a bucket, and there
``FieldFile.path`` does not exist. Most code opens them (``fieldfile.open("rb")``: downloads, zips, the
gold checksum). Some code needs a path: lxml parsing a large gold or run file, archives unpacked by name,
the tree and CoNLL-U readers. All of it asks :func:`local_copy`, and nothing else asks a storage for a path.

* On a storage that has paths (the file system), the stored file itself: no copy, nothing changes for the
  embedded default.
* Otherwise, with the file's checksum (gold, run uploads: their SHA-256 is in the database), a copy in a
  local cache keyed by that checksum (``PARSEVAL_FILE_CACHE_DIR``), because the same gold is read by every
  run of a campaign. The copy is hashed while it is written and kept only if it is the file the database
  names; it is written under a temporary name and renamed, so a second worker process on the machine sees
  the whole file or none. A copy used recently is never evicted (a task may be reading it); beyond that
  the least recently used go once the cache passes ``PARSEVAL_FILE_CACHE_BYTES``.
* Without a checksum (a converted run), a temporary copy removed on exit.

A stored file that is not there raises ``FileNotFoundError`` whatever the storage, as it does on disk; the
object store's other errors are faults of the system (``config.storage.store_faults``), retried by the worker.

A copy is scratch on the machine that reads it; what the store holds is the only copy that counts.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Iterator

from django.conf import settings

logger = logging.getLogger(__name__)
CHUNK = 1024 * 1024
SUFFIX_MAX = 16


class ChecksumMismatch(OSError):
    """A stored file whose bytes are not the ones its checksum names (the store's copy changed under us).

    An ``OSError``: the worker retries it as a fault of the system, which it is."""


def stored_path(file) -> Path | None:
    """The local path of a stored file (a ``FieldFile``, or anything with ``storage`` and ``name``), if its
    storage has paths; ``None`` on object storage."""
    try:
        return Path(file.storage.path(file.name))
    except NotImplementedError:
        return None


@contextlib.contextmanager
def local_copy(file, *, sha256: str | None = None) -> Iterator[Path]:
    """A local path with the bytes of the stored ``file`` for the duration of the block (see the module's note).

    ``sha256``: the stored file's checksum, when known: the copy is cached under it and checked against it.
    """
    local = stored_path(file)
    if local is not None:
        yield local
        return
    suffix = _suffix(file.name)
    if sha256 and (_cache_dir() / f"{sha256.lower()}{suffix}").is_file():
        yield _cached(file, sha256.lower(), suffix)
        return
    if not file.storage.exists(file.name):
        # As a missing file on disk reads: callers tell "the run's file is gone" from any other fault.
        raise FileNotFoundError(errno.ENOENT, "no such stored file", file.name)
    if sha256:
        yield _cached(file, sha256.lower(), suffix)
        return
    fd, name = tempfile.mkstemp(prefix="stored-", suffix=suffix, dir=_cache_dir())
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as out, file.storage.open(file.name, "rb") as src:
            shutil.copyfileobj(src, out, CHUNK)
        yield path
    finally:
        path.unlink(missing_ok=True)


def read_bytes(file, *, sha256: str | None = None) -> bytes:
    """The whole content of a stored file (through the cache when its checksum is known)."""
    with local_copy(file, sha256=sha256) as path:
        return path.read_bytes()


def _suffix(name: str) -> str:
    # Readers that look at a file's name (archives, tree formats) see the stored one's suffixes.
    base = name.rsplit("/", 1)[-1]
    suffix = "".join(Path(base).suffixes)
    return suffix if len(suffix) <= SUFFIX_MAX and suffix.isascii() else ""


def _cache_dir() -> Path:
    path = Path(settings.PARSEVAL_FILE_CACHE_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _cached(file, sha256: str, suffix: str) -> Path:
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise ValueError(f"not a SHA-256 checksum: {sha256!r}")
    cache = _cache_dir()
    target = cache / f"{sha256}{suffix}"
    if target.is_file():
        os.utime(target)  # recently used: kept by the eviction below
        return target
    fd, name = tempfile.mkstemp(prefix=".partial-", dir=cache)
    partial = Path(name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, file.storage.open(file.name, "rb") as src:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != sha256:
            raise ChecksumMismatch(f"{file.name}: the stored file's SHA-256 is {digest.hexdigest()}, "
                                   f"the database says {sha256}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    _evict(cache, keep=target)
    return target


def _evict(cache: Path, *, keep: Path) -> None:
    """Least recently used copies beyond the size bound, never one used within a task's time limit."""
    limit = settings.PARSEVAL_FILE_CACHE_BYTES
    recent = time.time() - settings.CELERY_TASK_TIME_LIMIT
    entries = []
    for entry in cache.iterdir():
        with contextlib.suppress(FileNotFoundError):  # another process evicted it meanwhile
            st = entry.stat()
            entries.append((st.st_mtime, st.st_size, entry))
    total = sum(size for _, size, _ in entries)
    for mtime, size, entry in sorted(entries, key=lambda e: e[0]):
        if total <= limit:
            break
        if entry == keep or mtime >= recent:
            continue
        with contextlib.suppress(FileNotFoundError):
            entry.unlink()
            total -= size
