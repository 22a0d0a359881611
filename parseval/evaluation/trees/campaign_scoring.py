"""How a constituency campaign scores one metric on paired trees, given the campaign's parameters.

The constituency kind scores with it, and so does ``python -m evaluation reproduce --gold`` when
it scores a published run again without the platform (:mod:`parseval.evaluation.trees.rescore`), so the
two cannot drift apart. Pure: the tree library and the metric registry.
"""
from __future__ import annotations

from parseval.annotations.trees.headrules import best_builtin
from parseval.annotations.trees.transforms import make_transform
from parseval.evaluation import metrics
from parseval.evaluation.deps.convert import trees_to_dependencies
from parseval.evaluation.signature import extend_signature

# The dependency metric on the trees converted through head rules (``dependency_via_head_rules``).
DEPENDENCY = "dependency"


def score_metric(metric: str, gold: list, test: list, params: dict):
    """``(document, per-sentence rows)`` of ``metric`` on ``gold`` and ``test`` trees, sentence by sentence.

    The dependency metric converts the trees with ``params["head_rules"]`` (the kind resolves and checks the
    table before; without one, the built-in table that finds the most heads of the gold trees)."""
    transform = make_transform(params["transform"]) if params.get("transform") else None
    if metric == DEPENDENCY:  # the trees converted through head rules, then the dependency metric
        if transform is not None:
            gold, test = [transform(t.copy()) for t in gold], [transform(t.copy()) for t in test]
        rules = params.get("head_rules") or best_builtin(gold)
        doc, rows = metrics.get(DEPENDENCY).score_with_rows(
            trees_to_dependencies(gold, rules), trees_to_dependencies(test, rules), punct="penn", pos="xpos")
        doc["signature"] = extend_signature(doc["signature"], head_rules=rules)
        return doc, rows
    return metrics.get(metric).score_with_rows(gold, test, transform=transform)
