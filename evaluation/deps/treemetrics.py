"""Adapter from the error lab to the constituency metrics.

The lab calls the project's own implementations (``evaluation.trees``):
``score_trees(gold, test, "evalb")`` / ``"leaf-ancestor"`` when the common
entry point exists, else the metric modules directly (nothing is
re-implemented here). :func:`implementations` names what was called; the
lab's report carries that line.
"""
from __future__ import annotations

import importlib

from annotations.errors import InputError
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
        def run(g, t):
            return _summary(st(g, t, "leaf-ancestor", costs="sampson2003"))

        return "evaluation.trees.score_trees('leaf-ancestor', costs='sampson2003')", run
    for name in ("evaluation.trees.leaf_ancestor", "evaluation.trees.leafancestor", "evaluation.trees.la"):
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        for fn in ("score_leaf_ancestor", "score"):
            if hasattr(mod, fn):
                f = getattr(mod, fn)
                return f"{name}.{fn}", lambda g, t, f=f: _summary(f(g, t))
    raise InputError("the leaf-ancestor metric (evaluation.trees) is not available in this build")


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
