"""The analysis of a dependency result (issue 38): the library's bucket tables, the sentences behind every bucket,
the relations' confusion table and the run's errors word by word; and one sentence drawn, gold arcs above the
words, the run's below."""
from __future__ import annotations

from parseval.evaluation import buckets as registry
from parseval.evaluation.deps import buckets as deps_buckets
from parseval.evaluation.deps.metrics import PunctRule, attachment, punct_skips
from parseval.evaluation import stats

from .. import analysis
from ..contract import Analysis
from ..sentence.rows import one_sentence, paired_sentences
from ..sentence_svg import Arc, dependency_svg

METRIC = "dependency"
NO_RELATION = "—"  # the run's word has no head (or is missing)


def analyse(kind, result) -> Analysis | None:
    params = result.document.get("parameters") or {}
    if METRIC not in (params.get("metrics") or []):
        return None  # the raw-text track: the run's words are not the gold's, there is no word to bucket
    gold, test, where = paired_sentences(kind, result)
    g, t = [p.unit for p in gold], [p.unit for p in test]
    keys, genres = [f"{d}/{s}" for d, s, _ in where], [genre for _, _, genre in where]
    punct = PunctRule.parse(params.get("punct") or "upos")
    document = deps_buckets.analyse(g, t, punct=punct, bootstrap=int(params.get("bootstrap", 1000)),
                                    seed=int(params.get("seed", stats.DEFAULT_SEED)), strata=genres)

    def rel(word) -> str:
        return word.deprel

    buckets = {}
    for attribute in registry.attributes_for(deps_buckets.KIND):
        # The per-sentence counts behind each bucket (the same function the library's tables sum).
        labels, rows = deps_buckets._bucket_counts(attribute, g, t, punct, rel)
        buckets[attribute.name] = analysis.bucket_entries(labels, rows, len(deps_buckets.COUNT_COLUMNS))
    pairs, errors = [], []
    for i, (gs, ts) in enumerate(zip(g, t)):
        gskip, _ = punct_skips(punct, gs, ts)
        for k, gw in enumerate(gs.words):
            if gskip[k]:
                continue
            tw = ts.words[k] if k < len(ts.words) else None
            said = NO_RELATION if tw is None or tw.head is None else tw.deprel
            pairs.append((i, gw.deprel, said))
            head_ok, label_ok = attachment(gw, tw, rel) if tw is not None else (False, False)
            if not (head_ok and label_ok):
                run_head = "_" if tw is None or tw.head is None else tw.head
                errors.append([keys[i], str(gw.id), f"{gw.form} ({gw.id}): {gw.deprel} → {gw.head} / {said} → {run_head}"])
    rows, cells = analysis.confusion_table(pairs)
    document["confusions"] = [{"name": "relation", "description": "the run's relation of each scored gold word "
                               f"(all words, head right or wrong; {NO_RELATION}: no head)", "rows": rows}]
    figure = {"name": "las", "numerator": "correct", "denominator": "gold"}
    document["explorer"] = analysis.explorer_block(deps_buckets.COUNT_COLUMNS, deps_buckets.FIGURES, figure)
    return Analysis(document, analysis.index(keys, genres, deps_buckets.COUNT_COLUMNS, figure, buckets,
                                             {"relation": cells}, errors))


def sentence_svg(kind, result, key: str, labels: dict) -> str | None:
    pair = one_sentence(kind, result, key)
    if pair is None:
        return None
    gold, run = pair[0].unit, pair[1].unit
    words = [w.form for w in gold.words]
    gold_arcs = [Arc(w.head, w.id, w.deprel) for w in gold.words if w.head is not None]
    run_arcs = [Arc(w.head, w.id, w.deprel) for w in run.words if w.head is not None]
    return dependency_svg(words, gold_arcs, run_arcs, labels)
