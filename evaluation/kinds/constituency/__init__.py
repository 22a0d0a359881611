"""Constituency campaigns: Penn or square-bracket tree files, the tree metrics the organiser picks.

``Campaign.metrics``: ``{"tree_metrics": ["evalb", "leaf-ancestor"], "transform": "",
"dependency_via_head_rules": true, "head_rules": "ftb"}`` (all optional; these are the defaults
except ``dependency_via_head_rules``, off unless set, and ``head_rules``). The tree metrics are the registry's
(``parseval.evaluation.metrics.TREE_METRICS``), e.g. ``evalb-unlabelled`` for trees labelled by another scheme.

Head rules are written for one tag set: Collins's Penn table finds 2% of the heads of French Treebank trees by
a rule, the rest by its fallback. So, without a ``head_rules`` option, the gold trees' labels choose the built-in
table at scoring (:meth:`ConstituencyKind.head_rules`), and a table that does not fit them, chosen or given, is
refused: the run fails saying so, rather than being scored on arbitrary heads. The table used goes into the
result's parameters and the dependency figures' signature.
"""
from __future__ import annotations

import logging
from pathlib import Path

from django.shortcuts import redirect
from django.utils.translation import gettext_lazy

from parseval.annotations.errors import InputError, Problem, N_
from parseval.annotations.limits import tree_nodes
from annotations.models import GoldDocument
from parseval.annotations.plausibility import tree_counts
from parseval.annotations.trees.headrules import BUILTIN, best_builtin, check_fit, load_head_rules
from parseval.annotations.trees.detect import read_sentences
from parseval.annotations.trees.penn import Forest, write_penn
from parseval.annotations.trees.transforms import make_transform

from parseval.evaluation import metrics
from parseval.evaluation.consensus.files import combine_tree_files
from parseval.evaluation.stats import ALL
from parseval.evaluation.trees import campaign_scoring
from parseval.evaluation.trees.campaign_scoring import DEPENDENCY
from parseval.evaluation.deps.errorlab import labels_in_text
from evaluation.pipeline.services import GoldMismatch

from ..sentence import Parsed, SentenceKind, bootstrap_parameters
from . import analysis as tree_analysis

logger = logging.getLogger(__name__)
NULL_TAG = "-NONE-"
DEFAULT_METRICS = ("evalb", "leaf-ancestor")


def tree_words(tree) -> list[str]:
    """The words a team receives: null elements are annotation, not words."""
    return [w for w, tag in tree.tagged_words() if tag != NULL_TAG]


class ConstituencyKind(SentenceKind):
    name = "constituency"
    label = N_("Constituency trees")
    suffixes = (".mrg", ".tree", ".txt")
    rescoring_engine = "trees"
    file_label = N_("tree file (Penn or square brackets)")
    file_help = N_("One tree file (.mrg, .tree or .txt; Penn or square brackets, one tree per corpus sentence, in "
                   "order), or a .zip or .tar.gz with one such file per corpus document, named after it.")
    option_keys = ("tree_metrics", "dependency_via_head_rules", "head_rules", "transform", "bootstrap", "seed")
    options_help = ('Constituency: {"tree_metrics": ["evalb", "evalb-unlabelled", "leaf-ancestor"], '
                    '"dependency_via_head_rules": true, "head_rules": "penn" or "ftb" (default: the one that '
                    'fits the gold trees\' labels), "transform": "strip-functions"}.')
    has_word_view = True  # the leaf-ancestor word-by-word view is this kind's diagnostics
    has_error_lab = True  # the lab damages phrase-structure trees: this kind's gold
    corpus_contents = gettext_lazy("zip: per document, its words (.tok), one sentence after another")

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
                problems.append(Problem(N_("a bracket with no word under it, such as (NP ): not allowed in a tree"),
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
        head_rules = options.get("head_rules") or None  # None: chosen by the gold trees' labels when scoring
        if head_rules is not None:
            try:
                load_head_rules(head_rules)
            except InputError as exc:
                raise ValueError(exc.problems[0].message) from None
        transform = options.get("transform") or ""
        if transform:
            try:
                make_transform(transform)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return {"metrics": chosen, "transform": transform, "head_rules": head_rules, **bootstrap_parameters(options)}

    def score(self, gold, test, genres, params, checksum, **kwargs) -> dict:
        if DEPENDENCY in self.metrics_of(params):  # the table is resolved once, and stored as resolved
            params = dict(params, head_rules=self.head_rules([g.unit for g in gold], params))
        return super().score(gold, test, genres, params, checksum, **kwargs)

    def result_parameters(self, setup, document: dict) -> dict:
        return {**setup.parameters, "head_rules": document["parameters"]["head_rules"]}  # as score() resolved it

    def head_rules(self, gold: list, params: dict) -> str:
        """The head-rule table the trees are converted with: the organisers' (``head_rules``), else the built-in
        table that finds the most heads of the gold trees by a rule; :class:`GoldMismatch` when it does not fit
        them (:func:`parseval.annotations.trees.headrules.check_fit`). The detail, with counts over the hidden gold, goes
        to the log; the run's reason names the table only."""
        if params["transform"]:
            transform = make_transform(params["transform"])
            gold = [transform(t.copy()) for t in gold]
        given = params.get("head_rules")
        name = given or best_builtin(gold)
        try:
            check_fit(gold, load_head_rules(name))
        except InputError as exc:
            logger.error("head rules %r refused for the gold trees: %s", name, exc.problems[0].message)
            others = ", ".join(n for n in BUILTIN if n != name)
            raise GoldMismatch(
                (f"the campaign's head rules {name!r} do not fit the labels of its gold trees (a table written for "
                 f"another tag set; the built-in ones: {', '.join(BUILTIN)}); the organisers can set head_rules to "
                 f"{others or 'a table of this tag set'} and re-score") if given else
                ("no built-in head-rule table fits the labels of the campaign's gold trees "
                 f"({', '.join(BUILTIN)}); the organisers can give a table of their tag set as head_rules")) from None
        return name

    def consensus_track(self, campaign) -> str | None:
        return ""  # no tracks: every run is on the corpus's words

    def combine_document(self, paths, folder, weights, thresholds, fallback):
        """Henderson and Brill's constituent voting (:mod:`parseval.evaluation.consensus.trees`); the trees and a side
        file of every span's and tag's agreement (none on a fallback: the run's own file)."""
        summary = combine_tree_files(paths, folder, weights, span_threshold=thresholds.get("spans", 0.5),
                                     fallback=fallback)
        side = folder / "consensus.agreement.tsv"
        return folder / "consensus.mrg", [side] if side.exists() else [], summary

    def consensus_figure(self, parameters: dict) -> tuple | None:
        """evalb F (labelled brackets) when the campaign scores it."""
        if "evalb" in self.metrics_of(parameters):
            return ("micro", "evalb", "", "", ALL)
        return super().consensus_figure(parameters)

    # -- the analysis explorer ------------------------------------------------------------------
    def analyse(self, result):
        """The library's bucket analysis of the trees (evalb's matching), with its sentences."""
        return tree_analysis.analyse(self, result)

    def sentence_svg(self, result, key: str, labels: dict | None = None):
        """The gold tree beside the run's, the brackets that differ marked."""
        return tree_analysis.sentence_svg(self, result, key, labels or {})

    def score_metric(self, metric: str, gold: list, test: list, params: dict):
        if metric == DEPENDENCY and not params.get("head_rules"):
            # as resolved by score(); a result stored before the resolution names its table too
            params = dict(params, head_rules=self.head_rules(gold, params))
        return campaign_scoring.score_metric(metric, gold, test, params)
