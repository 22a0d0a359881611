"""Named, composable treebank transformations.

A *spec* is a comma-separated list of ``name`` or ``name:argument`` items,
applied left to right, e.g. ``strip-functions,remove-unary,remove-labels:VF+MF+NF``.
:func:`apply_transforms` copies every tree first: the input is never changed.
The same spec can be given to gold and candidate before any tree metric.

Built-in transformations (``argument`` in brackets when optional):

``strip-functions``
    cut every label at its first ``-`` or ``=`` (``NP-SBJ-1`` -> ``NP``);
    labels that start with ``-`` (``-NONE-``, ``-LRB-``) are kept.
``remove-null``
    remove ``-NONE-`` preterminals (Penn null elements) and the nodes they
    leave empty.
``remove-unary``
    a phrasal node with a single non-word child is replaced by that child,
    bottom-up (``(NP (PRP he))`` -> ``(PRP he)``); the root is kept.
``remove-root[:TOP+VROOT+ROOT]``
    remove a virtual root (label ``TOP``, ``VROOT``, ``ROOT`` or empty by
    default) that has a single child; with several children it is kept.
``remove-labels:L1+L2+...``
    remove every phrasal node (not the root) whose label, without function
    tags, is one of the labels; its children take its place in its parent.
``no-np-in-pp[:PP+NP]``
    remove an NP (second label) that is a direct child of a PP (first
    label), promoting its children into the PP.
``flatten:RULES``
    the flat-key flattening of the constituency spec (section 3), with the
    rule interpreter of :mod:`parseval.evaluation.trees`; ``RULES`` is a rule file or
    inline rules separated by ``;`` (``flatten:(VP VBN VP^);(NP NP^ PP)``).

Register more with :func:`register`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterable

from parseval.annotations.errors import InputError, N_
from parseval.annotations.trees.flatten_rules import flatten, parse_rules

from .headrules import base_label
from .tree import Tree

TreeFn = Callable[[Tree], Tree]


@dataclass(frozen=True)
class Transform:
    name: str
    help: str
    factory: Callable[[str | None], TreeFn]
    needs_arg: bool = False


REGISTRY: dict[str, Transform] = {}


def register(name: str, help: str, needs_arg: bool = False):
    def deco(factory: Callable[[str | None], TreeFn]):
        REGISTRY[name] = Transform(name, help, factory, needs_arg)
        return factory

    return deco


# -- helpers (in place, on copies) -----------------------------------------


def _promote(node: Tree, doomed: Callable[[Tree, Tree], bool]) -> None:
    """Bottom-up: a phrasal child for which ``doomed(child, parent)`` holds is
    replaced by its own children."""
    if node.is_word:
        return
    for kid in node.children:
        _promote(kid, doomed)
    new: list[Tree] = []
    for kid in node.children:
        if kid.is_phrasal and kid.children and doomed(kid, node):
            new.extend(kid.children)
        else:
            new.append(kid)
    node.children = new


def _labels(arg: str | None, default: Iterable[str] = ()) -> set[str]:
    if arg is None or arg == "":
        return set(default)
    return {x for x in arg.replace(",", "+").split("+") if x}


# -- built-ins ---------------------------------------------------------------


@register("strip-functions", "strip function tags (NP-SBJ-1 -> NP)")
def _strip_functions(arg: str | None) -> TreeFn:
    def fn(tree: Tree) -> Tree:
        for node in tree.subtrees():
            node.label = base_label(node.label)
        return tree

    return fn


@register("remove-null", "remove -NONE- null elements and the nodes they leave empty")
def _remove_null(arg: str | None) -> TreeFn:
    null = arg or "-NONE-"

    def clean(node: Tree) -> bool:
        """Prune in place; False if ``node`` itself is now empty."""
        if node.is_word:
            return True
        if node.is_preterminal:
            return node.label != null
        keep = [k for k in node.children if clean(k)]
        had = bool(node.children)
        node.children = keep
        return bool(keep) or not had

    def fn(tree: Tree) -> Tree:
        clean(tree)
        return tree

    return fn


@register("remove-unary", "replace each unary phrasal node by its child (root kept)")
def _remove_unary(arg: str | None) -> TreeFn:
    def walk(node: Tree) -> None:
        for i, kid in enumerate(node.children):
            if kid.is_word:
                continue
            walk(kid)
            while kid.is_phrasal and len(kid.children) == 1 and not kid.children[0].is_word:
                kid = kid.children[0]
            node.children[i] = kid

    def fn(tree: Tree) -> Tree:
        walk(tree)
        return tree

    return fn


@register("remove-root", "remove a virtual root (TOP/VROOT/ROOT/unlabelled) with a single child")
def _remove_root(arg: str | None) -> TreeFn:
    labels = _labels(arg, ("TOP", "VROOT", "ROOT", ""))

    def fn(tree: Tree) -> Tree:
        while (
            not tree.is_word
            and base_label(tree.label) in labels
            and len(tree.children) == 1
            and not tree.children[0].is_word
        ):
            tree = tree.children[0]
        return tree

    return fn


@register("remove-labels", "remove phrasal nodes with these labels, promoting their children (L1+L2...)",
          needs_arg=True)
def _remove_labels(arg: str | None) -> TreeFn:
    labels = _labels(arg)
    if not labels:
        raise InputError(N_("remove-labels needs labels, e.g. remove-labels:VF+MF+NF"))

    def fn(tree: Tree) -> Tree:
        _promote(tree, lambda kid, parent: base_label(kid.label) in labels)
        return tree

    return fn


@register("no-np-in-pp", "remove an NP directly under a PP, promoting its children ([PP+NP])")
def _no_np_in_pp(arg: str | None) -> TreeFn:
    parts = [x for x in (arg or "PP+NP").replace(",", "+").split("+") if x]
    if len(parts) != 2:
        raise InputError(N_('no-np-in-pp takes two labels PP+NP, not %(arg)r') % {"arg": arg})
    pp, np = parts

    def fn(tree: Tree) -> Tree:
        _promote(tree, lambda kid, parent: base_label(kid.label) == np and base_label(parent.label) == pp)
        return tree

    return fn


@register("flatten", "flat-key flattening with rules (a file, or inline rules separated by ';')", needs_arg=True)
def _flatten(arg: str | None) -> TreeFn:
    if not arg:
        raise InputError(N_("flatten needs rules: flatten:FILE or flatten:(VP VBN VP^);(NP NP^ PP)"))
    if os.path.isfile(arg):
        with open(arg, encoding="utf-8") as fh:
            text = fh.read()
    else:
        text = "\n".join(r.strip() for r in arg.split(";") if r.strip())
    rules = parse_rules(text)

    def fn(tree: Tree) -> Tree:
        return flatten(tree, rules)

    return fn


# -- specs ------------------------------------------------------------------


def _split_spec(spec: str) -> list[str]:
    """Split on commas outside parentheses (inline flattening rules may hold none, but be safe)."""
    items, depth, cur = [], 0, []
    for ch in spec:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]


def parse_spec(spec: "str | Iterable[str] | None") -> list[tuple[str, str | None, TreeFn]]:
    """``"a,b:x"`` -> ``[(name, arg, function), ...]``; unknown names are an :class:`InputError`."""
    if spec is None:
        return []
    items = _split_spec(spec) if isinstance(spec, str) else [s.strip() for s in spec if s and s.strip()]
    out = []
    for item in items:
        name, sep, arg = item.partition(":")
        name = name.strip()
        if name not in REGISTRY:
            raise InputError(
                N_('unknown transformation %(name)r (known: %(value)s)') % {"name": name, "value": ', '.join(sorted(REGISTRY))})
        t = REGISTRY[name]
        arg = arg.strip() if sep else None
        if t.needs_arg and not arg:
            raise InputError(N_('transformation %(name)r needs an argument: %(prefix)s:ARG') % {"name": name, "prefix": name})
        out.append((name, arg, t.factory(arg)))
    return out


def canonical_spec(spec) -> str:
    """The normalised spec string (for signatures)."""
    return ",".join(n if a is None else f"{n}:{a}" for n, a, _ in parse_spec(spec))


def apply_transforms(trees: "list[Tree]", spec) -> list[Tree]:
    """Copies of ``trees`` with the transformations of ``spec`` applied in order."""
    steps = parse_spec(spec)
    out = []
    for tree in trees:
        t = tree.copy()
        for _, _, fn in steps:
            t = fn(t)
        out.append(t)
    return out


def make_transform(spec) -> TreeFn | None:
    """One callable ``Tree -> Tree`` for ``spec`` (the ``transform=`` hook of
    :func:`parseval.evaluation.trees.score_trees`); it works on the tree it is given,
    so pass a copy when the original must survive. ``None`` for an empty spec."""
    steps = parse_spec(spec)
    if not steps:
        return None

    def fn(tree: Tree) -> Tree:
        for _, _, step in steps:
            tree = step(tree)
        return tree

    fn.spec = canonical_spec(spec)  # type: ignore[attr-defined]
    return fn


def describe() -> list[dict]:
    return [{"name": t.name, "help": t.help, "needs_arg": t.needs_arg} for t in REGISTRY.values()]
