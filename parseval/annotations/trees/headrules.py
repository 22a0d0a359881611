"""Head-finding rules for constituency trees (Magerman 1995 / Collins 1999 style).

A :class:`HeadRules` table names, for each phrasal label, one or more search
passes (a direction and a priority list of child labels). Built-in tables:
``penn``, Collins (1999), Appendix A, stored in
``parseval/annotations/trees/data/penn-collins1999.headrules``; ``ftb``, the French
Treebank table of Candito, Crabbé & Denis (2010) after Arun & Keller (2005),
for the CC tag set of the French Treebank and Sequoia, stored in
``parseval/annotations/trees/data/ftb-candito2010.headrules``. Any other table in the
same text format can be loaded with :func:`load_head_rules`.

File format (one rule a line; a line starting with ``#`` is a comment)::

    LABEL  DIRECTION  CAT CAT ...  [; DIRECTION CAT ...]
    @function HD            # a child carrying this function tag is the head
    @punct , . : `` ''      # never chosen by the fallback if anything else is there
    @upos NC NOUN           # the UPOS column for a tag (else the tag itself)

Directions: ``left``/``right`` (for each CAT in priority order, scan the
children from that side), ``leftdis``/``rightdis`` (scan the children from
that side, first child whose label is any CAT), ``first``/``last`` (the
first/last child if its label is a CAT). Passes are tried in order; if none
finds a head, the first child from the side of the first pass is the head
(``first`` counts as the left side, ``last`` as the right), skipping
punctuation when something else is there. ``*`` is the rule for labels
without an entry; without ``*`` the default is ``left``. In a pass, the
category ``*`` is any child.

A table is written for one tag set: :func:`check_fit` refuses trees whose
labels it does not know (most nodes would get their head by the fallback).

Labels are compared without function tags: ``NP-SBJ-1`` matches ``NP``. A
``@function`` line (TIGER: ``@function HD``) makes a child whose label
carries that function (``NN-HD``, ``VVFIN-HD``...) the head before the table
is consulted, when such a child exists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from parseval.annotations.errors import InputError, Problem, N_

from .tree import Tree

DATA_DIR = Path(__file__).resolve().parent / "data"
BUILTIN = {"penn": DATA_DIR / "penn-collins1999.headrules", "ftb": DATA_DIR / "ftb-candito2010.headrules"}
DIRECTIONS = ("left", "right", "leftdis", "rightdis", "first", "last")

_SPLIT = re.compile(r"[-=]")


def split_label(label: str) -> tuple[str, list[str]]:
    """``NP-SBJ-1`` -> (``NP``, [``SBJ``]); ``-NONE-`` and ``-LRB-`` stay whole.

    Function tags are what follows the first ``-`` or ``=``; numeric
    co-indices (``-1``, ``=2``) are dropped.
    """
    base, functions = _split(label)
    return base, list(functions)


@lru_cache(maxsize=65536)
def _split(label: str) -> tuple[str, tuple[str, ...]]:
    if not label or label.startswith("-"):
        return label, ()
    parts = _SPLIT.split(label)
    return parts[0], tuple(p for p in parts[1:] if p and not p.isdigit())


def base_label(label: str) -> str:
    return _split(label)[0]


@dataclass
class HeadRules:
    rules: dict[str, list[tuple[str, list[str]]]] = field(default_factory=dict)
    head_functions: frozenset[str] = frozenset()
    punct: frozenset[str] = frozenset()
    name: str = "custom"
    upos: dict[str, str] = field(default_factory=dict)  # tag -> UPOS (empty: the tag is the UPOS)

    def passes(self, label: str) -> list[tuple[str, list[str]]]:
        base = base_label(label)
        if base in self.rules:
            return self.rules[base]
        return self.rules.get("*", [("left", [])])

    def by_rule(self, node: Tree) -> bool:
        """True when the table finds ``node``'s head by a rule, not by the fallback (two children or more)."""
        labels = {self._child_label(k) for k in node.children}
        if self.head_functions and any(
                not k.is_word and self.head_functions.intersection(_split(k.label)[1]) for k in node.children):
            return True
        base = base_label(node.label)
        if base not in self.rules:
            return False
        # a "*" pass takes any child: a fallback written in the table, not a rule about these labels
        return any(not labels.isdisjoint(cats) for _, cats in self.rules[base])

    def upos_of(self, tag: str) -> str:
        if not self.upos:
            return tag
        return self.upos.get(tag, "X")

    def head_index(self, node: Tree) -> int:
        """Index of the head child of ``node`` (a node with at least one child)."""
        kids = node.children
        if not kids:
            raise ValueError("a node with no children has no head child")
        if len(kids) == 1:
            return 0
        labels = [self._child_label(k) for k in kids]
        if self.head_functions:
            for i, k in enumerate(kids):
                if not k.is_word and self.head_functions.intersection(_split(k.label)[1]):
                    return i
        passes = self.passes(node.label)
        n = len(kids)
        for direction, cats in passes:
            order = range(n) if direction in ("left", "leftdis", "first") else range(n - 1, -1, -1)
            if direction in ("left", "right"):
                for cat in cats:
                    for i in order:
                        if labels[i] == cat or cat == "*":
                            return i
            elif direction in ("leftdis", "rightdis"):
                wanted = set(cats)
                for i in order:
                    if labels[i] in wanted or "*" in wanted:
                        return i
            else:  # first / last
                i = 0 if direction == "first" else n - 1
                if labels[i] in cats or "*" in cats:
                    return i
        first = passes[0][0] if passes else "left"
        order = list(range(n)) if first in ("left", "leftdis", "first") else list(range(n - 1, -1, -1))
        for i in order:
            if labels[i] not in self.punct:
                return i
        return order[0]

    @staticmethod
    def _child_label(node: Tree) -> str:
        return "" if node.is_word else base_label(node.label)


