"""What the tree metrics other than evalb share: the report's frame and rewrite-rule loading."""
from __future__ import annotations

import os
from typing import Callable

import numpy as np

from parseval.annotations.trees.penn import BadSentence
from parseval.annotations.trees.tree import Tree
from parseval.evaluation.signature import extend_signature
from parseval.evaluation.trees.flatten import load_rules

from .base import Metric

_WHERE = ("gold_file", "test_file", "gold_lines", "test_lines")  # where errors are located: passed to the engine


class TreeMetric(Metric):
    """A constituency metric: its engine's document, with the transformation and the signature that names it
    (what :func:`parseval.evaluation.trees.score_trees` gives for this metric's name)."""

    def score_document(self, gold: list, test: list, **params) -> dict:
        transform = params.pop("transform", None)
        if transform is None:
            return self._score(gold, test, params)
        doc = self._score(_transformed(gold, transform), _transformed(test, transform), params)
        # A transformed score is another measurement: say so where scores are compared.
        spec = getattr(transform, "spec", None) or getattr(transform, "__name__", "custom")
        doc["transform"] = spec
        doc["signature"] = extend_signature(doc["signature"], transform=spec)
        return doc

    def _score(self, gold: list, test: list, params: dict) -> dict:
        on_error = params.pop("on_error", None) or self.defaults["on_error"]
        where = {k: params.pop(k) for k in _WHERE if k in params}
        doc = self.score(gold, test, on_error=on_error, params=params, **where)
        if params:
            raise TypeError(f"unexpected parameters: {', '.join(sorted(params))}")
        return doc

    def score_with_rows(self, gold, test, **options) -> tuple[dict, np.ndarray]:
        doc = self.score_document(gold, test, **options)
        return doc, self.rows(doc)


def _transformed(trees: list, transform: Callable[[Tree], Tree] | None) -> list:
    if transform is None:
        return trees
    return [t if isinstance(t, BadSentence) else transform(t.copy()) for t in trees]


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
    return load_rules(rules), os.path.basename(os.fspath(rules))
