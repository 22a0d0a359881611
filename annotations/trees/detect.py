"""Bracket style and layout detection, and one reader for both styles."""
from __future__ import annotations

import os

from annotations.errors import InputError

from .penn import parse_penn, parse_penn_lines
from .square import parse_square
from .tree import Tree

FORMATS = ("penn", "square")


def detect_format(text: str, *, file: str | None = None) -> str:
    """``"penn"`` or ``"square"`` from the first bracket character of the text."""
    for ch in text:
        if ch == "(":
            return "penn"
        if ch == "[":
            return "square"
        if not ch.isspace():
            break
    stripped = text.strip()
    if not stripped:
        raise InputError("empty input: no tree found", file=os.fspath(file) if file else None)
    line = text[: text.index(stripped[0])].count("\n") + 1
    raise InputError(
        f"cannot tell the bracket style: the first tree should start with '(' or '[', not {stripped[0]!r}",
        file=os.fspath(file) if file else None, line=line, sentence="1",
    )


def is_line_layout(text: str) -> bool:
    """True when the text looks like evalb's one-sentence-per-line layout.

    A file is in *tree layout* (``.mrg`` style) when some non-empty line starts
    with white space (an indented continuation), otherwise in line layout.
    """
    for line in text.splitlines():
        if line and line[0].isspace() and line.strip():
            return False
    return True


def parse_trees(text: str, *, fmt: str | None = None, file: str | None = None) -> list[Tree]:
    """All trees of a text in either style (detected when ``fmt`` is None)."""
    fmt = fmt or detect_format(text, file=file)
    if fmt == "penn":
        return parse_penn(text, file=file)
    if fmt == "square":
        return parse_square(text, file=file)
    raise ValueError(f"unknown tree format {fmt!r} (expected one of {FORMATS})")


def read_trees(path, *, fmt: str | None = None) -> list[Tree]:
    with open(path, encoding="utf-8") as handle:
        return parse_trees(handle.read(), fmt=fmt, file=os.fspath(path))


def read_sentences(
    path, *, fmt: str | None = None, layout: str | None = None, lenient: bool = False, strip_outer: bool = True
):
    """Sentences of a file for pairwise scoring: ``(sentences, lines)``.

    ``lines[i]`` is the line where sentence ``i`` starts. Penn files in line
    layout (detected, or ``layout="lines"``) are read one sentence per line,
    evalb's way (``lenient`` keeps malformed lines as ``BadSentence``); every
    other file is read tree by tree. ``strip_outer`` removes an outer
    unlabelled pair around a single tree (evalb keeps it: pass False).
    """
    path_s = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if not text.strip():
        raise InputError("empty input: no tree found", file=path_s)
    fmt = fmt or detect_format(text, file=path_s)
    if layout is None:
        layout = "lines" if fmt == "penn" and is_line_layout(text) else "trees"
    if layout == "lines":
        if fmt != "penn":
            raise ValueError("line layout is only defined for Penn trees")
        sents = parse_penn_lines(text, file=path_s, lenient=lenient, strip_outer=strip_outer)
        return sents, list(range(1, len(sents) + 1))
    if fmt == "penn":
        from .penn import parse_penn_located

        return parse_penn_located(text, file=path_s, strip_outer=strip_outer)
    from .square import parse_square_located

    return parse_square_located(text, file=path_s)
