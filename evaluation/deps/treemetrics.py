"""Adapter from the error lab to the constituency metrics.

The lab calls the project's own implementations (``evaluation.trees``):
``score_trees(gold, test, "evalb")`` / ``"leaf-ancestor"`` when the common
entry point exists, else the metric modules directly. If the leaf-ancestor
module is not in this build, a small local implementation of the definition
in the constituency spec (section 4, ``sampson2003`` costs) is used, and
:func:`implementations` says so; the lab's report carries that line.
"""
from __future__ import annotations

import importlib

from annotations.trees.tree import Tree


def _score_trees():
    try:
        mod = importlib.import_module("evaluation.trees")
    except ModuleNotFoundError:
        return None
    return getattr(mod, "score_trees", None)


def _summary(doc: dict) -> dict:
    return doc.get("summary", doc)


# -- evalb ----------------------------------------------------------------------------


def evalb_scores(gold: list[Tree], test: list[Tree]) -> dict:
    """PARSEVAL as evalb with COLLINS.prm: ``{"precision", "recall", "f"}`` (fractions)
    and the bracket counts ``matched``, ``gold_brackets``, ``test_brackets``."""
    st = _score_trees()
    if st is not None:
        # on_error="raise": a damaged tree always keeps its original's words, so a
        # mismatch is a bug to report, not an evalb "error sentence" to skip silently
        block = _summary(st(gold, test, "evalb", on_error="raise"))["all"]
    else:
        from evaluation.trees.evalb import COLLINS, score_evalb

        block = score_evalb(gold, test, COLLINS, on_error="raise")["summary"]["all"]
    return {k: block[k] for k in EVALB_KEYS}


EVALB_KEYS = ("precision", "recall", "f", "matched", "gold_brackets", "test_brackets")
LA_KEYS = ("word_mean", "sentence_mean", "words", "sentences")


# -- leaf-ancestor --------------------------------------------------------------------


def _la_backend():
    st = _score_trees()
    if st is not None:
        return "evaluation.trees.score_trees('leaf-ancestor')", lambda g, t: _summary(st(g, t, "leaf-ancestor"))
    for name in ("evaluation.trees.leaf_ancestor", "evaluation.trees.leafancestor", "evaluation.trees.la"):
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        for fn in ("score_leaf_ancestor", "score"):
            if hasattr(mod, fn):
                f = getattr(mod, fn)
                return f"{name}.{fn}", lambda g, t, f=f: _summary(f(g, t))
    return "local fallback (evaluation.deps.treemetrics, sampson2003 costs)", _local_la


def leaf_ancestor_scores(gold: list[Tree], test: list[Tree]) -> dict:
    """Leaf-ancestor: ``{"word_mean", "sentence_mean"}`` (fractions), ``words``, ``sentences``."""
    _, fn = _la_backend()
    s = fn(gold, test)
    return {"word_mean": s["word_mean"], "sentence_mean": s["sentence_mean"],
            "words": s.get("words", 0), "sentences": s.get("sentences", len(gold))}


def implementations() -> dict:
    st = _score_trees()
    return {
        "evalb": "evaluation.trees.score_trees('evalb')" if st else "evaluation.trees.evalb.score_evalb (COLLINS.prm)",
        "leaf_ancestor": _la_backend()[0],
        "dependency": "evaluation.deps (head-rule conversion, Lin 1998 triples)",
    }


def _lineages(tree: Tree) -> list[list[str]]:
    out: list[list[str]] = []
    spans: dict[int, tuple[int, int]] = {}

    def span(node: Tree, start: int) -> int:
        if node.is_word:
            return start + 1
        end = start
        for k in node.children:
            end = span(k, end)
        spans[id(node)] = (start, end)
        return end

    span(tree, 0)

    def walk(node: Tree, ancestors: list[Tree], pos: list[int]) -> None:
        if node.is_word or node.is_preterminal:
            i = pos[0]
            pos[0] += 1
            chain = [a for a in reversed(ancestors) if a.is_phrasal]
            begin = [a for a in chain if spans[id(a)][0] == i]
            end = [a for a in chain if spans[id(a)][1] == i + 1]
            lin: list[str] = []
            for a in chain:
                if begin and a is begin[-1]:
                    lin.append("[")
                lin.append(a.label)
                if end and a is end[-1]:
                    lin.append("]")
            out.append(lin)
            return
        for k in node.children:
            walk(k, ancestors + [node], pos)

    walk(tree, [], [0])
    return out


def _cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if a not in "[]" and b not in "[]" and a[:1] and a[:1] == b[:1]:
        return 0.5
    return 2.0


def _similarity(c: list[str], g: list[str]) -> float:
    if not c and not g:
        return 1.0
    prev = [float(j) for j in range(len(g) + 1)]
    for i in range(1, len(c) + 1):
        cur = [float(i)] + [0.0] * len(g)
        for j in range(1, len(g) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + _cost(c[i - 1], g[j - 1]))
        prev = cur
    return 1 - prev[-1] / (len(c) + len(g))


def _local_la(gold: list[Tree], test: list[Tree]) -> dict:
    words: list[float] = []
    sents: list[float] = []
    for g, t in zip(gold, test):
        lg, lt = _lineages(g), _lineages(t)
        scores = [_similarity(c, x) for c, x in zip(lt, lg)]
        if scores:
            words += scores
            sents.append(sum(scores) / len(scores))
    return {"word_mean": sum(words) / len(words) if words else 0.0,
            "sentence_mean": sum(sents) / len(sents) if sents else 0.0,
            "words": len(words), "sentences": len(sents)}
