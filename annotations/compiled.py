"""Compiled modules: the hottest scoring modules, compiled from their own Python source where a compiler is.

Reading EASY sentences from their bytes, their word ranges and the one-to-one
matching run once for every gold and run sentence of a corpus: most of the
command's time is Python executing them. ``scripts/build_compiled.py`` (run by
``make install``) compiles each module of :data:`MODULES`, unchanged, with
Cython into an extension module beside its source, and records the source's
SHA-256 in ``compiled.json`` beside it. There is one implementation: the
compiled module is the same code (the same names, the same results, and the
tests run it), only without the interpreter's dispatch; without a compiler
everything runs as plain Python, a little slower.

Python imports an extension module before a source of the same name, so a
compiled module whose source has changed since it was built would silently
run the old code. :func:`guard`, called by each package's ``__init__`` before
it imports anything, sends the import of such a module to its source instead.
``PARSEVAL_PURE_PYTHON=1`` sends every one there (for a profiler or a debugger,
or to compare the two).
"""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

MODULES = ("annotations.easy.canonical", "evaluation.easy.ranges", "evaluation.easy.matching",
           "evaluation.easy.counting")
MANIFEST = "compiled.json"  # in the package folder: {module name: SHA-256 of the source it was built from}
PURE_ENV = "PARSEVAL_PURE_PYTHON"


def source_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extension_of(source: Path) -> Path | None:
    """The extension module built beside ``source`` (``name.<platform tag>.so``), if any."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_suffix(suffix)
        if candidate.exists():
            return candidate
    return None


def is_fresh(source: Path) -> bool:
    """Whether an extension module beside ``source`` was built from that very source."""
    if extension_of(source) is None:
        return False
    try:
        built = json.loads((source.parent / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(built, dict) and built.get(source.stem) == source_sha256(source)


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Imports the named modules from their ``.py`` source, whatever else lies beside it."""

    def __init__(self):
        self.sources: dict[str, Path] = {}

    def find_spec(self, fullname, path=None, target=None):
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


_FINDER = _SourceFirst()


def guard(package: str, folder: str) -> None:
    """Before ``package`` (in ``folder``) imports its compiled modules: those that are stale, or all of them
    under ``PARSEVAL_PURE_PYTHON``, are imported from their source."""
    pure = bool(os.environ.get(PURE_ENV))
    for name in MODULES:
        parent, _, stem = name.rpartition(".")
        if parent != package:
            continue
        source = Path(folder) / f"{stem}.py"
        if extension_of(source) is not None and (pure or not is_fresh(source)):
            _FINDER.sources[name] = source
    if _FINDER.sources and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def running_compiled() -> dict[str, bool]:
    """``{module: whether it runs compiled}`` for every module of :data:`MODULES` (importing them)."""
    out = {}
    for name in MODULES:
        module = importlib.import_module(name)
        out[name] = isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
    return out
