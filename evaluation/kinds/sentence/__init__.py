"""What the tree and dependency kinds share: a corpus of sentences, one gold file per document.

A kind subclass says how to read its files (:meth:`SentenceKind.read`), what
the words of a sentence are, and how to score paired gold/test sentences with
the library (:meth:`SentenceKind.score_metric`). Everything else lives here
or in :class:`~evaluation.kinds.documents.DocumentKind`, which EASY shares:
import (corpus text apart from gold, all or nothing), validation of a run
against the corpus text (never the gold), loading the gold of the run's
subset, the per-genre documents, and the ``cells`` rows the results pages read.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from parseval.annotations.errors import InputError, Problem, N_
from parseval.annotations import plausibility
from parseval.annotations.limits import size_problems
from campaign.services.corpus import ImportSummary, StoredDocument, store_corpus  # one import, every kind
from campaign.stored_files import local_copy
from campaign.subsets import missing_document_message, sentences_to_cover
from parseval.evaluation import metrics, stats
from parseval.evaluation.easy.scoring import DEFAULT_BOOTSTRAP
from parseval.evaluation.metrics.base import nested, value_at
from evaluation.pipeline.services import NoGold  # NoGold: the task tells the team this one as is
from parseval.evaluation.version import SCORER_VERSION

from parseval.evaluation.figure_sets import metric_figures

from ..contract import Combined, Progress, RunSetup
from ..documents import DocumentKind, RunCheck
from . import pages
from .rows import rescored_rows
from .alignment import order_problems
from .tokens import SUFFIX as TEXT_SUFFIX, TextSentence, read_tokens, write_tokens

ALL = "ALL"


@dataclass
class Parsed:
    """One sentence read from a file: the library's object, its words, id and line."""

    unit: object
    words: list[str]
    sid: str
    line: int | None




