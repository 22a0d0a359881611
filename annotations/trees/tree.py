"""The in-memory constituency tree shared by every tree reader and metric.

A :class:`Tree` is a labelled node with children; a leaf (a word) is a Tree
with ``word`` set and no children. A *preterminal* is a node whose only child
is a word (its label is the part-of-speech tag). Phrasal nodes are all other
non-word nodes. Nodes are mutable so that transformations can rewrite a tree
in place; use :meth:`Tree.copy` first when the original must survive.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator


@dataclass(eq=False)
class Tree:
    label: str = ""
    children: list["Tree"] = field(default_factory=list)
    word: str | None = None

    # -- constructors -------------------------------------------------
    @classmethod
    def leaf(cls, word: str) -> "Tree":
        return cls(label="", children=[], word=word)

    # -- kinds of node ------------------------------------------------
    @property
    def is_word(self) -> bool:
        return self.word is not None

    @property
    def is_preterminal(self) -> bool:
        return len(self.children) == 1 and self.children[0].is_word

    @property
    def is_phrasal(self) -> bool:
        return not self.is_word and not self.is_preterminal

    # -- traversal ----------------------------------------------------
    def words(self) -> list[str]:
        return [leaf.word for leaf in self.leaves()]

    def leaves(self) -> Iterator["Tree"]:
        if self.is_word:
            yield self
            return
        for child in self.children:
            yield from child.leaves()

    def preterminals(self) -> Iterator["Tree"]:
        if self.is_preterminal:
            yield self
            return
        for child in self.children:
            yield from child.preterminals()

    def tagged_words(self) -> list[tuple[str, str]]:
        """(word, tag) pairs; a bare word (square-bracket trees) has tag ''."""
        out: list[tuple[str, str]] = []

        def walk(node: Tree) -> None:
            if node.is_word:
                out.append((node.word, ""))
            elif node.is_preterminal:
                out.append((node.children[0].word, node.label))
            else:
                for child in node.children:
                    walk(child)

        walk(self)
        return out

    def subtrees(self) -> Iterator["Tree"]:
        """Pre-order over all non-word nodes."""
        if self.is_word:
            return
        yield self
        for child in self.children:
            yield from child.subtrees()

    def spans(self, phrasal_only: bool = True) -> list[tuple[str, int, int]]:
        """``(label, start, end)`` of every (phrasal) node, pre-order, end exclusive."""
        out: list[tuple[str, int, int]] = []

        def walk(node: Tree, start: int) -> int:
            if node.is_word:
                return start + 1
            end = start
            for child in node.children:
                end = walk(child, end)
            if not phrasal_only or node.is_phrasal:
                out.append((node.label, start, end))
            return end

        walk(self, 0)
        out.reverse()  # walk appends children first; reverse is not pre-order for siblings
        out.sort(key=lambda s: (s[1], -s[2]))
        return out

    # -- copying and printing -----------------------------------------
    def copy(self) -> "Tree":
        if self.is_word:
            return Tree.leaf(self.word)
        return Tree(self.label, [c.copy() for c in self.children])

    def to_penn(self) -> str:
        if self.is_word:
            return self.word
        inner = " ".join(c.to_penn() for c in self.children)
        return f"({self.label} {inner})" if self.label else f"( {inner})" if inner else "()"

    def __str__(self) -> str:
        return self.to_penn()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return (
            self.label == other.label
            and self.word == other.word
            and len(self.children) == len(other.children)
            and all(a == b for a, b in zip(self.children, other.children))
        )

    __hash__ = None  # mutable
