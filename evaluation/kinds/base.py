"""What the tree and dependency kinds share: a corpus of sentences, one gold file per document.

A kind subclass says how to read its files (:meth:`SentenceKind.read`), what
the words of a sentence are, and how to score paired gold/test sentences with
the library (:meth:`SentenceKind.score_metric`). Everything else lives here:
import (corpus text apart from gold, all or nothing), validation of a run
against the corpus text (never the gold), loading the gold of the run's
subset, the per-genre documents, and the ``cells`` rows the results pages read.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from annotations.errors import InputError, Problem
from evaluation.version import SCORER_VERSION

from .tokens import SUFFIX as TEXT_SUFFIX, TextSentence, read_tokens, word_mismatch, write_tokens

ALL = "ALL"
MAX_REPORTED = 1000
Progress = Callable[[int, int], None]


@dataclass
class Parsed:
    """One sentence read from a file: the library's object, its words, id and line."""

    unit: object
    words: list[str]
    sid: str
    line: int | None


from campaign.services.corpus import ImportSummary  # noqa: E402  (every kind's import reports the same way)
from evaluation.services import NoGold  # noqa: E402  (the task tells the team this one as is)


class SentenceKind:
    name = ""
    label = ""
    suffixes: tuple[str, ...] = ()
    file_label = ""

    # -- to be given by each kind --------------------------------------------------------
    def read(self, path: Path, display: str) -> list[Parsed]:
        raise NotImplementedError

    def metrics(self, campaign) -> list[str]:
        raise NotImplementedError

    def parameters(self, campaign) -> dict:
        raise NotImplementedError

    def score_metric(self, metric: str, gold: list, test: list, params: dict) -> dict:
        """The library's JSON document for one metric."""
        raise NotImplementedError

    def figures(self, metric: str, doc: dict) -> list[dict]:
        """Rows ``{layer, p, r, f, fc, fp, cr}`` of one library document."""
        raise NotImplementedError

    # -- names ---------------------------------------------------------------------------
    def document_name(self, filename: str) -> str:
        base = Path(filename).name
        for suffix in self.suffixes:
            if base.lower().endswith(suffix):
                return base[: -len(suffix)]
        return base

    def display(self, doc_name: str) -> str:
        return f"{doc_name}{self.suffixes[0]}"

    # -- import --------------------------------------------------------------------------
    def import_corpus(self, campaign, gold_paths: Iterable[Path | str], *, genres: Mapping[str, str] | None = None,
                      subset: str = "test", actor=None) -> ImportSummary:
        """Gold files, one per corpus document (name = file name without its suffix). All or nothing:
        every problem is reported in one :class:`InputError` and nothing is kept."""
        from campaign import audit
        from evaluation.easy.files import genre_of

        paths = {self.document_name(str(p)): Path(p) for p in gold_paths}
        if not paths:
            raise InputError("no gold file given")
        problems: list[Problem] = []
        for name, path in paths.items():
            if not any(path.name.lower().endswith(s) for s in self.suffixes):
                problems.append(Problem(f"not a {self.file_label} (expected {', '.join(self.suffixes)})",
                                        file=path.name))
        existing = set(campaign.documents.filter(name__in=list(paths)).values_list("name", flat=True))
        problems += [Problem("a document of this name is already in the campaign", file=paths[n].name)
                     for n in sorted(existing)]
        loaded = []
        for name, path in sorted(paths.items()):
            try:
                parsed = self.read(path, path.name)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(Problem(f"cannot be read: {exc}", file=path.name))
                continue
            if not parsed:
                problems.append(Problem("the gold file has no sentence", file=path.name))
            seen: set[str] = set()
            for p in parsed:
                if p.sid in seen:
                    problems.append(Problem(f"sentence id {p.sid!r} appears twice", file=path.name, line=p.line,
                                            sentence=p.sid))
                seen.add(p.sid)
            loaded.append((name, path, parsed))
        if problems:
            raise InputError(problems)
        genre_map = dict(genres or {})
        saved: list = []
        try:
            with transaction.atomic():
                summary = self._store(campaign, loaded, subset, saved,
                                      lambda n: genre_map.get(n) or genre_of(n))
                audit.record("corpus.import", actor=actor, campaign=campaign, target=campaign.slug,
                             details={"kind": self.name, "documents": summary.documents,
                                      "sentences": summary.sentences, "gold_sentences": summary.gold_sentences,
                                      "subset": subset})
        except BaseException:
            for fieldfile in saved:
                fieldfile.storage.delete(fieldfile.name)
            raise
        return summary

    def _store(self, campaign, loaded, subset: str, saved: list, genre_of) -> ImportSummary:
        from annotations.models import GoldDocument, GoldSentence
        from campaign.models import CorpusDocument, Genre, Sentence

        summary = ImportSummary()
        genres = {g.code: g for g in campaign.genres.all()}
        order = campaign.documents.count()
        for name, path, parsed in loaded:
            code = genre_of(name)
            if code not in genres:
                genres[code] = Genre.objects.create(campaign=campaign, code=code, name=code, order=len(genres))
                summary.genres.append(code)
            text = write_tokens([TextSentence(p.sid, tuple(p.words)) for p in parsed])
            words = sum(len(p.words) for p in parsed)
            doc = CorpusDocument(campaign=campaign, genre=genres[code], name=name,
                                 sha256=hashlib.sha256(text).hexdigest(), sentence_count=len(parsed),
                                 word_count=words, order=order)
            order += 1
            doc.text_file.save(f"{name}{TEXT_SUFFIX}", ContentFile(text), save=False)
            saved.append(doc.text_file)
            doc.save()
            Sentence.objects.bulk_create(Sentence(document=doc, sid=p.sid, position=i, word_count=len(p.words))
                                         for i, p in enumerate(parsed))
            data = path.read_bytes()
            gold = GoldDocument(document=doc, sha256=hashlib.sha256(data).hexdigest(), sentence_count=len(parsed))
            gold.file.save(path.name, ContentFile(data), save=False)
            saved.append(gold.file)
            gold.save()
            GoldSentence.objects.bulk_create(GoldSentence(sentence=s, subset=subset) for s in doc.sentences.all())
            summary.documents += 1
            summary.sentences += len(parsed)
            summary.gold_sentences += len(parsed)
            summary.words += words
        return summary

    # -- validation: against the corpus text ---------------------------------------------
    def validate_run_files(self, run, files: dict[str, Path], progress: Progress | None = None) -> dict:
        problems: list[Problem] = []
        documents = list(run.campaign.documents.order_by("order", "name"))
        sentences = 0
        for done, doc in enumerate(documents, 1):
            display = self.display(doc.name)
            with doc.text_file.open("rb") as fh:
                expected = read_tokens(fh.read(), file=f"{doc.name}{TEXT_SUFFIX}")
            sentences += len(expected)
            path = files.get(doc.name)
            if path is None:
                problems.append(Problem(f"no file for corpus document {doc.name}: a run must cover every document",
                                        file=display))
            else:
                problems.extend(self.check_file(path, display, expected))
            if progress:
                progress(done, len(documents))
        return {
            "valid": not problems, "checked_at": timezone.now().isoformat(), "kind": self.name,
            "documents": len(documents), "sentences": sentences, "problem_count": len(problems),
            "problems": [p.as_dict() for p in problems[:MAX_REPORTED]], "warnings": [], "warning_count": 0,
        }

    def check_file(self, path: Path, display: str, expected: list[TextSentence]) -> list[Problem]:
        try:
            parsed = self.read(path, display)
        except InputError as exc:
            return list(exc.problems)
        except UnicodeDecodeError as exc:
            return [Problem(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=display)]
        problems = []
        if len(parsed) != len(expected):
            problems.append(Problem(f"{len(parsed)} sentences where the corpus document has {len(expected)}",
                                    file=display))
        for i, (p, e) in enumerate(zip(parsed, expected), 1):
            why = word_mismatch(e.words, p.words)
            if why:
                problems.append(Problem(f"sentence {i}: {why}", file=display, line=p.line, sentence=e.sid))
        return problems

    # -- released gold ---------------------------------------------------------------------
    def write(self, units: list) -> bytes:
        """The gold sentences ``units`` (the library's objects) as one file of this kind."""
        raise NotImplementedError

    def gold_files(self, campaign, wanted: dict[str, set[str]]) -> dict[str, bytes]:
        """``{file name: bytes}``: per document, its gold sentences whose ids are in ``wanted[document]``."""
        from annotations.models import GoldDocument

        out = {}
        golds = GoldDocument.objects.filter(document__campaign=campaign, document__name__in=list(wanted))
        for gold in sorted(golds.select_related("document"), key=lambda g: (g.document.order, g.document.name)):
            name = gold.document.name
            parsed = self.read(Path(gold.file.path), self.display(name))
            out[self.display(name)] = self.write([p.unit for p in parsed if p.sid in wanted[name]])
        return out

    # -- scoring: against the gold of the run's subset -----------------------------------
    def load_gold(self, run):
        """``(gold sentences, [(document, sid, genre)], checksum)`` of the run's subset, in corpus order."""
        from annotations.models import GoldDocument, GoldSentence
        from campaign.models import Run
        from evaluation.easy.files import gold_sha256_bytes

        subset = GoldSentence.Subset.DEV if run.scope == Run.Scope.DEV else GoldSentence.Subset.TEST
        wanted: dict[int, set[str]] = defaultdict(set)
        for doc_id, sid in GoldSentence.objects.filter(sentence__document__campaign=run.campaign,
                                                       subset=subset).values_list("sentence__document_id",
                                                                                  "sentence__sid"):
            wanted[doc_id].add(sid)
        gold_units, where, checksum_files, partial = [], [], {}, False
        golds = GoldDocument.objects.filter(document_id__in=list(wanted)).select_related("document__genre")
        for gold in sorted(golds, key=lambda g: (g.document.order, g.document.name)):
            doc = gold.document
            parsed = self.read(Path(gold.file.path), self.display(doc.name))
            keep = [p for p in parsed if p.sid in wanted[doc.pk]]
            partial |= len(keep) != len(parsed)
            for p in keep:
                gold_units.append(p)
                where.append((doc.name, p.sid, doc.genre.code))
            with gold.file.open("rb") as fh:
                checksum_files[self.display(doc.name)] = fh.read()
        if partial:
            checksum_files[f"subset-{subset}"] = "\n".join(f"{d}:{s}" for d, s, _ in where).encode("utf-8")
        return gold_units, where, gold_sha256_bytes(checksum_files)

    def score_run_files(self, run, files: dict[str, Path], progress: Progress | None = None) -> dict:
        gold, where, checksum = self.load_gold(run)
        if not gold:
            raise NoGold("the development sample is empty" if run.scope == "dev"
                         else "the campaign has no gold for its test set yet")
        test_by_doc: dict[str, dict[str, Parsed]] = {}
        for name in {d for d, _, _ in where}:
            test_by_doc[name] = {p.sid: p for p in self._run_sentences(files[name], name, run.campaign)}
        test = [test_by_doc[d][s] for d, s, _ in where]
        params = self.parameters(run.campaign)
        return self.score(gold, test, [g for _, _, g in where], params, checksum,
                          sentences=[{"document": d, "sid": s, "genre": g} for d, s, g in where],
                          progress=progress)

    def _run_sentences(self, path: Path, name: str, campaign) -> list[Parsed]:
        """The run's sentences under the corpus ids (a run file need not carry ids: order decides)."""
        doc = campaign.documents.get(name=name)
        with doc.text_file.open("rb") as fh:
            expected = read_tokens(fh.read(), file=f"{name}{TEXT_SUFFIX}")
        parsed = self.read(path, self.display(name))
        return [Parsed(p.unit, p.words, e.sid, p.line) for p, e in zip(parsed, expected)]

    def score(self, gold: list[Parsed], test: list[Parsed], genres: list[str], params: dict, checksum: str, *,
              sentences: list[dict] | None = None, progress: Progress | None = None) -> dict:
        """The result document: each metric's library document over every sentence, each genre's summary, cells."""
        metrics = self.metrics_of(params)
        codes = sorted(set(genres))
        steps, done = len(metrics) * (1 + len(codes)), 0
        documents, by_genre = {}, {code: {} for code in codes}
        gold_units, test_units = [g.unit for g in gold], [t.unit for t in test]
        for metric in metrics:
            documents[metric] = self.score_metric(metric, gold_units, test_units, params)
            done += 1
            if progress:
                progress(done, steps)
            for code in codes:
                idx = [i for i, g in enumerate(genres) if g == code]
                doc = self.score_metric(metric, [gold_units[i] for i in idx], [test_units[i] for i in idx], params)
                by_genre[code][metric] = self.summary_of(doc)
                done += 1
                if progress:
                    progress(done, steps)
        cells = []
        for metric in metrics:
            for genre, doc in [(ALL, documents[metric])] + [(c, by_genre[c][metric]) for c in codes]:
                for row in self.figures(metric, doc):
                    cells.append({"layer": row["layer"], "mode": "", "match": "", "genre": genre, "type": ALL,
                                  "fc": row.get("fc"), "fp": row.get("fp"), "cr": row.get("cr"),
                                  "p": row.get("p"), "r": row.get("r"), "f": row.get("f"), "ci": None})
        return {
            "kind": self.name,
            "signature": f"kind:{self.name}|" + "|".join(f"{m}:{documents[m].get('signature', '')}" for m in metrics),
            "scorer_version": SCORER_VERSION,
            "gold_sha256": checksum,
            "parameters": params,
            "metrics": documents,
            "genres": by_genre,
            "sentences": sentences or [],
            "cells": cells,
            "macro": [],
        }

    def metrics_of(self, params: dict) -> list[str]:
        return list(params["metrics"])

    def summary_of(self, doc: dict) -> dict:
        """What a per-genre document keeps (the per-sentence lists are in the corpus-wide document)."""
        return {k: v for k, v in doc.items() if k not in ("sentences", "sentence_scores")}
