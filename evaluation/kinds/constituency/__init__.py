"""Constituency campaigns: Penn or square-bracket tree files, the tree metrics the organiser picks.

``Campaign.metrics``: ``{"tree_metrics": ["evalb", "leaf-ancestor"], "transform": "",
"dependency_via_head_rules": true, "head_rules": "penn"}`` (all optional; these are the defaults
except ``dependency_via_head_rules``, off unless set). The tree metrics are the registry's
(``evaluation.metrics.TREE_METRICS``), e.g. ``evalb-unlabelled`` for trees labelled by another scheme.
"""
from __future__ import annotations

import logging
from pathlib import Path

from django.shortcuts import redirect

from annotations.errors import InputError, Problem
from annotations.limits import tree_nodes
from annotations.models import GoldDocument
from annotations.plausibility import tree_counts
from annotations.trees.detect import read_sentences
from annotations.trees.penn import Forest, write_penn
from annotations.trees.transforms import make_transform

from evaluation import metrics
from evaluation.consensus.files import combine_tree_files
from evaluation.stats import ALL
from evaluation.deps.convert import trees_to_dependencies
from evaluation.deps.errorlab import labels_in_text

from ..sentence import Parsed, SentenceKind, bootstrap_parameters

logger = logging.getLogger(__name__)
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
    file_help = ("One tree file (.mrg, .tree or .txt; Penn or square brackets, one tree per corpus sentence, in "
                 "order), or a .zip or .tar.gz with one such file per corpus document, named after it.")
    option_keys = ("tree_metrics", "dependency_via_head_rules", "head_rules", "transform", "bootstrap", "seed")
    options_help = ('Constituency: {"tree_metrics": ["evalb", "evalb-unlabelled", "leaf-ancestor"], '
                    '"dependency_via_head_rules": true, "head_rules": "penn", "transform": "strip-functions"}.')
    has_word_view = True  # the leaf-ancestor word-by-word view is this kind's diagnostics

    def diagnostics_page(self, request, run):
        return redirect("lab:run_leaf_ancestor", pk=run.pk)

    def gold_tree_labels(self, campaign) -> set[str]:
        labels: set[str] = set()
        for gold in GoldDocument.objects.filter(document__campaign=campaign):
            try:
                with gold.file.open("rb") as fh:
                    labels |= labels_in_text(fh.read().decode("utf-8", "replace"))
            except OSError:  # a missing file is the integrity check's business, not the lab's
                logger.warning("gold file of %s unreadable for the lab's preset", gold.document)
        return labels

    def read(self, path: Path, display: str) -> list[Parsed]:
        try:
            trees, lines = read_sentences(path)
        except InputError as exc:
            for p in exc.problems:
                p.file = display
            raise
        return [Parsed(t, tree_words(t), str(i), line) for i, (t, line) in enumerate(zip(trees, lines), 1)]

    def scorability_problems(self, parsed: list[Parsed], display: str) -> list[Problem]:
        problems = super().scorability_problems(parsed, display)
        for p in parsed:
            # the head rules cannot choose a head among no children; evalb and the others skip such a node
            if any(not node.children and node is not p.unit for node in p.unit.subtrees()) or \
                    (not p.unit.children and not isinstance(p.unit, Forest)):
                problems.append(Problem("a bracket with no word under it, such as (NP ): not allowed in a tree",
                                        file=display, line=p.line, sentence=p.sid))
        return problems

    def plausibility_counts(self, parsed: Parsed) -> dict[str, int]:
        return tree_counts(parsed.unit)

    def sizes(self, parsed: Parsed) -> dict[str, int]:
        # the reader has already refused trees nested too deep
        return {"words": len(parsed.words), "nodes": tree_nodes(parsed.unit)}

    def write(self, units: list) -> bytes:
        return write_penn(units).encode("utf-8")

    def parameters(self, campaign, run=None) -> dict:
        options = campaign.metrics or {}
        chosen = [m for m in (options.get("tree_metrics") or DEFAULT_METRICS)]
        unknown = [m for m in chosen if m not in metrics.TREE_METRICS]
        if unknown:
            raise ValueError(f"unknown tree metric(s) {', '.join(unknown)}; choose from {', '.join(metrics.TREE_METRICS)}")
        if options.get("dependency_via_head_rules"):
            chosen.append(DEPENDENCY)
        transform = options.get("transform") or ""
        if transform:
            try:
                make_transform(transform)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return {"metrics": chosen, "transform": transform, "head_rules": options.get("head_rules") or "penn",
                **bootstrap_parameters(options)}

    def consensus_track(self, campaign) -> str | None:
        return ""  # no tracks: every run is on the corpus's words

    def combine_document(self, paths, folder, weights):
        """Henderson and Brill's constituent voting (:mod:`evaluation.consensus.trees`); the trees and a side
        file of every span's and tag's agreement."""
        summary = combine_tree_files(paths, folder, weights)
        return folder / "consensus.mrg", [folder / "consensus.agreement.tsv"], summary

    def consensus_figure(self, parameters: dict) -> tuple | None:
        """evalb F (labelled brackets) when the campaign scores it."""
        if "evalb" in self.metrics_of(parameters):
            return ("micro", "evalb", "", "", ALL)
        return super().consensus_figure(parameters)

    def score_metric(self, metric: str, gold: list, test: list, params: dict):
        transform = make_transform(params["transform"]) if params["transform"] else None
        if metric == DEPENDENCY:  # the trees converted through head rules, then the dependency metric
            if transform is not None:
                gold, test = [transform(t.copy()) for t in gold], [transform(t.copy()) for t in test]
            return metrics.get(DEPENDENCY).score_with_rows(
                trees_to_dependencies(gold, params["head_rules"]), trees_to_dependencies(test, params["head_rules"]),
                punct="penn", pos="xpos")
        return metrics.get(metric).score_with_rows(gold, test, transform=transform)
