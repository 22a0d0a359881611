"""Leaf-ancestor (Sampson 2000): each word's lineage compared with the gold's, averaged over words and sentences."""
from __future__ import annotations

import numpy as np

from parseval.evaluation import stats
from parseval.evaluation.trees.leaf_ancestor import DEFAULT_DROP_TAGS, score_leaf_ancestor

from .base import Layer, rows_array
from .common import TreeMetric, tree_report


def _sentence(r: dict) -> list[str]:
    lines = ["%7d  %-6s %5d  %6.2f  %6.2f  %6.2f\n"
             % (r["index"], r["status"], len(r["words"]), 100 * r["score"], 100 * r["geig_unlabelled_f"],
                100 * r["geig_labelled_f"])]
    for w in r["words"]:
        if w["score"] < 1.0:
            lines.append("         %-16s %6.2f  gold: %s | test: %s\n"
                         % (w["word"], 100 * w["score"], w["gold"], w["test"]))
    return lines


def _summary(s: dict) -> list[str]:
    return ["=== Summary ===\n",
            "Sentences                 = %6d\n" % s["sentences"],
            "Error sentences           = %6d\n" % s["errors"],
            "Words                     = %6d\n" % s["words"],
            "LA, mean over words       = %6.2f\n" % (100 * s["word_mean"]),
            "LA, mean over sentences   = %6.2f\n" % (100 * s["sentence_mean"]),
            "GEIG unlabelled F (mean)  = %6.2f\n" % (100 * s["geig_unlabelled_f_mean"]),
            "GEIG labelled F (mean)    = %6.2f\n" % (100 * s["geig_labelled_f_mean"])]


def report(doc: dict) -> str:
    return tree_report(doc, "  Sent.  Status  Words   LA(%)  GEIG-U  GEIG-L\n", _sentence, _summary)


class LeafAncestor(TreeMetric):
    def rows(self, doc: dict) -> np.ndarray:
        out = []
        for r in doc["sentences"]:
            if r["status"] != "ok":
                out.append((0, 0, 0.0, 0, 0.0, 0.0, 0.0))
                continue
            words = r["words"]
            out.append((1, len(words), sum(w["score"] for w in words), int(bool(words)),
                        r["score"] if words else 0.0, r["geig_unlabelled_f"], r["geig_labelled_f"]))
        return rows_array(out, len(self.columns))

    def exact_sums(self, doc: dict, index) -> dict[str, float]:
        # The engine sums every word's score in one run; per-sentence subtotals would round differently.
        sentences = doc["sentences"] if index is None else [doc["sentences"][i] for i in index
                                                             if i < len(doc["sentences"])]
        return {"word_score": float(sum(w["score"] for r in sentences if r["status"] == "ok" for w in r["words"]))}

    def figures(self, s) -> dict:
        return {"summary.words": s["words"],
                "summary.word_mean": stats.ratio(s["word_score"], s["words"]),
                "summary.sentence_mean": stats.ratio(s["sentence_score"], s["scored"]),
                "summary.geig_unlabelled_f_mean": stats.ratio(s["geig_unlabelled_f"], s["ok"]),
                "summary.geig_labelled_f_mean": stats.ratio(s["geig_labelled_f"], s["ok"])}

    def from_args(self, args) -> dict:
        return {"costs": args.costs}


def score(gold, test, *, on_error, params, **where) -> dict:
    return score_leaf_ancestor(gold, test, costs=params.pop("costs", "sampson2003"),
                               drop_tags=params.pop("drop_tags", DEFAULT_DROP_TAGS), on_error=on_error, **where)


METRIC = LeafAncestor(
    name="leaf-ancestor", label="Leaf-ancestor",
    columns=("ok", "words", "word_score", "scored", "sentence_score", "geig_unlabelled_f", "geig_labelled_f"),
    ratios=("summary.word_mean", "summary.sentence_mean", "summary.geig_unlabelled_f_mean",
            "summary.geig_labelled_f_mean"),
    score=score, report=report, defaults={"on_error": "raise", "costs": "sampson2003"},
    layers=(
        Layer("leaf-ancestor", "Leaf-ancestor (word mean)", f="summary.word_mean",
              description="each word's lineage against the gold's, averaged over every word"),
        Layer("la-sentence", "Leaf-ancestor (sentence mean)", f="summary.sentence_mean",
              description="each sentence's leaf-ancestor score, averaged over sentences"),
    ),
)