class SentenceKind(DocumentKind):
    """A kind whose files are sentences in order, one gold file per corpus document (see the module)."""

    # -- to be given by each kind --------------------------------------------------------
    def read(self, path: Path, display: str) -> list[Parsed]:
        raise NotImplementedError

    def score_metric(self, metric: str, gold: list, test: list, params: dict) -> tuple[dict, object]:
        """The library's JSON document for one metric and its per-sentence rows (see :mod:`parseval.evaluation.metrics`)."""
        raise NotImplementedError

    # -- names ---------------------------------------------------------------------------
    def document_name(self, filename: str) -> str:
        base = Path(filename).name
        for suffix in self.suffixes:
            if base.lower().endswith(suffix):
                return base[: -len(suffix)]
        return base

    # -- import --------------------------------------------------------------------------
    def import_corpus(self, campaign, gold_paths: Iterable[Path | str], *, genres: Mapping[str, str] | None = None,
                      subset: str = "test", actor=None) -> ImportSummary:
        """Gold files, one per corpus document (name = file name without its suffix). All or nothing:
        every problem is reported in one :class:`InputError` and nothing is kept."""
        paths = {self.document_name(str(p)): Path(p) for p in gold_paths}
        if not paths:
            raise InputError(N_("no gold file given"))
        problems: list[Problem] = []
        for name, path in paths.items():
            if not any(path.name.lower().endswith(s) for s in self.suffixes):
                problems.append(Problem(N_('not a %(file_label)s (expected %(value)s)') % {"file_label": self.file_label, "value": ', '.join(self.suffixes)},
                                        file=path.name))
        existing = set(campaign.documents.filter(name__in=list(paths)).values_list("name", flat=True))
        problems += [Problem(N_("a document of this name is already in the campaign"), file=paths[n].name)
                     for n in sorted(existing)]
        loaded = []
        for name, path in sorted(paths.items()):
            try:
                parsed = self.read(path, path.name)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(Problem(N_('cannot be read: %(exc)s') % {"exc": exc}, file=path.name))
                continue
            if not parsed:
                problems.append(Problem(N_("the gold file has no sentence"), file=path.name))
            problems.extend(self.scorability_problems(parsed, path.name))
            seen: set[str] = set()
            for p in parsed:
                if p.sid in seen:
                    problems.append(Problem(N_('sentence id %(sid)r appears twice') % {"sid": p.sid}, file=path.name, line=p.line,
                                            sentence=p.sid))
                seen.add(p.sid)
            loaded.append((name, path, parsed))
        if problems:
            raise InputError(problems)
        genre_map = dict(genres or {})
        documents = [
            StoredDocument(name=name, gold_path=path, text_name=f"{name}{TEXT_SUFFIX}",
                           text=write_tokens([TextSentence(p.sid, tuple(p.words)) for p in parsed]),
                           sentences=[(p.sid, len(p.words)) for p in parsed], gold_ids={p.sid for p in parsed},
                           genre=genre_map.get(name), extras=self.extra_texts(parsed))
            for name, path, parsed in loaded
        ]
        return store_corpus(campaign, documents, subset=subset, actor=actor, kind=self.name)

    def extra_texts(self, parsed: list[Parsed]) -> dict[str, bytes]:
        """More team-facing files of a document, by suffix (see :mod:`campaign.services.downloads`): none here."""
        return {}

    # -- validation: against the corpus text (the loop is DocumentKind's) -----------------
    def check_document(self, check: RunCheck, doc, path: Path | None, cover: dict[str, set[str]] | None) -> int:
        """One corpus document's run file against its text sentences (``path`` None: no file)."""
        expected = self.expected_sentences(doc, cover)
        display = self.display(doc.name)
        if path is None:
            check.problems.append(Problem(missing_document_message(doc.name, cover), file=display))
        else:
            check.problems += self.check_file(path, display, expected, "the corpus document" if cover is None
                                              else "the document's development sample")
        return len(expected)

    def report_fields(self, check: RunCheck) -> dict:
        return {"kind": self.name}

    @staticmethod
    def expected_sentences(doc, cover: dict[str, set[str]] | None) -> list[TextSentence]:
        """The corpus text sentences of ``doc`` a run file must hold, in corpus order: all of them, or
        those ``cover`` (:func:`campaign.subsets.sentences_to_cover`) names for the document."""
        with doc.text_file.open("rb") as fh:
            expected = read_tokens(fh.read(), file=f"{doc.name}{TEXT_SUFFIX}")
        if cover is None:
            return expected
        wanted = cover.get(doc.name, set())
        return [e for e in expected if e.sid in wanted]

    def check_file(self, path: Path, display: str, expected: list[TextSentence],
                   against: str = "the corpus document") -> list[Problem]:
        try:
            parsed = self.read(path, display)
        except InputError as exc:
            return list(exc.problems)
        except UnicodeDecodeError as exc:
            return [Problem(N_('not UTF-8 text (%(reason)s at byte %(start)s)') % {"reason": exc.reason, "start": exc.start}, file=display)]
        problems = self.scorability_problems(parsed, display)
        for p in parsed:  # runs only: the bound is measured on gold and real parsers (parseval.annotations.plausibility)
            problems += plausibility.problems(len(p.words), self.plausibility_counts(p), file=display, line=p.line,
                                              sentence=p.sid)
        return problems + order_problems(parsed, expected, display, against)

    def scorability_problems(self, parsed: list[Parsed], display: str) -> list[Problem]:
        """Every sentence beyond :mod:`parseval.annotations.limits`, checked the same way for each one."""
        problems = []
        for p in parsed:
            problems += size_problems(self.sizes(p), file=display, line=p.line, sentence=p.sid)
        return problems

    def sizes(self, parsed: Parsed) -> dict[str, int]:
        """The counts of one sentence that :mod:`parseval.annotations.limits` bounds."""
        return {"words": len(parsed.words)}

    def plausibility_counts(self, parsed: Parsed) -> dict[str, int]:
        """The counts of one run sentence that :mod:`parseval.annotations.plausibility` bounds by its words: none by
        default (a dependency run has one head per word, so its counts are its words)."""
        return {}

    # -- released gold ---------------------------------------------------------------------
    def write(self, units: list) -> bytes:
        """The gold sentences ``units`` (the library's objects) as one file of this kind."""
        raise NotImplementedError

    def gold_file(self, gold, keep: set[str]) -> bytes:
        with local_copy(gold.file, sha256=gold.sha256) as path:
            parsed = self.read(path, self.display(gold.document.name))
        return self.write([p.unit for p in parsed if p.sid in keep])

    # -- scoring: against the gold of the run's subset -----------------------------------
    def gold_sentences(self, gold, wanted: set[str], setup: RunSetup | None = None) -> tuple[list[Parsed], bool]:
        with local_copy(gold.file, sha256=gold.sha256) as path:
            parsed = self.read(path, self.display(gold.document.name))
        keep = [p for p in parsed if p.sid in wanted]
        return keep, len(keep) == len(parsed)

    def scored_lines(self, documents: list) -> list[str]:
        return [f"{doc.name}:{p.sid}" for doc, kept in documents for p in kept]

    def paired_gold(self, run) -> tuple[list[Parsed], list[tuple[str, str, str]], str]:
        """``(gold sentences, [(document, sid, genre)], checksum)`` of the run's subset, in corpus order."""
        documents, checksum = self.load_gold(run)
        gold = [p for _, kept in documents for p in kept]
        where = [(doc.name, p.sid, doc.genre.code) for doc, kept in documents for p in kept]
        return gold, where, checksum

    def score_run_files(self, run, files: dict[str, Path], setup: RunSetup,
                        progress: Progress | None = None) -> dict:
        gold, where, checksum = self.paired_gold(run)
        if not gold:
            raise NoGold("the development sample is empty" if run.scope == "dev"
                         else "the campaign has no gold for its test set yet")
        test_by_doc: dict[str, dict[str, Parsed]] = {}
        for name in {d for d, _, _ in where}:
            test_by_doc[name] = {p.sid: p for p in self.run_sentences(files[name], name, run)}
        test = [test_by_doc[d][s] for d, s, _ in where]
        return self.score(gold, test, [g for _, _, g in where], setup.parameters, checksum,
                          sentences=[{"document": d, "sid": s, "genre": g} for d, s, g in where],
                          progress=progress)

    def run_sentences(self, path: Path, name: str, run) -> list[Parsed]:
        """The run's sentences under the corpus ids (a run file need not carry ids: order decides, over the
        sentences its scope covers)."""
        doc = run.campaign.documents.get(name=name)
        cover = sentences_to_cover(run.campaign, run.scope)
        expected = self.expected_sentences(doc, cover)
        parsed = self.read(path, self.display(name))
        if cover is not None and len(parsed) != len(expected):
            # A file of the whole document scored on part of it (a test run on the development sample, which
            # weighs a consensus): paired with every sentence of the document, then narrowed.
            whole = self.expected_sentences(doc, None)
            if len(parsed) == len(whole):
                wanted = cover.get(name, set())
                return [Parsed(p.unit, p.words, e.sid, p.line) for p, e in zip(parsed, whole) if e.sid in wanted]
        return [Parsed(p.unit, p.words, e.sid, p.line) for p, e in zip(parsed, expected)]

    def score(self, gold: list[Parsed], test: list[Parsed], genres: list[str], params: dict, checksum: str, *,
              sentences: list[dict] | None = None, progress: Progress | None = None,
              scored: dict[str, tuple[dict, np.ndarray]] | None = None) -> dict:
        """The result document: each metric scored once over every sentence; per genre and intervals from its rows.

        ``scored``: ``{metric: (document, rows)}`` already computed (one row per gold sentence), for runs
        that are not paired with the gold sentence by sentence; ``gold`` and ``test`` are then not read.
        """
        names = self.metrics_of(params)
        bootstrap = int(params.get("bootstrap", DEFAULT_BOOTSTRAP))
        seed = int(params.get("seed", stats.DEFAULT_SEED))
        gold_units, test_units = [g.unit for g in gold], [t.unit for t in test]
        documents, by_genre, cells = {}, {code: {} for code in sorted(set(genres))}, []
        for done, name in enumerate(names, 1):
            metric = metrics.get(name)
            doc, rows = (scored[name] if scored and name in scored
                         else self.score_metric(name, gold_units, test_units, params))
            documents[name] = doc
            if len(rows) < len(genres):  # evalb stopped at MAX_ERROR: the sentences after it count for nothing
                rows = np.vstack([rows, np.zeros((len(genres) - len(rows), rows.shape[1]), dtype=rows.dtype)])
            per_genre = stats.aggregate(rows, metric.columns, genres, metric.figures,
                                        exact=lambda index, metric=metric, doc=doc: metric.exact_sums(doc, index))
            intervals = stats.bootstrap_intervals(rows, metric.columns, genres, metric.figures, bootstrap=bootstrap,
                                                  seed=seed, ratios=metric.ratios)
            for code in by_genre:
                by_genre[code][name] = nested(per_genre[code])
            cells += layer_cells(metric, doc, per_genre, intervals)
            if progress:
                progress(done, len(names))
        return {
            "kind": self.name,
            "signature": f"kind:{self.name}|" + "|".join(f"{m}:{documents[m].get('signature', '')}" for m in names),
            "scorer_version": SCORER_VERSION,
            "gold_sha256": checksum,
            "parameters": params,
            "bootstrap": {"resamples": bootstrap, "seed": seed, "strata": "genre", "ci_level": stats.CI_LEVEL},
            "metrics": documents,
            "genres": by_genre,
            "sentences": sentences or [],
            "cells": cells,
            "macro": [],
        }

    # -- consensus (evaluation.consensus.runs) ------------------------------------------------
    def combine_document(self, paths: list[Path], folder: Path, weights, thresholds: dict,
                         fallback: int | None) -> tuple[Path, list[Path], object]:
        """The consensus of one document's run files (one per run, the same sentences in the same order):
        ``(the consensus as a run file, the treebank files, the engine's summary)``; ``fallback=i``: run
        ``i``'s file itself."""
        raise NotImplementedError(f"campaigns of kind {self.name!r} cannot combine their runs")

    def combine(self, runs, weights, out: Path, *, thresholds: dict | None = None,
                fallback: int | None = None) -> Combined:
        """Document by document (every valid test run has a file for every corpus document): the run's file is
        named as a team's would be, the treebank's side files after the document (``NAME.conllup``...); the
        treebank is both."""
        if self.consensus_track(None if not runs else runs[0][0].campaign) is None:
            return super().combine(runs, weights, out, thresholds=thresholds, fallback=fallback)  # refused: the kind says it cannot combine
        names = sorted(set.intersection(*(set(files) for _, files in runs))) if runs else []
        (out / "run").mkdir(parents=True, exist_ok=True)
        (out / "treebank").mkdir(parents=True, exist_ok=True)
        made, treebank, sentences, items, agreement = {}, [], 0, 0, 0.0
        for name in names:
            run_file, extra, summary = self.combine_document([files[name] for _, files in runs],
                                                             out / "work" / name, weights, thresholds or {},
                                                             fallback)
            made[name] = run_file.rename(out / "run" / self.display(name))
            for path in extra:
                treebank.append(path.rename(out / "treebank" / (name + path.name.removeprefix("consensus"))))
            sentences, items, agreement = (sentences + summary.sentences, items + summary.items,
                                           agreement + summary.agreement_sum)
        return Combined(files=made, treebank=sorted([*made.values(), *treebank]), sentences=sentences, items=items,
                        mean_agreement=agreement / items if items else None)

    def consensus_figure(self, parameters: dict) -> tuple | None:
        """The headline of the first published layer of the first metric (kinds may prefer another); it is read
        only for a kind that combines (:meth:`consensus_track`, None here as in the contract)."""
        for name in self.metrics_of(parameters):
            for layer in metrics.get(name).layers:
                if layer.headline:
                    return ("micro", layer.code, "", "", ALL)
        return None

    # -- pages -----------------------------------------------------------------------------
    def campaign_page(self, request, campaign):
        return pages.campaign_page(request, campaign)

    def run_page(self, request, campaign, run):
        return pages.run_page(request, campaign, run)

    def summary_names(self, cell) -> dict:
        """The figure's name, unit and description from the metric registry (a code it no longer knows: as is)."""
        layer = metrics.layers().get(cell.layer)
        return {"code": cell.layer, "name": layer.label if layer else cell.layer, "unit": layer.unit if layer else "%",
                "description": layer.description if layer else ""}

    def summary_fields(self, cell) -> dict:
        # Some figures (leaf-ancestor, UAS, LAS) are a single score: P and R do not apply.
        return {"single": cell.p is None and cell.r is None, "by_way": False}

    # -- paired significance (evaluation.significance.sets) ---------------------------------------
    def sentence_rows(self, result):
        """Every metric's per-sentence rows side by side: the run scored again against the result's gold."""
        return rescored_rows(self, result)

    def paired_figures(self, result):
        """The headline figure of every published layer of the result's metrics."""
        return metric_figures(self.metrics_of(result.document.get("parameters") or {}))

    def metrics_of(self, params: dict) -> list[str]:
        return list(params["metrics"])

    #: The engine of ``python -m evaluation reproduce --gold`` that scores this kind's runs again ("": none).
    rescoring_engine: str = ""

    def rescoring(self, result):
        """The result's parameters, the run files' names, and every corpus document's sentence ids in corpus
        order: how a run file's sentences are named (:mod:`parseval.evaluation.sentence_rescore`)."""
        if not self.rescoring_engine:
            return None
        run = result.run
        cover = sentences_to_cover(run.campaign, run.scope)
        documents = [[doc.name, [e.sid for e in self.expected_sentences(doc, cover)]]
                     for doc in run.campaign.documents.order_by("order", "name")]
        return {"engine": self.rescoring_engine, "parameters": result.document.get("parameters") or {},
                "suffixes": list(self.suffixes), "documents": documents}


