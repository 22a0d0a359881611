"""Conformance (flat keys): spans of the gold's flattened brackets found, and not crossed, in the test trees."""
from __future__ import annotations

import numpy as np

from parseval.evaluation import stats
from parseval.evaluation.trees.flatten import score_conformance

from .base import Layer, rows_array
from .common import TreeMetric, rules_param, tree_report

COUNTS = ("key", "response", "matched", "violated")


def _sentence(r: dict) -> list[str]:
    return ["%7d  %-6s  %7d  %8d  %7d  %3d  %6.2f %6.2f %6.2f\n"
            % (r["index"], r["status"], r["key"], r["response"], r["matched"], r["violated"], 100 * r["recall"],
               100 * r["precision"], 100 * r["conformance"])]


def _summary(s: dict) -> list[str]:
    lines = ["=== Summary (pooled) ===\n"]
    lines += ["%-25s = %6d\n" % (key.capitalize(), s[key]) for key in ("sentences", "errors") + COUNTS]
    lines += ["%-25s = %6.2f\n" % (key.capitalize(), 100 * s[key]) for key in ("recall", "precision", "conformance")]
    return lines


def report(doc: dict) -> str:
    return tree_report(doc, "  Sent.  Status  KeyCons  RespCons  Matched  KCV  Recall  Prec.  Conf.\n", _sentence,
                       _summary)


class Conformance(TreeMetric):
    def rows(self, doc: dict) -> np.ndarray:
        return rows_array([tuple(r[c] for c in COUNTS) if r["status"] == "ok" else (0, 0, 0, 0)
                           for r in doc["sentences"]], len(self.columns), np.int64)

    def figures(self, s) -> dict:
        return {"summary.key": s["key"], "summary.response": s["response"], "summary.matched": s["matched"],
                "summary.recall": stats.ratio(s["matched"], s["key"]),
                "summary.precision": stats.ratio(s["matched"], s["response"]),
                "summary.conformance": stats.ratio(s["key"] - s["violated"], s["key"])}

    def from_args(self, args) -> dict:
        return {"rules": args.param or args.rules} if (args.param or args.rules) else {}


def score(gold, test, *, on_error, params, **where) -> dict:
    rules, rules_name = rules_param(params)
    return score_conformance(gold, test, rules=rules, rules_name=rules_name, on_error=on_error, **where)


METRIC = Conformance(
    name="conformance", label="Conformance to flat keys",
    columns=COUNTS,
    ratios=("summary.recall", "summary.precision", "summary.conformance"),
    score=score, report=report, defaults={"on_error": "raise"},
    layers=(Layer("conformance", "Conformance", f="summary.conformance",
                  p="summary.precision", r="summary.recall", fc="summary.matched", fp="summary.response",
                  cr="summary.key", description="share of the gold's flat-key spans no test bracket crosses"),),
)
