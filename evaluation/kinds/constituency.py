"""Constituency campaigns: Penn or square-bracket tree files, the tree metrics the organiser picks.

``Campaign.metrics``: ``{"tree_metrics": ["evalb", "leaf-ancestor"], "transform": "",
"dependency_via_head_rules": true, "head_rules": "penn"}`` (all optional; these are the defaults
except ``dependency_via_head_rules``, off unless set).
"""
from __future__ import annotations

from pathlib import Path

from annotations.errors import InputError

from .base import Parsed, SentenceKind

NULL_TAG = "-NONE-"
DEPENDENCY = "dependency"
DEFAULT_METRICS = ("evalb", "leaf-ancestor")


def tree_words(tree) -> list[str]:
    """The words a team receives: null elements are annotation, not words."""
    return [w for w, tag in tree.tagged_words() if tag != NULL_TAG]


class ConstituencyKind(SentenceKind):
    name = "constituency"
    label = "Constituency trees"
    suffixes = (".mrg", ".tree", ".txt")
    file_label = "tree file (Penn or square brackets)"

    def read(self, path: Path, display: str) -> list[Parsed]:
        from annotations.trees.detect import read_sentences

        try:
            trees, lines = read_sentences(path)
        except InputError as exc:
            for p in exc.problems:
                p.file = display
            raise
        return [Parsed(t, tree_words(t), str(i), line) for i, (t, line) in enumerate(zip(trees, lines), 1)]

    def write(self, units: list) -> bytes:
        from annotations.trees.penn import write_penn

        return write_penn(units).encode("utf-8")

    def parameters(self, campaign) -> dict:
        from evaluation.trees import METRICS

        options = campaign.metrics or {}
        metrics = [m for m in (options.get("tree_metrics") or DEFAULT_METRICS)]
        unknown = [m for m in metrics if m not in METRICS]
        if unknown:
            raise ValueError(f"unknown tree metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}")
        if options.get("dependency_via_head_rules"):
            metrics.append(DEPENDENCY)
        transform = options.get("transform") or ""
        if transform:
            from annotations.trees.transforms import make_transform

            try:
                make_transform(transform)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return {"metrics": metrics, "transform": transform,
                "head_rules": options.get("head_rules") or "penn"}

    def score_metric(self, metric: str, gold: list, test: list, params: dict) -> dict:
        from annotations.trees.transforms import make_transform

        transform = make_transform(params["transform"]) if params["transform"] else None
        if metric == DEPENDENCY:
            from evaluation.deps import score_dependencies
            from evaluation.deps.convert import trees_to_dependencies

            if transform is not None:
                gold, test = [transform(t.copy()) for t in gold], [transform(t.copy()) for t in test]
            return score_dependencies(trees_to_dependencies(gold, params["head_rules"]),
                                      trees_to_dependencies(test, params["head_rules"]), punct="penn", pos="xpos")
        from evaluation.trees import score_trees

        return score_trees(gold, test, metric, transform=transform)

    def figures(self, metric: str, doc: dict) -> list[dict]:
        if metric == DEPENDENCY:
            from .dependency import dependency_figures

            return dependency_figures(doc)
        s = doc["summary"]
        if metric == "evalb":
            a = s["all"]
            return [{"layer": "evalb", "p": a["precision"], "r": a["recall"], "f": a["f"], "fc": a["matched"],
                     "fp": a["test_brackets"], "cr": a["gold_brackets"]},
                    {"layer": "evalb-exact", "f": a["exact_match"]}]
        if metric == "geig1991":
            p, r = s["mean_precision"], s["mean_recall"]
            return [{"layer": "geig1991", "p": p, "r": r}]
        if metric == "conformance":
            return [{"layer": "conformance", "p": s["precision"], "r": s["recall"], "f": s["conformance"],
                     "fc": s["matched"], "fp": s["response"], "cr": s["key"]}]
        if metric == "leaf-ancestor":
            return [{"layer": "leaf-ancestor", "f": s["word_mean"]},
                    {"layer": "la-sentence", "f": s["sentence_mean"]}]
        raise ValueError(f"unknown metric {metric!r}")
