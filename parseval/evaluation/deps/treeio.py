"""Reading and writing tree files for the deps/convert/transform/errors commands.

Either bracket style is read (:func:`parseval.annotations.trees.detect.parse_trees` detects it);
trees are written in Penn notation, one per line.
"""
from __future__ import annotations

from pathlib import Path

from parseval.annotations.trees.detect import parse_trees
from parseval.annotations.trees.penn import write_penn
from parseval.annotations.trees.tree import Tree


def read_trees(path: str | Path) -> list[Tree]:
    path = Path(path)
    return parse_trees(path.read_text(encoding="utf-8"), file=str(path))


def read_tree_files(paths) -> list[Tree]:
    out: list[Tree] = []
    for p in paths:
        out.extend(read_trees(p))
    return out


def write_trees(trees: list[Tree]) -> str:
    text = write_penn(trees)
    return text if text.endswith("\n") or not text else text + "\n"
