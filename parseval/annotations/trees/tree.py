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

    # -- traversal (iterative: a tree's depth must never meet the recursion limit) ----
    def words(self) -> list[str]:
        return [leaf.word for leaf in self.leaves()]

    def _preorder(self, stop) -> Iterator["Tree"]:
        """Nodes in pre-order; the children of a node for which ``stop(node)`` holds are not entered."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if not stop(node):
                stack.extend(reversed(node.children))

    def leaves(self) -> Iterator["Tree"]:
        return (node for node in self._preorder(_is_word) if node.is_word)

    def preterminals(self) -> Iterator["Tree"]:
        return (node for node in self._preorder(_is_preterminal_or_word) if node.is_preterminal)

    def tagged_words(self) -> list[tuple[str, str]]:
        """(word, tag) pairs; a bare word (square-bracket trees) has tag ''."""
        out: list[tuple[str, str]] = []
        for node in self._preorder(_is_preterminal_or_word):
            if node.is_word:
                out.append((node.word, ""))
            elif node.is_preterminal:
                out.append((node.children[0].word, node.label))
        return out

    def subtrees(self) -> Iterator["Tree"]:
        """Pre-order over all non-word nodes."""
        return (node for node in self._preorder(_is_word) if not node.is_word)

    def spans(self, phrasal_only: bool = True) -> list[tuple[str, int, int]]:
        """``(label, start, end)`` of every (phrasal) node, pre-order, end exclusive."""
        out: list[tuple[str, int, int]] = []
        position = 0
        # (node, start or None before its children are entered)
        stack: list[tuple[Tree, int | None]] = [(self, None)]
        while stack:
            node, start = stack.pop()
            if node.is_word:
                position += 1
            elif start is None:
                stack.append((node, position))
                stack.extend((child, None) for child in reversed(node.children))
            elif not phrasal_only or node.is_phrasal:
                out.append((node.label, start, position))
        out.reverse()  # nodes are closed children first; reverse is not pre-order for siblings
        out.sort(key=lambda s: (s[1], -s[2]))
        return out

    # -- copying and printing -----------------------------------------
    def copy(self) -> "Tree":
        root = type(self)(self.label, [], self.word)
        stack = [(self, root)]
        while stack:
            source, target = stack.pop()
            for child in source.children:
                made = Tree(child.label, [], child.word)
                target.children.append(made)
                stack.append((child, made))
        return root

    def to_penn(self) -> str:
        parts: list[str] = []
        stack: list = [self]  # nodes still to write, and the strings between them
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                parts.append(node)
            elif node.is_word:
                parts.append(node.word)
            elif not node.children:
                parts.append(f"({node.label} )" if node.label else "()")
            else:
                parts.append(f"({node.label} " if node.label else "( ")
                stack.append(")")
                for i, child in enumerate(reversed(node.children)):
                    if i:
                        stack.append(" ")
                    stack.append(child)
        return "".join(parts)

    def __str__(self) -> str:
        return self.to_penn()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a.label != b.label or a.word != b.word or len(a.children) != len(b.children):
                return False
            stack.extend(zip(a.children, b.children))
        return True

    __hash__ = None  # mutable


def _is_word(node: Tree) -> bool:
    return node.is_word


def _is_preterminal_or_word(node: Tree) -> bool:
    return node.is_word or node.is_preterminal

