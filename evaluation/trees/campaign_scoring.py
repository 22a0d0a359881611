"""How a constituency campaign scores one metric on paired trees, given the campaign's parameters.

The constituency kind scores with it, and so does ``python -m evaluation reproduce --gold`` when
it scores a published run again without the platform (:mod:`evaluation.trees.rescore`), so the
two cannot drift apart. Pure: the tree library and the metric registry.
"""
from __future__ import annotations

from annotations.trees.transforms import make_transform
from evaluation import metrics
from evaluation.deps.convert import trees_to_dependencies

# The dependency metric on the trees converted through head rules (``dependency_via_head_rules``).
DEPENDENCY = "dependency"


def score_metric(metric: str, gold: list, test: list, params: dict):
    """``(document, per-sentence rows)`` of ``metric`` on ``gold`` and ``test`` trees, sentence by sentence."""
    transform = make_transform(params["transform"]) if params.get("transform") else None
    if metric == DEPENDENCY:  # the trees converted through head rules, then the dependency metric
        if transform is not None:
            gold, test = [transform(t.copy()) for t in gold], [transform(t.copy()) for t in test]
        return metrics.get(DEPENDENCY).score_with_rows(
            trees_to_dependencies(gold, params["head_rules"]), trees_to_dependencies(test, params["head_rules"]),
            punct="penn", pos="xpos")
    return metrics.get(metric).score_with_rows(gold, test, transform=transform)
