"""The Python API: one call per kind, returning a :class:`Result`.

>>> import parseval
>>> r = parseval.score_trees("data/evalb-sample/sample.gld", "data/evalb-sample/sample.tst", "evalb", bootstrap=1000)
>>> r.figures["summary.all.f"], r.intervals["summary.all.f"], r.signature

Each call does what the command line does for the same inputs (the command line is built on the same
functions): :attr:`Result.document` is the JSON document ``--json`` writes, byte for byte once dumped the
same way, and :attr:`Result.signature` names everything that produced the figures (scorer version,
metric, parameters, bootstrap). Gold and run are paths (files, or folders for EASY) or objects already
read (trees, CoNLL-U sentences, EASY documents). Bad input raises
:class:`parseval.annotations.errors.InputError`, whose ``problems`` say where.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from parseval.annotations.conllu import read_conllu
from parseval.annotations.easy.reader import document_key
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.errors import InputError, Problem
from parseval.evaluation import metrics, stats
from parseval.evaluation.cli.common import bootstrap_intervals
from parseval.evaluation.deps import conll18
from parseval.evaluation.deps.metrics import PunctRule
from parseval.evaluation.easy.files import gold_sha256, list_xml, pair_files
from parseval.evaluation.easy.ranges import MATCHES, MODES
from parseval.evaluation.easy.scoring import DEFAULT_BOOTSTRAP, DEFAULT_SEED, score_corpus_with_rows
from parseval.evaluation.figure_sets import figure_id
from parseval.evaluation.metrics.base import value_at
from parseval.evaluation.trees import score_files, score_trees as _score_tree_lists

PathLike = str | os.PathLike


@dataclass(frozen=True)
class Result:
    """What one scoring call gives.

    * ``figures``: ``{name: value}``, fractions in [0, 1] (None when undefined, never 0.0). Trees and
      dependencies: the metric's ratio figures by their dotted path in the document (``summary.all.f``,
      ``totals.las``, ``rows.LAS.f1``); EASY: the F of every way over all genres and types, by its figure id
      (``micro|relations|HYP|EQUAL``, as the platform's paired tests name it).
    * ``intervals``: ``{name: (low, high)}``, the 95% bootstrap interval of each figure (empty without
      a bootstrap; ``(None, None)`` when undefined).
    * ``rows``: one row of sufficient statistics per sentence, ``columns`` their names (EASY: the
      ``fc``, ``fp`` and ``cr`` of every way and type, the rows the platform's paired tests resample),
      ``row_ids`` the sentences in order (EASY: ``document/sentence id``).
      None for the CoNLL 2018 preset, whose alignment is over the whole text.
    * ``signature``: what produced the figures; ``document``: the engine's whole JSON document.
    """

    kind: str
    metric: str
    figures: dict[str, float | None]
    intervals: dict[str, tuple[float | None, float | None]]
    rows: np.ndarray | None
    columns: tuple[str, ...] | None
    row_ids: list[str] | None
    signature: str
    document: dict[str, Any] = field(repr=False)


def _is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike))


def _metric_result(kind: str, metric, doc: dict, rows, bootstrap: int, seed: int, row_ids) -> Result:
    if bootstrap:
        bootstrap_intervals(doc, metric, rows, bootstrap, seed)
    figures = {key: value_at(doc, key) for key in metric.ratios if value_at(doc, key) is not None}
    intervals = {}
    for key in figures:
        ci = value_at(doc, f"{key}_ci")
        if ci is not None:
            intervals[key] = (ci[0], ci[1])
    return Result(kind, metric.name, figures, intervals, rows, tuple(metric.columns) if rows is not None else None,
                  row_ids, doc["signature"], doc)


def score_trees(gold, test, metric: str = "evalb", *, bootstrap: int = 0, seed: int = stats.DEFAULT_SEED,
                **params) -> Result:
    """Constituency trees: ``metric`` one of ``evalb``, ``evalb-unlabelled``, ``geig1991``, ``conformance``,
    ``leaf-ancestor``; ``gold`` and ``test`` two tree files (format and layout detected) or two lists of
    trees. ``params`` are the metric's (see :func:`parseval.evaluation.trees.score_trees`: ``params`` for
    evalb, ``costs`` for leaf-ancestor, ``transform``, ``on_error``...)."""
    entry = metrics.get(metric)
    if entry.family != "trees":
        raise ValueError(f"{metric!r} is not a tree metric (expected one of {', '.join(metrics.TREE_METRICS)})")
    if _is_path(gold) and _is_path(test):
        doc = score_files(gold, test, metric, **params)
    else:
        doc = _score_tree_lists(list(gold), list(test), metric, **params)
    rows = entry.rows(doc)
    return _metric_result("trees", entry, doc, rows, bootstrap, seed, [str(r["index"]) for r in doc["sentences"]])


def score_deps(gold, test, *, preset: str | None = None, bootstrap: int = 0, seed: int = stats.DEFAULT_SEED,
               punct: str | PunctRule = "upos", pos: str | None = "upos", labels: bool | str = True,
               check_cycles: bool = True) -> Result:
    """Dependency parses: ``gold`` and ``test`` two CoNLL-U files or two lists of sentences
    (:func:`parseval.annotations.conllu.read_conllu`), paired one to one: Lin's precision and recall, UAS,
    LAS. ``preset="conll18"``: the CoNLL 2018 shared task's figures on two files in any tokenisation (its
    fixed rules; no rows, no bootstrap)."""
    if preset == "conll18":
        if bootstrap:
            raise InputError("the conll18 preset has no bootstrap: its alignment is over the whole text")
        doc = conll18.score_files(gold, test)
        return _metric_result("deps", metrics.get("conll18"), doc, None, 0, seed, None)
    if preset is not None:
        raise ValueError(f"unknown preset {preset!r} (expected conll18 or None)")
    gold_sentences = read_conllu(gold, check_cycles=check_cycles) if _is_path(gold) else list(gold)
    test_sentences = read_conllu(test, check_cycles=check_cycles) if _is_path(test) else list(test)
    if len(gold_sentences) != len(test_sentences):
        raise InputError(f"gold has {len(gold_sentences)} sentences, test has {len(test_sentences)}: they cannot "
                         "be paired one to one (preset='conll18' aligns a parse of the raw text by characters)")
    entry = metrics.get("dependency")
    doc, rows = entry.score_with_rows(gold_sentences, test_sentences,
                                      punct=punct if isinstance(punct, PunctRule) else PunctRule.parse(punct),
                                      pos=pos, labels=labels, per_sentence=False)
    if _is_path(gold) and _is_path(test):
        doc["files"] = {"gold": os.fspath(gold), "test": os.fspath(test)}
    ids = [s.sent_id or str(i) for i, s in enumerate(gold_sentences, 1)]
    return _metric_result("deps", entry, doc, rows, bootstrap, seed, ids)


def score_easy(gold, run, *, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
               genres: Mapping[str, str] | None = None, matches: Sequence[str] = MATCHES,
               modes: Sequence[str] = MODES, schema: EasySchema = DEFAULT_SCHEMA,
               allow_missing: bool = False) -> Result:
    """EASY: ``gold`` and ``run`` two files or folders of ``.xml`` documents paired by base name (two files
    are paired whatever their names), or two ``{document key: Document}`` mappings. A document's genre is
    its name up to the first ``_`` unless ``genres`` maps it."""
    checksum = ""
    if _is_path(gold) and _is_path(run):
        gold_files, run_files = list_xml(gold), list_xml(run)
        if Path(gold).is_file() and Path(run).is_file():
            pairs, unpaired = [(document_key(gold_files[0].name), gold_files[0], run_files[0])], []
        else:
            pairs, unpaired, _ = pair_files(gold_files, run_files)
        missing = [(k, g) for k, g, r in pairs if r is None]
        if missing and not allow_missing:
            raise InputError([Problem(f"no run file for gold document {k} (allow_missing scores it as empty "
                                      "output)", file=g.name) for k, g in missing])
        gold_docs = gold_files
        run_docs = dict([(k, r) for k, _, r in pairs if r is not None]
                        + [(document_key(p.name), p) for p in unpaired])
        checksum = gold_sha256(gold_files)
    else:
        gold_docs, run_docs = gold, run
    doc, (keys, _, rows), columns = score_corpus_with_rows(
        gold_docs, run_docs, genres, matches=matches, modes=modes, bootstrap=bootstrap, seed=seed,
        gold_sha256=checksum, schema=schema)
    figures, intervals = {}, {}
    for cell in doc["cells"] + doc["macro"]:
        if cell.get("genre") == stats.ALL and cell.get("type") == stats.ALL:
            name = figure_id(cell["aggregation"], cell["layer"], cell.get("mode") or "", cell.get("match") or "")
            figures[name] = cell.get("f")
            if bootstrap:
                intervals[name] = (cell.get("ci_low"), cell.get("ci_high"))
    return Result("easy", "easy", figures, intervals, rows, tuple(columns), keys, doc["signature"], doc)


__all__ = ["Result", "score_deps", "score_easy", "score_trees"]
