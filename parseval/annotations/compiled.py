"""Compiled modules: the hottest scoring modules, compiled from their own Python source where a compiler is.

Reading EASY sentences from their bytes, their word ranges, the one-to-one
matching and the counting run once for every gold and run sentence of a
corpus: most of the command's time is Python executing them.
``scripts/build_compiled.py`` (run by ``make install``) compiles each of those
modules (its ``MODULES``), unchanged, with Cython into an extension module
beside its source, and records the source's SHA-256 in ``compiled.json``
beside it. There is one implementation: the compiled module is the same code
(the same names, the same results, and the tests run it), only without the
interpreter's dispatch; without a compiler everything runs as plain Python,
a little slower.

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


def built_from(folder: Path) -> dict:
    """A package folder's manifest: ``{module: SHA-256 of the source its extension was built from}``."""
    try:
        built = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return built if isinstance(built, dict) else {}


def is_fresh(source: Path, built: dict | None = None) -> bool:
    """Whether an extension module beside ``source`` was built from that very source (``built``: its
    folder's manifest, when the caller has read it already)."""
    if extension_of(source) is None:
        return False
    if built is None:
        built = built_from(source.parent)
    return built.get(source.stem) == source_sha256(source)


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
    """Before ``package`` (in ``folder``) imports any of its modules: every extension module in the folder
    that has a source beside it and is stale, or every one under ``PARSEVAL_PURE_PYTHON``, is imported from
    its source. The folder says which modules are compiled: no list to keep in step with the build's."""
    pure = bool(os.environ.get(PURE_ENV))
    built = None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for extension in Path(folder).glob("*" + suffix):
            source = extension.with_name(extension.name[:-len(suffix)] + ".py")
            if built is None and not pure:
                built = built_from(Path(folder))
            if source.exists() and (pure or not is_fresh(source, built)):
                _FINDER.sources[f"{package}.{source.stem}"] = source
    if _FINDER.sources and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def is_compiled(module) -> bool:
    """Whether an imported module runs as an extension module."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
