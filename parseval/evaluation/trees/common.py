"""Pieces shared by the tree metrics: label clean-up, spans, sentence pairing."""
from __future__ import annotations

from typing import Callable, Iterator

from parseval.annotations.errors import InputError, Problem, N_
from parseval.annotations.trees.labels import strip_function_tags
from parseval.annotations.trees.penn import BadSentence, Forest
from parseval.annotations.trees.tree import Tree

ON_ERROR = ("raise", "skip")

__all__ = ["strip_function_tags", "is_bracket", "prune", "words_of", "strip_labels", "constituents", "crosses",
           "pairs", "mean", "ON_ERROR"]


def is_bracket(node: Tree) -> bool:
    """A phrasal node that counts as a constituent (a :class:`Forest` root does not)."""
    return node.word is None and type(node) is not Forest and not node.is_preterminal


def prune(tree: Tree, drop_tags: frozenset[str] | set[str]) -> Tree | None:
    """A copy without the preterminals whose tag is in ``drop_tags``, nor the nodes left empty."""
    if tree.word is not None:
        return Tree("", [], tree.word)
    ch = tree.children
    if len(ch) == 1 and ch[0].word is not None:  # preterminal
        return None if tree.label in drop_tags else Tree(tree.label, [Tree("", [], ch[0].word)])
    kids = []
    for child in ch:
        kid = prune(child, drop_tags)
        if kid is not None:
            kids.append(kid)
    if not kids and ch:
        return None
    return Forest("", kids) if type(tree) is Forest else Tree(tree.label, kids)


def words_of(tree: Tree) -> list[str]:
    """The words, left to right (iterative: faster than ``Tree.words`` on large corpora)."""
    out: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.word is not None:
            out.append(node.word)
        else:
            stack.extend(reversed(node.children))
    return out


def strip_labels(tree: Tree) -> Tree:
    """In place: function tags removed from every phrasal label (preterminal tags untouched)."""
    ch = tree.children
    if tree.word is None and not (len(ch) == 1 and ch[0].word is not None):
        tree.label = _strip_cached(tree.label)
        for child in ch:
            strip_labels(child)
    return tree


_STRIP_CACHE: dict[str, str] = {}


def _strip_cached(label: str) -> str:
    out = _STRIP_CACHE.get(label)
    if out is None:
        if len(_STRIP_CACHE) > 100_000:
            _STRIP_CACHE.clear()
        out = _STRIP_CACHE[label] = strip_function_tags(label)
    return out


def constituents(tree: Tree, *, labelled: bool = True) -> list[tuple[str, int, int]]:
    """``(label, start, end)`` of every constituent (phrasal node, root included), multiset."""
    out: list[tuple[str, int, int]] = []

    def walk(node: Tree, start: int) -> int:
        if node.word is not None:
            return start + 1
        ch = node.children
        if len(ch) == 1 and ch[0].word is not None:  # preterminal
            return start + 1
        end = start
        for child in ch:
            end = walk(child, end)
        if type(node) is not Forest:
            out.append((node.label if labelled else "", start, end))
        return end

    walk(tree, 0)
    return out


def crosses(a: int, b: int, s: int, e: int) -> bool:
    return (a < s < b < e) or (s < a < e < b)


def pairs(
    gold: list,
    test: list,
    *,
    words: Callable[[Tree], list[str]],
    on_error: str = "raise",
    gold_file: str | None = None,
    test_file: str | None = None,
    gold_lines: list[int] | None = None,
    test_lines: list[int] | None = None,
    problems: list[dict] | None = None,
) -> Iterator[tuple[int, Tree | None, Tree | None, str | None]]:
    """Pair gold and test sentences: yields ``(index, gold, test, error_message)``.

    With ``on_error="raise"`` a different sentence count or a pair whose
    words differ raises :class:`InputError` with file, line and sentence;
    with ``"skip"`` the pair is yielded with a message (the metric lists it
    as an error and leaves it out of the totals) and a count mismatch is
    recorded in ``problems`` (the common prefix is scored).
    """
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}")
    n = min(len(gold), len(test))
    if len(gold) != len(test):
        more_gold = len(gold) > len(test)
        lines = test_lines if more_gold else gold_lines
        problem = Problem(
            N_('different numbers of sentences: %(n_gold)s in gold, %(n_test)s in test') % {"n_gold": len(gold), "n_test": len(test)},
            file=test_file if more_gold else gold_file,
            line=(lines[n - 1] + 1 if lines and n else n + 1),
            sentence=str(n + 1),
        )
        if on_error == "raise":
            raise InputError(problem)
        if problems is not None:
            problems.append(problem.as_dict())
    for i in range(n):
        g, t = gold[i], test[i]
        if isinstance(g, BadSentence) or isinstance(t, BadSentence):
            bad = g if isinstance(g, BadSentence) else t
            if on_error == "raise":
                raise InputError(bad.problem)
            yield i, None, None, bad.problem.message
            continue
        gw, tw = words(g), words(t)
        if gw != tw:
            if len(gw) != len(tw):
                message = f"different lengths: {len(gw)} gold words, {len(tw)} test words"
            else:
                k = next(k for k in range(len(gw)) if gw[k] != tw[k])
                message = f"words differ at word {k + 1}: gold {gw[k]!r}, test {tw[k]!r}"
            if on_error == "raise":
                raise InputError(
                    message, file=test_file, line=test_lines[i] if test_lines else None, sentence=str(i + 1)
                )
            yield i, g, t, message
            continue
        yield i, g, t, None


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
