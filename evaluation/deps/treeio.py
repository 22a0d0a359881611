"""Reading tree files for the deps/convert/transform/errors commands.

Penn round brackets are read with :func:`annotations.trees.penn.read_penn`
(tree layout: one or many trees per line, or spread over lines). Files whose
first bracket is ``[`` are square-bracket trees, read with
``annotations.trees.square`` when that reader is available.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from annotations.errors import InputError
from annotations.trees.tree import Tree


def read_trees(path: str | Path) -> list[Tree]:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:  # the constituency reader that detects the bracket style, when present
        from annotations.trees.detect import parse_trees
    except ImportError:
        parse_trees = None
    if parse_trees is not None:
        return parse_trees(text, file=str(path))
    first = text.lstrip()[:1]
    if first == "[":
        try:
            square = importlib.import_module("annotations.trees.square")
        except ModuleNotFoundError:
            raise InputError("square-bracket trees are not supported in this build", file=str(path)) from None
        for name in ("parse_square", "parse_square_trees"):
            if hasattr(square, name):
                return getattr(square, name)(text, file=str(path))
        raise InputError("square-bracket reader has no parse_square()", file=str(path))
    from annotations.trees.penn import parse_penn

    return parse_penn(text, file=str(path))


def read_tree_files(paths) -> list[Tree]:
    out: list[Tree] = []
    for p in paths:
        out.extend(read_trees(p))
    return out


def write_trees(trees: list[Tree]) -> str:
    try:
        from annotations.trees.penn import write_penn
    except ImportError:  # pragma: no cover - the Penn module is part of the project
        return "".join(t.to_penn() + "\n" for t in trees)
    text = write_penn(trees)
    return text if text.endswith("\n") or not text else text + "\n"