def bootstrap_parameters(options: Mapping) -> dict:
    """Resamples and seed of the intervals: EASY's defaults unless the campaign sets them."""
    return {"bootstrap": int(options.get("bootstrap", DEFAULT_BOOTSTRAP)),
            "seed": int(options.get("seed", stats.DEFAULT_SEED))}


def layer_cells(metric, doc: dict, per_genre: dict, intervals: dict) -> list[dict]:
    """The ``cells`` rows of one metric: one per published layer and genre (ALL first).

    Over all genres the figures are the engine's own document; per genre, the same figure functions over
    the genre's summed rows (equal to scoring the genre alone). A figure the rows find undefined is None,
    never the engine's 0.0.
    """
    cells = []
    layers = [layer for layer in metric.layers if value_at(doc, layer.headline) is not None]  # e.g. no LAS unlabelled
    for genre, figures in per_genre.items():
        def figure(key, genre=genre, figures=figures):
            if key is None or figures.get(key) is None:
                return None
            return value_at(doc, key) if genre == ALL else figures[key]

        for layer in layers:
            counts = {k: figure(getattr(layer, k)) for k in ("fc", "fp", "cr")}
            cells.append({"layer": layer.code, "mode": "", "match": "", "genre": genre, "type": ALL,
                          **{k: None if v is None else int(v) for k, v in counts.items()},
                          "p": figure(layer.p), "r": figure(layer.r), "f": figure(layer.f),
                          "ci": intervals.get(genre, {}).get(layer.headline)})
    return cells
