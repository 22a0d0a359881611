"""Sampson-style square-bracket trees with bare words: ``[S [NP the cat ] sat ]``.

The label is the token written immediately after ``[`` (``[S``); a ``[``
followed by a space opens an unlabelled node. Words are bare tokens: there is
no part-of-speech layer. So that ``[NP it ]`` stays a phrasal node (the
shared :class:`Tree` would otherwise see a node over a single word as a
preterminal), each bare word is read as a preterminal with an *empty* tag:
``[NP it ]`` is ``Tree("NP", [Tree("", [leaf("it")])])``, whose Penn form is
``(NP ( it))``. Metrics never count preterminals as constituents and
``tagged_words()`` gives the tag ``''``, as for any untagged word. Trees may be
one or many per line or spread over lines, like Penn trees; errors (a tree
nested deeper than :data:`parseval.annotations.limits.MAX_TREE_DEPTH` included) carry
file, line and sentence number.

Writing: :func:`write_square` prints one tree per line; preterminals of a
Penn tree lose their tag (``(DT the)`` is written ``the``), since the format
has no tag layer.
"""
from __future__ import annotations

import os
import re
from typing import Iterable

from parseval.annotations.errors import InputError, N_
from parseval.annotations.limits import MAX_TREE_DEPTH, depth_message

from .tree import Tree

__all__ = ["parse_square", "parse_square_located", "read_square", "write_square", "to_square"]

_TOKEN = re.compile(r"\[([^\s\[\]]*)|\]|[^\s\[\]]+")


def parse_square(text: str, *, file: str | None = None) -> list[Tree]:
    """Every square-bracket tree in ``text``, in order (see the module doc)."""
    return parse_square_located(text, file=file)[0]


def parse_square_located(text: str, *, file: str | None = None) -> tuple[list[Tree], list[int]]:
    """Like :func:`parse_square`, plus the line (1-based) on which each tree starts."""
    file = os.fspath(file) if file is not None else None
    trees: list[Tree] = []
    lines: list[int] = []
    stack: list[Tree] = []
    start_line = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in _TOKEN.finditer(line):
            tok = m.group(0)
            if tok[0] == "[":
                node = Tree(m.group(1), [])
                if stack:
                    if len(stack) >= MAX_TREE_DEPTH:
                        raise InputError(depth_message(), file=file, line=lineno, sentence=str(len(trees) + 1))
                    stack[-1].children.append(node)
                else:
                    start_line = lineno
                stack.append(node)
            elif tok == "]":
                if not stack:
                    raise InputError(
                        N_("unbalanced brackets: ']' with no matching '['"),
                        file=file, line=lineno, sentence=str(max(len(trees), 1)),
                    )
                node = stack.pop()
                if not stack:
                    trees.append(node)
                    lines.append(start_line)
            else:
                if not stack:
                    raise InputError(
                        N_('word %(tok)r outside any bracket') % {"tok": tok}, file=file, line=lineno, sentence=str(len(trees) + 1)
                    )
                stack[-1].children.append(Tree("", [Tree.leaf(tok)]))
    if stack:
        raise InputError(
            N_("unbalanced brackets: %(n_stack)s '[' never closed (tree starts on line %(start_line)s)") % {"n_stack": len(stack), "start_line": start_line},
            file=file, line=start_line, sentence=str(len(trees) + 1),
        )
    if not trees:
        raise InputError(N_("empty input: no tree found"), file=file)
    return trees, lines


def read_square(path) -> list[Tree]:
    with open(path, encoding="utf-8") as handle:
        return parse_square(handle.read(), file=os.fspath(path))


def to_square(tree: Tree) -> str:
    if tree.is_word:
        return tree.word
    if tree.is_preterminal:
        return tree.children[0].word
    parts = []
    for child in tree.children:
        if child.is_word:
            parts.append(child.word)
        elif child.is_preterminal:  # the tag is lost: the format has no POS layer
            parts.append(child.children[0].word)
        else:
            parts.append(to_square(child))
    inner = " ".join(parts)
    head = f"[{tree.label}" if tree.label else "["
    return f"{head} {inner} ]" if inner else f"{head} ]"


def write_square(trees: Iterable[Tree]) -> str:
    return "".join(to_square(t) + "\n" for t in trees)
