"""Flat keys, recall and conformance (Gaizauskas, Hepple & Huyck 1998).

:func:`parse_rules` reads the flattening rule language, :func:`flatten`
applies it (function-tag stripping, first matching rule bottom-up, removal of
empty then unary structure, repeated to a fixed point), and
:func:`score_conformance` scores responses against (flat) keys on distinct
unlabelled spans: KeyCons, RespCons, Matched, KCV, recall, precision and
conformance. Ratios are fractions in [0, 1].

Rule language, one rule a line (``#`` starts a comment):

* ``(X Y1 ... Yi^ ... Yn)`` under a node labelled X whose children are
  exactly labelled Y1..Yn, delete child i (its children take its place);
* ``(X^ Y1 ... Yn)`` delete a node labelled X whose children are exactly Y1..Yn;
* ``X^`` delete every node labelled X.

The root is never deleted. Labels are compared after function-tag stripping;
a preterminal child is matched by its tag, a bare word by ``''``.
"""
from __future__ import annotations


from parseval.annotations.trees.tree import Tree
from parseval.evaluation.signature import make_signature

from parseval.annotations.trees.flatten_rules import NULL_TAGS, Rule, apply_rules_once, flatten, load_rules, parse_rule, parse_rules

from .common import constituents, crosses, pairs, prune

__all__ = ["NULL_TAGS", "PUNCT_TAGS", "Rule", "apply_rules_once", "flatten", "load_rules", "parse_rule", "parse_rules",
           "key_spans", "conformance_sentence", "score_conformance"]

PUNCT_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-"})


def key_spans(tree: Tree, *, exclude_tags=NULL_TAGS | PUNCT_TAGS) -> set[tuple[int, int]]:
    """Distinct spans of the phrasal nodes once punctuation and null elements are left out."""
    pruned = prune(tree, exclude_tags)
    if pruned is None:
        return set()
    return {(s, e) for _, s, e in constituents(pruned, labelled=False)}


def conformance_sentence(key: Tree, response: Tree, *, exclude_tags=NULL_TAGS | PUNCT_TAGS) -> dict:
    k = key_spans(key, exclude_tags=exclude_tags)
    r = key_spans(response, exclude_tags=exclude_tags)
    matched = len(k & r)
    violated = sum(1 for a, b in k if any(crosses(a, b, s, e) for s, e in r))
    return {
        "key": len(k), "response": len(r), "matched": matched, "violated": violated,
        "recall": matched / len(k) if k else 0.0,
        "precision": matched / len(r) if r else 0.0,
        "conformance": (len(k) - violated) / len(k) if k else 0.0,
    }


def score_conformance(
    gold_trees: list, test_trees: list, *, rules: list[Rule] | None = None, on_error: str = "raise",
    punctuation_tags=PUNCT_TAGS, null_tags=NULL_TAGS, rules_name: str | None = None, **where,
) -> dict:
    """Gold trees are the keys (flattened first with ``rules`` when given), test trees the responses."""
    exclude = frozenset(punctuation_tags) | frozenset(null_tags)
    problems: list[dict] = []
    rows = []
    totals = {"key": 0, "response": 0, "matched": 0, "violated": 0}

    def words(t: Tree) -> list[str]:
        p = prune(t, null_tags)
        return p.words() if p is not None else []

    for i, g, t, error in pairs(gold_trees, test_trees, words=words, on_error=on_error, problems=problems, **where):
        if error:
            rows.append({"index": i + 1, "status": "error", "message": error})
            continue
        key = flatten(g, rules, null_tags=null_tags) if rules else g
        row = {"index": i + 1, "status": "ok", **conformance_sentence(key, t, exclude_tags=exclude)}
        for name in totals:
            totals[name] += row[name]
        rows.append(row)
    k, r, m, v = totals["key"], totals["response"], totals["matched"], totals["violated"]
    summary = {
        "sentences": len(rows),
        "errors": sum(1 for row in rows if row["status"] == "error"),
        **totals,
        "recall": m / k if k else 0.0,
        "precision": m / r if r else 0.0,
        "conformance": (k - v) / k if k else 0.0,
    }
    if problems:
        summary["problems"] = problems
    return {
        "metric": "conformance",
        "signature": make_signature(
            "conformance", rules=rules_name or (f"{len(rules)}-rules" if rules else "none"),
            exclude=" ".join(sorted(exclude)), errors=on_error,
        ),
        "sentences": rows,
        "summary": summary,
    }
