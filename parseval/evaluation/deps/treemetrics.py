"""The error lab's view of the constituency metrics: evalb (COLLINS.prm) and leaf-ancestor (sampson2003).

Nothing is re-implemented here: both go through :func:`parseval.evaluation.trees.score_trees`.
:func:`implementations` names what was called; the lab's report carries that line.
"""
from __future__ import annotations

from parseval.annotations.trees.tree import Tree
from parseval.evaluation.trees import score_trees

EVALB_KEYS = ("precision", "recall", "f", "matched", "gold_brackets", "test_brackets")
LA_KEYS = ("word_mean", "sentence_mean", "words", "sentences")


def evalb_scores(gold: list[Tree], test: list[Tree]) -> dict:
    """PARSEVAL as evalb with COLLINS.prm: ``{"precision", "recall", "f"}`` (fractions)
    and the bracket counts ``matched``, ``gold_brackets``, ``test_brackets``."""
    # on_error="raise": a damaged tree always keeps its original's words, so a
    # mismatch is a bug to report, not an evalb "error sentence" to skip silently
    block = score_trees(gold, test, "evalb", on_error="raise")["summary"]["all"]
    return {k: block[k] for k in EVALB_KEYS}


def leaf_ancestor_scores(gold: list[Tree], test: list[Tree]) -> dict:
    """Leaf-ancestor: ``{"word_mean", "sentence_mean"}`` (fractions), ``words``, ``sentences``."""
    s = score_trees(gold, test, "leaf-ancestor", costs="sampson2003")["summary"]
    return {k: s[k] for k in LA_KEYS}


def implementations() -> dict:
    return {
        "evalb": "parseval.evaluation.trees.score_trees('evalb')",
        "leaf_ancestor": "parseval.evaluation.trees.score_trees('leaf-ancestor', costs='sampson2003')",
        "dependency": "parseval.evaluation.deps (head-rule conversion, Lin 1998 triples)",
    }
