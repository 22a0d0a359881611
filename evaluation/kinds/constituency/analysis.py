"""The analysis of a constituency result (issue 38): the library's bucket counts (:mod:`parseval.evaluation.trees.buckets`:
evalb's matching bracket by bracket, COLLINS.prm's defaults, after the campaign's transform if it has one), and
one sentence drawn, the gold tree beside the run's."""
from __future__ import annotations

from parseval.annotations.trees.transforms import make_transform
from parseval.evaluation import stats
from parseval.evaluation.trees import buckets as tree_buckets

from .. import analysis
from ..contract import Analysis
from ..sentence.rows import one_sentence, paired_sentences
from ..sentence_svg import trees_svg


def analyse(kind, result) -> Analysis | None:
    params = result.document.get("parameters") or {}
    gold, test, where = paired_sentences(kind, result)
    gold_trees, test_trees = [p.unit for p in gold], [p.unit for p in test]
    if params.get("transform"):
        transform = make_transform(params["transform"])
        gold_trees, test_trees = [transform(t.copy()) for t in gold_trees], [transform(t.copy()) for t in test_trees]
    counts = tree_buckets.count(gold_trees, test_trees, strata=[genre for _, _, genre in where],
                                keys=[f"{d}/{s}" for d, s, _ in where], errors=True)
    document = tree_buckets.document(counts, bootstrap=int(params.get("bootstrap", 1000)),
                                     seed=int(params.get("seed", stats.DEFAULT_SEED)), confusions=True)
    return analysis.split(counts, document, compact=True)


def sentence_svg(kind, result, key: str, labels: dict) -> str | None:
    pair = one_sentence(kind, result, key)
    if pair is None:
        return None
    return trees_svg(pair[0].unit, pair[1].unit, labels)
