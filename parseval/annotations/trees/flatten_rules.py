"""Flat-key rules: the rule language and the flattening of a tree by it.

A treebank transformation (``flatten:RULES`` in :mod:`parseval.annotations.trees.transforms`)
and the conformance and GEIG 1991 metrics (``parseval.evaluation.trees``) share it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from parseval.annotations.errors import InputError, N_
from parseval.annotations.trees.labels import strip_function_tags
from parseval.annotations.trees.penn import Forest
from parseval.annotations.trees.tree import Tree

NULL_TAGS = frozenset({"-NONE-"})


@dataclass(frozen=True)
class Rule:
    """One flattening rule. ``kind``: ``"child"``, ``"node"`` or ``"label"``."""

    kind: str
    label: str
    children: tuple[str, ...] | None = None
    index: int | None = None  # for "child": which child is deleted
    text: str = ""

    def __str__(self) -> str:
        return self.text


_RULE_TOKEN = re.compile(r"[()]|[^\s()]+")


def parse_rule(text: str, *, file: str | None = None, line: int | None = None) -> Rule:
    src = text.strip()

    def bad(message: str) -> InputError:
        return InputError(N_('bad flattening rule %(src)r: %(message)s') % {"src": src, "message": message}, file=file, line=line)

    toks = _RULE_TOKEN.findall(src)
    if len(toks) == 1 and toks[0] not in "()":
        if not toks[0].endswith("^") or len(toks[0]) < 2:
            raise bad("a bare label must end with '^'")
        return Rule("label", toks[0][:-1], text=src)
    if len(toks) < 3 or toks[0] != "(" or toks[-1] != ")" or "(" in toks[1:] or ")" in toks[1:-1]:
        raise bad("expected X^, (X^ Y1 ... Yn) or (X Y1 ... Yi^ ... Yn)")
    head, kids = toks[1], toks[2:-1]
    carets = [k for k, y in enumerate(kids) if y.endswith("^")]
    if head.endswith("^"):
        if carets:
            raise bad("only one '^' per rule")
        return Rule("node", head[:-1], tuple(kids), text=src)
    if len(carets) != 1:
        raise bad("exactly one '^' is needed")
    i = carets[0]
    labels = tuple(y[:-1] if k == i else y for k, y in enumerate(kids))
    return Rule("child", head, labels, i, text=src)


def parse_rules(text: str, *, file: str | None = None) -> list[Rule]:
    rules = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            rules.append(parse_rule(line, file=file, line=lineno))
    return rules


def load_rules(path) -> list[Rule]:
    with open(path, encoding="utf-8") as handle:
        return parse_rules(handle.read(), file=os.fspath(path))


def _label(node: Tree) -> str:
    return "" if node.word is not None else node.label


def _strip_all(node: Tree) -> None:
    if node.word is None:
        node.label = strip_function_tags(node.label)
        for child in node.children:
            _strip_all(child)


def apply_rules_once(tree: Tree, rules: list[Rule]) -> Tree:
    """One bottom-up pass: at each phrasal node the first matching rule is applied (in place)."""

    def visit(node: Tree, root: bool) -> list[Tree]:
        if node.word is not None or node.is_preterminal:
            return [node]
        kids: list[Tree] = []
        for child in node.children:
            kids.extend(visit(child, False))
        node.children = kids
        labels = None
        for rule in rules:
            if rule.label != node.label:
                continue
            if rule.kind == "label":
                if root:
                    continue
                return list(node.children)
            if labels is None:
                labels = tuple(_label(c) for c in node.children)
            if labels != rule.children:
                continue
            if rule.kind == "node":
                if root:
                    continue
                return list(node.children)
            victim = node.children[rule.index]
            if victim.word is None and not victim.is_preterminal:  # a word cannot be promoted
                node.children[rule.index : rule.index + 1] = victim.children
            return [node]
        return [node]

    visit(tree, True)
    return tree


def _remove_empty(node: Tree, null_tags) -> Tree | None:
    if node.word is not None:
        return node
    if node.is_preterminal:
        return None if node.label in null_tags else node
    kids = [k for k in (_remove_empty(c, null_tags) for c in node.children) if k is not None]
    if not kids:
        return None
    node.children = kids
    return node


def _remove_unary(node: Tree) -> Tree:
    if node.word is not None or node.is_preterminal:
        return node
    node.children = [_remove_unary(c) for c in node.children]
    if len(node.children) == 1 and node.children[0].word is None and type(node) is not Forest:
        return node.children[0]
    return node


def flatten(tree: Tree, rules: list[Rule], *, null_tags=NULL_TAGS, strip_tags: bool = True) -> Tree:
    """The flat key of ``tree`` (a new tree; the input is not modified)."""
    t = tree.copy()
    if strip_tags:
        _strip_all(t)
    before = None
    while True:
        t = apply_rules_once(t, rules)
        t = _remove_empty(t, null_tags) or Tree(t.label, [])
        t = _remove_unary(t)
        now = t.to_penn()
        if now == before:
            return t
        before = now


# -- scoring ------------------------------------------------------------------
