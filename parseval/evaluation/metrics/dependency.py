"""Dependencies: Lin (1998) triples precision, recall and F, UAS, LAS and label accuracy."""
from __future__ import annotations

import numpy as np

from parseval.evaluation import stats
from parseval.evaluation.deps.metrics import ROW_COLUMNS, format_table, score_dependencies

from .base import Layer, Metric, rows_array


class Dependency(Metric):
    def score_with_rows(self, gold, test, **options) -> tuple[dict, np.ndarray]:
        rows: list[tuple] = []
        doc = score_dependencies(gold, test, rows=rows, **options)
        return doc, rows_array(rows, len(self.columns), np.int64)

    def figures(self, s) -> dict:
        p = stats.ratio(s["matched"], s["test"])
        r = stats.ratio(s["matched"], s["gold"])
        return {"totals.gold": s["gold"], "totals.test": s["test"], "totals.matched": s["matched"],
                "totals.precision": p, "totals.recall": r, "totals.f": stats.f_measure(p, r),
                "totals.uas": stats.ratio(s["head"], s["words"]), "totals.las": stats.ratio(s["head_label"], s["words"]),
                "totals.label_accuracy": stats.ratio(s["label"], s["words"])}


METRIC = Dependency(
    name="dependency", label="Dependencies (Lin 1998 triples, UAS, LAS)", family="deps",
    columns=ROW_COLUMNS,
    ratios=("totals.precision", "totals.recall", "totals.f", "totals.uas", "totals.las", "totals.label_accuracy"),
    score=score_dependencies, report=format_table, defaults={"punct": "upos", "pos": "upos", "labels": True},
    layers=(
        Layer("deps-lin", "Lin 1998 F (dependency triples)", f="totals.f", p="totals.precision", r="totals.recall",
              fc="totals.matched", fp="totals.test", cr="totals.gold",
              description="(word, POS, head) triples found in both; punctuation left out"),
        Layer("deps-uas", "UAS (unlabelled attachment)", f="totals.uas",
              description="words with the right head; punctuation left out"),
        Layer("deps-las", "LAS (labelled attachment)", f="totals.las",
              description="words with the right head and relation label, subtypes included; punctuation left out "
                          "(unlike LAS F1 of CoNLL 2018, which counts every word and the universal relation only)"),
    ),
)