def parse_head_rules(text: str, *, file: str | None = None, name: str = "custom") -> HeadRules:
    rules: dict[str, list[tuple[str, list[str]]]] = {}
    functions: set[str] = set()
    punct: set[str] = set()
    upos: dict[str, str] = {}
    problems: list[Problem] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            key, *values = line.split()
            if key == "@function":
                functions.update(values)
            elif key == "@punct":
                punct.update(values)
            elif key == "@upos" and len(values) == 2:
                upos[values[0]] = values[1]
            elif key == "@upos":
                problems.append(Problem(N_("@upos takes a tag and a UPOS (e.g. '@upos NC NOUN')"), file=file, line=lineno))
            else:
                problems.append(Problem(N_('unknown directive %(key)r (expected @function, @punct or @upos)') % {"key": key},
                                        file=file, line=lineno))
            continue
        label, *more = line.split(None, 1)
        rest = more[0] if more else ""
        passes = []
        for chunk in rest.split(";") if rest else [""]:
            words = chunk.split()
            if not words:
                problems.append(Problem(N_('rule for %(label)r has an empty pass (expected a direction)') % {"label": label},
                                        file=file, line=lineno))
                continue
            direction, cats = words[0].lower(), words[1:]
            if direction not in DIRECTIONS:
                problems.append(Problem(N_('rule for %(label)r: unknown direction %(words)r (expected one of %(value)s)') % {"label": label, "words": words[0], "value": ', '.join(DIRECTIONS)}, file=file, line=lineno))
                continue
            passes.append((direction, cats))
        if label in rules:
            problems.append(Problem(N_('second rule for label %(label)r') % {"label": label}, file=file, line=lineno))
        rules[label] = passes
    if problems:
        raise InputError(problems)
    if not rules and not functions:
        raise InputError(N_("head-rule table has no rules"), file=file)
    return HeadRules(rules, frozenset(functions), frozenset(punct), name, upos)


def load_head_rules(spec: "str | Path | HeadRules" = "penn", *, head_functions=None) -> HeadRules:
    """A built-in table by name (``penn``) or a table file; ``head_functions`` adds ``@function`` tags."""
    if isinstance(spec, HeadRules):
        rules = spec
    else:
        key = str(spec)
        path = BUILTIN.get(key, Path(key))
        name = key if key in BUILTIN else path.name
        if not path.is_file():
            raise InputError(N_('head rules %(key)r: neither a built-in table (%(value)s) nor a file') % {"key": key, "value": ', '.join(BUILTIN)})
        rules = parse_head_rules(path.read_text(encoding="utf-8"), file=str(path), name=name)
    if head_functions:
        rules = HeadRules(rules.rules, rules.head_functions | frozenset(head_functions), rules.punct, rules.name,
                          rules.upos)
    return rules


def find_heads(tree: Tree, rules: HeadRules) -> dict[int, int]:
    """``id(node) -> index of its head child`` for every non-word node of ``tree``."""
    out: dict[int, int] = {}
    for node in tree.subtrees():
        if node.children:
            out[id(node)] = rules.head_index(node)
    return out


# A table fits trees when most of their branching nodes find their head by a rule. Collins's table:
# 98.9% on the PTB sample, 2.0% on Sequoia; the French table: 99.9% on Sequoia, 26.5% on the PTB sample.
MIN_FIT = 0.5


def fit(trees, rules: HeadRules):
    """``(found by a rule, branching nodes, Counter of the labels left to the fallback, first such tree)``."""
    from collections import Counter

    total = by_rule = 0
    missed: Counter = Counter()
    first: int | None = None
    for index, tree in enumerate(trees):
        for node in tree.subtrees():
            if node.is_word or len(node.children) < 2:
                continue
            total += 1
            if rules.by_rule(node):
                by_rule += 1
            else:
                missed[base_label(node.label) or "(unlabelled)"] += 1
                if first is None:
                    first = index
    return by_rule, total, missed, first


def best_builtin(trees, *, head_functions=None) -> str:
    """The built-in table that finds the most heads of ``trees`` by a rule (ties: the first, penn)."""
    best, best_count = next(iter(BUILTIN)), -1
    for name in BUILTIN:
        count = fit(trees, load_head_rules(name, head_functions=head_functions))[0]
        if count > best_count:
            best, best_count = name, count
    return best


def check_fit(trees, rules: HeadRules, *, file: str | None = None, lines: list[int] | None = None) -> None:
    """Refuse (:class:`InputError`) a table written for another tag set than the trees'.

    Counted over the nodes with two children or more (a single child is its
    parent's head whatever the table): when fewer than :data:`MIN_FIT` of them
    find their head by a rule of the table rather than by the fallback, the
    conversion would be arbitrary. The message names the labels most often
    left to the fallback and the first tree where that happens.
    """
    by_rule, total, missed, first = fit(trees, rules)
    if not total or by_rule / total >= MIN_FIT:
        return
    top = ", ".join(f"{label} ({n})" for label, n in missed.most_common(8))
    others = [name for name in BUILTIN if name != rules.name]
    raise InputError(Problem(
        f"head rules {rules.name!r} do not fit these trees: only {by_rule} of {total} branching nodes "
        f"({100 * by_rule / total:.1f}%) find their head by a rule; left to the fallback: {top}. "
        f"The table is written for another tag set (built-in tables: {', '.join(BUILTIN)}"
        + (f"; try {' or '.join(others)}" if others else "") + ")",
        file=file, line=lines[first] if lines and first is not None else None,
        sentence=str(first + 1) if first is not None else None,
    ))
