"""Penn Treebank round-bracket trees: reading and writing.

Two readers:

* :func:`parse_penn` / :func:`read_penn` -- *tree layout*: any number of trees,
  one or many per line or spread over several lines (the ``.mrg`` style).
  An outer unlabelled pair ``( (S ...) )`` around a single tree is removed;
  everything else is kept as written: ``TOP``/``ROOT`` nodes, unlabelled
  nodes ``((VPAST did) (NEG not))``, ``-NONE-`` elements, function tags
  (``NP-SBJ-1`` stays ``NP-SBJ-1``).
* :func:`parse_penn_lines` / :func:`read_penn_lines` -- *line layout*, the
  way evalb reads its files: one sentence per line, paired by line number.
  An empty line is an empty sentence; a line holding several top-level
  trees (``(P this) (Q is)``) is one sentence whose root is a
  :class:`Forest`, a container that is not itself a bracket. The outer
  unlabelled pair is *kept* by default here, because evalb counts it as a
  bracket with an empty label.

A label is the token written immediately after ``(`` (no space): ``( word)``
is an unlabelled node over a word, ``(word)`` is a node labelled ``word``
with no children.

Errors (unbalanced brackets, a word outside any bracket, an empty file, a
tree nested deeper than :data:`parseval.annotations.limits.MAX_TREE_DEPTH`) are
raised as :class:`~parseval.annotations.errors.InputError` carrying file, line and
sentence number (1-based, counting trees in tree layout and lines in line
layout). In line layout, ``lenient=True`` turns a malformed line into a
:class:`BadSentence` placeholder instead, the way evalb counts such a line as
an error sentence and goes on.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable

from parseval.annotations.errors import InputError, Problem, N_
from parseval.annotations.limits import MAX_TREE_DEPTH, depth_message

from .tree import Tree

__all__ = [
    "C_SPACE",
    "Forest",
    "BadSentence",
    "parse_penn",
    "parse_penn_located",
    "read_penn",
    "write_penn",
    "parse_penn_lines",
    "read_penn_lines",
    "to_penn",
]

# White space between tokens is C's isspace in the C locale, as in evalb: space, tab, newline,
# vertical tab, form feed, carriage return. Any other character, a no-break space (U+00A0,
# ordinary French typography: "10\u00a0000"), U+202F, U+2028, U+0085, \x1c-\x1f, is part of a token.
C_SPACE = " \t\n\r\f\v"

# (label of an opening bracket, closing bracket, word): exactly one group is non-empty,
# except for an unlabelled opening bracket where all three are empty
_TOKEN = re.compile(r"\(([^ \t\n\r\f\v()]*)|(\))|([^ \t\n\r\f\v()]+)")


class Forest(Tree):
    """Root of a line-layout sentence that holds zero or several top-level trees.

    It has an empty label and is *not* a bracket: metrics skip it (evalb scores
    ``(P this) (Q is)`` as a sentence with no brackets at all).
    """

    def copy(self) -> "Forest":
        return Forest("", [c.copy() for c in self.children])

    def to_penn(self) -> str:
        return " ".join(c.to_penn() for c in self.children)


@dataclass
class BadSentence:
    """Placeholder for a malformed line read with ``lenient=True``."""

    problem: Problem

    def words(self) -> list[str]:
        return []


def _where(file: str | None) -> str | None:
    return os.fspath(file) if file is not None else None


def _strip_outer(node: Tree) -> Tree:
    if node.label == "" and len(node.children) == 1 and not node.children[0].is_word:
        return node.children[0]
    return node


def parse_penn(text: str, *, file: str | None = None, strip_outer: bool = True) -> list[Tree]:
    """Every tree in ``text`` (tree layout), in order.

    Raises :class:`InputError` on unbalanced brackets, a word outside any
    bracket, or a text with no tree at all.
    """
    return parse_penn_located(text, file=file, strip_outer=strip_outer)[0]


def parse_penn_located(
    text: str, *, file: str | None = None, strip_outer: bool = True
) -> tuple[list[Tree], list[int]]:
    """Like :func:`parse_penn`, plus the line (1-based) on which each tree starts."""
    file = _where(file)
    trees: list[Tree] = []
    lines: list[int] = []
    stack: list[Tree] = []
    start_line = 0
    findall = _TOKEN.findall
    for lineno, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028 is no line break
        for label, close, word in findall(line):
            if close:
                if not stack:
                    raise InputError(
                        N_("unbalanced brackets: ')' with no matching '('"),
                        file=file, line=lineno, sentence=str(max(len(trees), 1)),
                    )
                node = stack.pop()
                if not stack:
                    trees.append(_strip_outer(node) if strip_outer else node)
                    lines.append(start_line)
            elif word:
                if not stack:
                    raise InputError(
                        N_('word %(word)r outside any bracket') % {"word": word},
                        file=file, line=lineno, sentence=str(len(trees) + 1),
                    )
                stack[-1].children.append(Tree("", [], word))
            else:
                node = Tree(label, [])
                if stack:
                    if len(stack) >= MAX_TREE_DEPTH:
                        raise InputError(depth_message(), file=file, line=lineno, sentence=str(len(trees) + 1))
                    stack[-1].children.append(node)
                else:
                    start_line = lineno
                stack.append(node)
    if stack:
        raise InputError(
            N_("unbalanced brackets: %(n_stack)s '(' never closed (tree starts on line %(start_line)s)") % {"n_stack": len(stack), "start_line": start_line},
            file=file, line=start_line, sentence=str(len(trees) + 1),
        )
    if not trees:
        raise InputError(N_("empty input: no tree found"), file=file)
    return trees, lines


def read_penn(path, *, strip_outer: bool = True) -> list[Tree]:
    """Read a Penn file (tree layout). See :func:`parse_penn`."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return parse_penn(text, file=os.fspath(path), strip_outer=strip_outer)


