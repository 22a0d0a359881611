"""What the tree metrics other than evalb share: the report's frame and rewrite-rule loading."""
from __future__ import annotations

import os
from typing import Callable

import numpy as np

from .base import Metric


class TreeMetric(Metric):
    """A constituency metric: scored through :func:`parseval.evaluation.trees.score_trees` (transforms, signature)."""

    def score_with_rows(self, gold, test, **options) -> tuple[dict, np.ndarray]:
        from parseval.evaluation.trees import score_trees  # the engines' package imports this registry when scoring

        doc = score_trees(gold, test, self.name, **options)
        return doc, self.rows(doc)


def tree_report(doc: dict, header: str, sentence_line: Callable[[dict], list[str]],
                summary_lines: Callable[[dict], list[str]]) -> str:
    """``# signature``, a per-sentence table (error sentences with their message), then the summary."""
    lines = [f"# {doc['signature']}\n", header]
    for r in doc["sentences"]:
        if r["status"] != "ok":
            lines.append("%7d  %-6s  %s\n" % (r["index"], r["status"], r.get("message", "")))
            continue
        lines.extend(sentence_line(r))
    lines.extend(summary_lines(doc["summary"]))
    return "".join(lines)


def rules_param(params: dict) -> tuple[list | None, str | None]:
    """Rewrite rules given as a list or a file path: the rules and the file's name for the signature."""
    rules = params.pop("rules", None)
    if rules is None or isinstance(rules, list):
        return rules, None
    from parseval.evaluation.trees.flatten import load_rules

    return load_rules(rules), os.path.basename(os.fspath(rules))
