"""The analysis of a dependency result (issue 38): the library's bucket counts (:mod:`parseval.evaluation.deps.buckets`)
of the run against its gold, and one sentence drawn, gold arcs above the words, the run's below."""
from __future__ import annotations

from parseval.evaluation import stats
from parseval.evaluation.deps import buckets as deps_buckets

from .. import analysis
from ..contract import Analysis
from ..sentence.rows import one_sentence, paired_sentences
from ..sentence_svg import Arc, dependency_svg

METRIC = "dependency"


def analyse(kind, result) -> Analysis | None:
    params = result.document.get("parameters") or {}
    if METRIC not in (params.get("metrics") or []):
        return None  # the raw-text track: the run's words are not the gold's, there is no word to bucket
    gold, test, where = paired_sentences(kind, result)
    counts = deps_buckets.count([p.unit for p in gold], [p.unit for p in test], punct=params.get("punct") or "upos",
                                strata=[genre for _, _, genre in where], keys=[f"{d}/{s}" for d, s, _ in where],
                                errors=True)
    document = deps_buckets.document(counts, bootstrap=int(params.get("bootstrap", 1000)),
                                     seed=int(params.get("seed", stats.DEFAULT_SEED)), confusions=True)
    return analysis.split(counts, document, compact=True)


def sentence_svg(kind, result, key: str, labels: dict) -> str | None:
    pair = one_sentence(kind, result, key)
    if pair is None:
        return None
    gold, run = pair[0].unit, pair[1].unit
    words = [w.form for w in gold.words]
    gold_arcs = [Arc(w.head, w.id, w.deprel) for w in gold.words if w.head is not None]
    run_arcs = [Arc(w.head, w.id, w.deprel) for w in run.words if w.head is not None]
    return dependency_svg(words, gold_arcs, run_arcs, labels)
