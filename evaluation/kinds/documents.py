"""What every kind here shares: a corpus of documents of identified sentences, one gold file per document.

The EASY kind and the sentence-per-line kinds (:mod:`evaluation.kinds.sentence`) are both document
kinds. Written once, here: the validation loop over the corpus documents a run must cover, the gold of
a run's subset with its checksum, the released gold files, and the result summary's rows. Each kind
gives the hooks (how one document is checked, how a gold file is read and cut to the wanted sentences,
which cells the summary shows).

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone

from parseval.annotations.errors import Problem
from annotations.models import GoldDocument
from campaign.subsets import documents_to_check, sentences_to_cover
from evaluation.pipeline.services import shown

from .contract import Kind, Progress, RunSetup
from .gold import subset_gold

MAX_REPORTED = 1000  # problems listed in a report; the count says how many there were


@dataclass
class RunCheck:
    """One run's validation under way: what the loop collects, and what a kind keeps between documents."""

    run: object
    files: dict[str, Path]
    setup: RunSetup
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    state: dict = field(default_factory=dict)


class DocumentKind(Kind):
    # -- validation: against the corpus text, never the gold ------------------------------------
    def validate_run_files(self, run, files: dict[str, Path], setup: RunSetup,
                           progress: Progress | None = None) -> dict:
        """The validation report of a run: every problem, over every corpus document it must cover."""
        check = RunCheck(run, files, setup)
        self.begin_check(check)
        cover = sentences_to_cover(run.campaign, run.scope)
        documents = documents_to_check(run.campaign, cover, files)
        sentences = 0
        for done, doc in enumerate(documents, 1):
            sentences += self.check_document(check, doc, files.get(doc.name), cover)
            if progress:
                progress(done, len(documents))
        self.end_check(check)
        return {
            **self.report_fields(check),
            "valid": not check.problems, "checked_at": timezone.now().isoformat(),
            "documents": len(documents), "sentences": sentences,
            "problem_count": len(check.problems), "problems": [p.as_dict() for p in check.problems[:MAX_REPORTED]],
            "warnings": [w.as_dict() for w in check.warnings[:MAX_REPORTED]], "warning_count": len(check.warnings),
        }

    def begin_check(self, check: RunCheck) -> None:
        """Before the first document (e.g. what format the run is in)."""

    @abstractmethod
    def check_document(self, check: RunCheck, doc, path: Path | None, cover: dict[str, set[str]] | None) -> int:
        """Add the problems of one corpus document's run file (``path`` None: no file) to ``check``; return
        how many of its sentences the report counts. ``cover``: :func:`campaign.subsets.sentences_to_cover`."""

    def end_check(self, check: RunCheck) -> None:
        """After the last document (e.g. keep what a valid run was converted to)."""

    def report_fields(self, check: RunCheck) -> dict:
        """What the kind adds to the report."""
        return {}

    # -- gold -------------------------------------------------------------------------------------
    @abstractmethod
    def gold_sentences(self, gold: GoldDocument, wanted: set[str], setup: RunSetup | None = None):
        """``(kept, whole)``: what scoring reads of one stored gold file, cut to the sentences whose ids are in
        ``wanted``, and whether that is every sentence of the file."""

    @abstractmethod
    def scored_lines(self, documents: list) -> list[str]:
        """``document:sid`` of every scored sentence of ``documents`` (:meth:`load_gold`'s), when only part of a
        gold file is scored (part of the checksum)."""

    def load_gold(self, run, setup: RunSetup | None = None) -> tuple[list, str]:
        """``([(document, kept)], checksum)``: per gold document of the run's subset, in corpus order, what
        :meth:`gold_sentences` keeps of it (see :func:`evaluation.kinds.gold.subset_gold`)."""
        return subset_gold(run, lambda gold, wanted: self.gold_sentences(gold, wanted, setup), self.display,
                           self.scored_lines)

    def display(self, doc_name: str) -> str:
        """How files and messages name a document's file: the name and the kind's first suffix."""
        return f"{doc_name}{self.suffixes[0]}"

    # -- released gold ----------------------------------------------------------------------------
    def gold_files(self, campaign, wanted: dict[str, set[str]]) -> dict[str, bytes]:
        """``{file name: bytes}``: per document, its gold sentences whose ids are in ``wanted[document]``."""
        out = {}
        golds = GoldDocument.objects.filter(document__campaign=campaign, document__name__in=list(wanted))
        for gold in sorted(golds.select_related("document"), key=lambda g: (g.document.order, g.document.name)):
            name = gold.document.name
            out[self.display(name)] = self.gold_file(gold, wanted[name])
        return out

    @abstractmethod
    def gold_file(self, gold: GoldDocument, keep: set[str]) -> bytes:
        """One released gold file: the stored gold's sentences whose ids are in ``keep``, in the kind's format."""

    # -- the published summary ----------------------------------------------------------------------
    def result_summary(self, result, **selection) -> list[dict]:
        """One row per published figure over all genres and types (the run page, the API, the exports)."""
        return [{"layer": cell.layer, **self.summary_names(cell), "aggregation": cell.get_aggregation_display(),
                 "mode": cell.mode,
                 "match": cell.match, "p": cell.p, "r": cell.r, "f": cell.f,
                 "ci": (cell.ci_low, cell.ci_high) if cell.ci_low is not None else None,
                 **self.summary_fields(cell), "shown": shown(cell)}
                for cell in self.summary_cells(result, **selection)]

    def summary_cells(self, result, **selection) -> list:
        """The cells :meth:`result_summary` shows. Default: every one over all genres and types, as stored."""
        return list(result.cells.filter(genre="ALL", type="ALL").order_by("pk"))

    def summary_names(self, cell) -> dict:
        """How a summary row names its figure, after its layer (names and units). Default: nothing more."""
        return {}

    def summary_fields(self, cell) -> dict:
        """What else a kind says of a summary row. Default: nothing."""
        return {}