def _parse_line(line: str, lineno: int, file: str | None, strip_outer: bool) -> Tree:
    tops: list[Tree] = []
    stack: list[Tree] = []
    for label, close, word in _TOKEN.findall(line):
        if close:
            if not stack:
                raise InputError(N_("unbalanced brackets: too many ')'"), file=file, line=lineno, sentence=str(lineno))
            stack.pop()
        elif word:
            if not stack:
                raise InputError(N_('word %(word)r outside any bracket') % {"word": word}, file=file, line=lineno, sentence=str(lineno))
            stack[-1].children.append(Tree("", [], word))
        else:
            if len(stack) >= MAX_TREE_DEPTH:
                raise InputError(depth_message(), file=file, line=lineno, sentence=str(lineno))
            node = Tree(label, [])
            (stack[-1].children if stack else tops).append(node)
            stack.append(node)
    if stack:
        raise InputError(
            N_("unbalanced brackets: %(n_stack)s '(' never closed") % {"n_stack": len(stack)}, file=file, line=lineno, sentence=str(lineno)
        )
    if len(tops) == 1:
        return _strip_outer(tops[0]) if strip_outer else tops[0]
    return Forest("", tops)


def parse_penn_lines(
    text: str, *, file: str | None = None, strip_outer: bool = False, lenient: bool = False
) -> list[Tree | BadSentence]:
    """One sentence per line (evalb's layout). An empty line is an empty :class:`Forest`.

    With ``lenient=True`` a malformed line becomes a :class:`BadSentence`
    instead of raising. A file with no line at all raises :class:`InputError`.
    """
    file = _where(file)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline does not start a sentence
    if not lines:
        raise InputError(N_("empty input: no sentence found"), file=file)
    out: list[Tree | BadSentence] = []
    for lineno, line in enumerate(lines, 1):
        try:
            out.append(_parse_line(line.rstrip("\r"), lineno, file, strip_outer))
        except InputError as exc:
            if not lenient:
                raise
            out.append(BadSentence(exc.problems[0]))
    return out


def read_penn_lines(path, *, strip_outer: bool = False, lenient: bool = False) -> list[Tree | BadSentence]:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return parse_penn_lines(text, file=os.fspath(path), strip_outer=strip_outer, lenient=lenient)


def to_penn(tree: Tree) -> str:
    """One-line Penn rendering that :func:`parse_penn` reads back to an equal tree."""
    return tree.to_penn()


def write_penn(trees: Iterable[Tree]) -> str:
    """One tree per line, each line ending with a newline."""
    return "".join(tree.to_penn() + "\n" for tree in trees)
