"""How a dependency campaign scores one metric on paired sentences (gold-tokens track), given its parameters.

The dependency kind scores with it, and so does ``python -m evaluation reproduce --gold`` when it
scores a published run again without the platform (:mod:`parseval.evaluation.deps.rescore`). Pure.
"""
from __future__ import annotations

from parseval.evaluation import metrics

CONLL18 = "conll18"
# 100% on the gold words by construction: not published
GOLD_TOKENS_UNPUBLISHED = ("Tokens", "Sentences", "Words")


def score_metric(metric: str, gold: list, test: list, params: dict):
    """``(document, per-sentence rows)`` of ``metric`` on ``gold`` and ``test`` sentences, sentence by sentence."""
    if metric == CONLL18:
        doc, rows = metrics.get(CONLL18).score_with_rows(gold, test)
        for name in GOLD_TOKENS_UNPUBLISHED:
            doc["rows"].pop(name)
        return doc, rows
    return metrics.get(metric).score_with_rows(gold, test, punct=params["punct"], pos=params["pos"])
