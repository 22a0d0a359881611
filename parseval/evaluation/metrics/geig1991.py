"""GEIG 1991 (Black et al.): per-sentence bracket recall and precision after erasure, averaged over sentences."""
from __future__ import annotations

import numpy as np

from parseval.evaluation import stats
from parseval.evaluation.trees.geig import score_geig1991

from .base import Layer, rows_array
from .common import TreeMetric, rules_param, tree_report


def _sentence(r: dict) -> list[str]:
    return ["%7d  %-6s %4d  %4d  %5d  %6.2f %6.2f  %5d\n"
            % (r["index"], r["status"], r["standard"], r["candidate"], r["matched"], 100 * r["recall"],
               100 * r["precision"], r["crossing"])]


def _summary(s: dict) -> list[str]:
    return ["=== Summary ===\n",
            "Sentences                 = %6d\n" % s["sentences"],
            "Error sentences           = %6d\n" % s["errors"],
            "Mean recall               = %6.2f\n" % (100 * s["mean_recall"]),
            "Mean precision            = %6.2f\n" % (100 * s["mean_precision"]),
            "Mean crossing             = %6.3f\n" % s["mean_crossing"],
            "Crossing distribution     = %s\n" % ", ".join(f"{k}: {v}" for k, v in s["crossing_distribution"].items())]


def report(doc: dict) -> str:
    return tree_report(doc, "  Sent.  Status  Std  Cand  Match  Recall  Prec.  Cross\n", _sentence, _summary)


class Geig1991(TreeMetric):
    def rows(self, doc: dict) -> np.ndarray:
        return rows_array([(1, r["recall"], r["precision"], r["crossing"]) if r.get("status", "ok") == "ok"
                           else (0, 0.0, 0.0, 0) for r in doc["sentences"]], len(self.columns))

    def figures(self, s) -> dict:
        return {"summary.mean_recall": stats.ratio(s["recall"], s["ok"]),
                "summary.mean_precision": stats.ratio(s["precision"], s["ok"]),
                "summary.mean_crossing": stats.ratio(s["crossing"], s["ok"])}

    def from_args(self, args) -> dict:
        params = {}
        if args.param:
            params["table"] = args.param
        if args.rules:
            params["rules"] = args.rules
        return params


def score(gold, test, *, on_error, params, **where) -> dict:
    rules, rules_name = rules_param(params)
    return score_geig1991(gold, test, table=params.pop("table", "penn"), rules=rules, rules_name=rules_name,
                          on_error=on_error, **where)


METRIC = Geig1991(
    name="geig1991", label="GEIG 1991 (bracket recall and precision, sentence means)",
    columns=("ok", "recall", "precision", "crossing"),
    ratios=("summary.mean_recall", "summary.mean_precision"),
    score=score, report=report, defaults={"on_error": "raise", "table": "penn"},
    layers=(Layer("geig1991", "GEIG 1991 (P/R)", p="summary.mean_precision",
                  r="summary.mean_recall", description="bracket recall and precision after erasure, "
                  "averaged over sentences; no F"),),
)
