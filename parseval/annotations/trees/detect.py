"""Bracket style and layout detection, and one reader for both styles."""
from __future__ import annotations

import os

from parseval.annotations.errors import InputError, N_

from .penn import C_SPACE, parse_penn, parse_penn_lines
from .square import parse_square
from .tree import Tree
from parseval.annotations.trees.square import parse_square_located
from parseval.annotations.trees.penn import parse_penn_located

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
        raise InputError(N_("empty input: no tree found"), file=os.fspath(file) if file else None)
    line = text[: text.index(stripped[0])].count("\n") + 1
    raise InputError(
        N_("cannot tell the bracket style: the first tree should start with '(' or '[', not %(stripped)r") % {"stripped": stripped[0]},
        file=os.fspath(file) if file else None, line=line, sentence="1",
    )


def layout_of_lines(lines, *, file: str | None = None) -> str:
    """``"lines"`` (one sentence per line, evalb's layout) or ``"trees"`` for Penn text given line by line.

    Decided on the brackets, not on indentation:

    * every non-empty line balanced on its own -> ``lines`` (each line is a
      complete sentence: an indented line or an empty line, a parser's
      failure, changes nothing);
    * otherwise, when the text is balanced as a whole (some tree spans
      several lines) -> ``trees``; but when such a file also holds empty lines
      and mostly one-line sentences, it could be a line file with an empty
      failure line and a broken line as well as a tree file with separators:
      the two readings pair sentences differently, so :class:`InputError`
      asks for ``--layout``;
    * neither: ``lines`` when most lines are balanced or no line is indented
      (a line file with malformed lines, each an error sentence), else
      ``trees`` (whose reader then says where the brackets go wrong).
    """
    counter = LayoutCounter()
    add = counter.add
    for line in lines:
        add(line)
    return counter.layout(file=file)


class LayoutCounter:
    """What :func:`layout_of_lines` counts, fed line by line, so that a reader can confirm the layout as it
    streams: :meth:`add_balanced` takes a line the reader already found to be one well-formed tree (balanced
    and never closing more than it opened), which costs nothing to count."""

    __slots__ = ("depth", "lowest", "balanced", "unbalanced", "empty", "indented")

    def __init__(self) -> None:
        self.depth = self.lowest = self.balanced = self.unbalanced = self.empty = self.indented = 0

    def add_balanced(self, line: str) -> None:
        self.balanced += 1
        if line[0] in C_SPACE:
            self.indented += 1

    def add(self, line: str) -> None:
        opened = line.count("(")
        closed = line.count(")")
        if not opened and not closed and not line.strip(C_SPACE):
            self.empty += 1
            return
        if line[0] in C_SPACE:
            self.indented += 1
        if opened == closed and _never_negative(line, opened):
            self.balanced += 1
        else:
            self.unbalanced += 1
        self.depth += opened - closed
        self.lowest = min(self.lowest, self.depth)

    def layout(self, *, file: str | None = None) -> str:
        """The layout of the lines counted so far (see :func:`layout_of_lines`)."""
        if not self.unbalanced:
            return "lines"
        balanced, unbalanced = self.balanced, self.unbalanced
        as_trees = self.depth == 0 and self.lowest == 0
        if as_trees:
            if self.empty and balanced > unbalanced:
                raise InputError(
                    N_("cannot tell the layout: most lines are whole sentences (evalb's one-sentence-per-line layout, where an empty line is a sentence) but %(unbalanced)s line(s) hold only part of a tree (tree layout, where empty lines separate trees); say which with --layout lines or --layout trees") % {"unbalanced": unbalanced},
                    file=os.fspath(file) if file else None,
                )
            return "trees"
        return "lines" if balanced >= unbalanced or not self.indented else "trees"


def _never_negative(line: str, opened: int) -> bool:
    if not opened:
        return True
    if line.find(")") > line.find("("):
        depth = 0
        for ch in line:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth < 0:
                    return False
        return True
    return False


def detect_layout(text: str, *, file: str | None = None) -> str:
    """:func:`layout_of_lines` for a whole text."""
    return layout_of_lines(text.split("\n"), file=file)


def is_line_layout(text: str) -> bool:
    """True when :func:`detect_layout` says ``"lines"`` (raises when the layout is ambiguous)."""
    return detect_layout(text) == "lines"


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


def _read_utf8(path, name: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            N_('not UTF-8: byte 0x%(data)s cannot be decoded (the evalb preset without --transform reads any bytes, as evalb does; convert the file to UTF-8 for the other metrics)') % {"data": format(data[exc.start], '02x')},
            file=name, line=line,
        ) from None


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
    text = _read_utf8(path, path_s)
    if not text.strip():
        raise InputError(N_("empty input: no tree found"), file=path_s)
    fmt = fmt or detect_format(text, file=path_s)
    if layout is None:
        layout = detect_layout(text, file=path_s) if fmt == "penn" else "trees"
    if layout == "lines":
        if fmt != "penn":
            raise ValueError("line layout is only defined for Penn trees")
        sents = parse_penn_lines(text, file=path_s, lenient=lenient, strip_outer=strip_outer)
        return sents, list(range(1, len(sents) + 1))
    if fmt == "penn":
        return parse_penn_located(text, file=path_s, strip_outer=strip_outer)

    return parse_square_located(text, file=path_s)
