"""Files: listing and pairing gold and run files, genres, the gold checksum."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Iterable, Mapping

from parseval.annotations.easy.reader import document_key
from parseval.annotations.errors import InputError, Problem
from parseval.annotations.names import genre_of

__all__ = ["list_xml", "genre_of", "read_genres", "pair_files", "gold_sha256", "gold_sha256_bytes"]


def list_xml(path) -> list[Path]:
    """A file, or the ``*.xml`` files of a folder (not recursive), sorted by name."""
    path = Path(path)
    if path.is_dir():
        files = sorted((p for p in path.iterdir() if p.is_file() and p.suffix.lower() == ".xml"),
                       key=lambda p: p.name)
        if not files:
            raise InputError("empty input: no .xml file in this folder", file=str(path))
        return files
    if not path.exists():
        raise InputError("no such file or folder", file=str(path))
    return [path]


def read_genres(path) -> dict[str, str]:
    """Read a genre map: a JSON object ``{name: genre}`` or lines ``name<whitespace>genre`` (``#`` comments).

    Names may be given with or without ``.xml``; keys are normalised to the
    pairing key (base name without ``.xml``).
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    out: dict[str, str] = {}
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"genre map is not valid JSON: {exc.msg}", file=path.name, line=exc.lineno) from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise InputError("genre map must be a JSON object of strings", file=path.name)
        for k, v in data.items():
            out[document_key(k)] = v
        return out
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise InputError(f"expected 'name genre', found {line!r}", file=path.name, line=n)
        out[document_key(parts[0])] = parts[1]
    return out


def pair_files(gold: Iterable[Path], run: Iterable[Path]) -> tuple[list[tuple[str, Path, Path | None]], list[Path], list[Problem]]:
    """Pair gold and run files by base name.

    Returns ``(pairs, unpaired_runs, warnings)`` where ``pairs`` holds
    ``(key, gold_path, run_path_or_None)`` in gold name order.
    """
    gold_map: dict[str, Path] = {}
    problems = []
    for p in gold:
        key = document_key(p.name)
        if key in gold_map:
            problems.append(Problem(f"two gold files share the base name {key}", file=p.name))
        gold_map[key] = p
    run_map: dict[str, Path] = {}
    for p in run:
        key = document_key(p.name)
        if key in run_map:
            problems.append(Problem(f"two run files share the base name {key}", file=p.name))
        run_map[key] = p
    if problems:
        raise InputError(problems)
    pairs = [(k, gold_map[k], run_map.get(k)) for k in sorted(gold_map)]
    unpaired = [run_map[k] for k in sorted(run_map) if k not in gold_map]
    warnings = []
    for k, g, r in pairs:
        if r is None:
            warnings.append(Problem(f"no run file for gold document {k}: its sentences score as empty output",
                                    file=g.name))
    if not any(r is not None for _, _, r in pairs):
        raise InputError("no run file has the base name of a gold file (files are paired by base name)")
    return pairs, unpaired, warnings


def gold_sha256(paths: Iterable) -> str:
    """SHA-256 of a set of gold files, independent of their folder and listing order.

    Files are sorted by base name; for each, the UTF-8 base name, a NUL byte,
    the size in decimal, a NUL byte and the file's bytes are hashed.
    """
    h = hashlib.sha256()
    items = sorted(((Path(p).name, Path(p)) for p in paths), key=lambda t: t[0])
    for name, path in items:
        data = path.read_bytes()
        h.update(name.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    return h.hexdigest()


def gold_sha256_bytes(files: Mapping[str, bytes | Callable[[], bytes]]) -> str:
    """Same checksum as :func:`gold_sha256` from ``{file name: bytes}`` (e.g. files stored in a database); a
    value may be a function returning the bytes, called when the file is hashed, so that one file at a time
    is held."""
    h = hashlib.sha256()
    for name in sorted(files, key=lambda n: Path(n).name):
        data = files[name]
        if callable(data):
            data = data()
        base = Path(name).name
        h.update(base.encode("utf-8") + b"\0" + str(len(data)).encode("ascii") + b"\0")
        h.update(data)
    return h.hexdigest()
