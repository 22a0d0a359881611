"""The EASY kind: EASY XML files, constituents and relations scored in 15 ways with intervals.

Everything EASY-specific the app needs is reached through :class:`EasyKind`
(registered with :mod:`campaign.kinds` by the evaluation app): its corpus
import, the validation of a run against the corpus text, loading the gold of
a run's subset, scoring, the gold files it releases, its pages and diagnostics.
"""
from __future__ import annotations

from pathlib import Path

from django.utils.translation import gettext, gettext_lazy

from parseval.annotations.easy import document_to_bytes, read_document
from parseval.annotations.easy.model import Document
from parseval.annotations.errors import N_
from campaign.services import archives
from parseval.evaluation.deps import udvalidate
from parseval.evaluation.easy.ranges import MATCHES, MODES
from parseval.evaluation.easy.counting import Plan
from parseval.evaluation.stats import ALL

from ..contract import Combined, RunSetup
from ..documents import DocumentKind, RunCheck
from . import analysis as easy_analysis, consensus, conllu as easy_conllu, gold as easy_gold, pages, run_index, shards, \
    validation
from .corpus import import_corpus
from .figures import easy_figures
from .options import campaign_schema, scoring_parameters
from .rows import easy_rows
from .scoring import score_run_files


class EasyKind(DocumentKind):
    name = "easy"
    label = N_("EASY (constituents and relations)")
    suffixes = archives.EASY  # ".xml", and how upload messages name EASY files
    file_label = N_("EASY .xml file")
    corpus_contents = gettext_lazy("zip: one EASY .xml file per document")
    file_help = N_("One EASY .xml file, or a .zip or .tar.gz with one .xml file per corpus document.")
    options_error = "the annotation guide's schema is malformed"
    genres_from_names_only = True  # genres come from file names: the import takes no genre map
    has_word_view = False
    has_diagnostics = True  # per-sentence diagnostics_page (tree and dependency kinds have none)

    def import_corpus(self, campaign, gold_paths, *, subset: str = "test", actor=None, **options):
        return import_corpus(campaign, gold_paths, subset=subset, actor=actor, **options)

    # What Campaign.metrics may set; run_formats is the run files taken (easy_conllu), not a scoring parameter.
    option_keys = ("matches", "modes", "bootstrap", "seed", "run_formats", udvalidate.OPTION)
    options_help = ('EASY: {"matches": ["EQUAL", "FUZZY", ...], "modes": ["HYP", "DEFHYP", "REF"], "bootstrap": 1000, '
                    '"seed": 12345, "run_formats": ["easy-xml", "conllu"], "ud_validation": 2} (run_formats: the run '
                    'files taken, EASY XML only by default; with "conllu", CoNLL-U runs are converted on validation, '
                    'and checked by the UD validator at the ud_validation level if set).')

    def check_options(self, options: dict) -> None:
        for key, allowed in (("matches", MATCHES), ("modes", MODES)):
            value = options.get(key)
            if value is not None and (not isinstance(value, list) or not set(value) <= set(allowed)):
                raise ValueError(f"{key} must be a list drawn from {', '.join(allowed)}.")
        easy_conllu.check_run_formats(options.get("run_formats"))
        udvalidate.check_level(options.get(udvalidate.OPTION))

    def run_suffixes(self, campaign, *, stored: bool = False):
        """The run files an upload may hold: EASY XML, and CoNLL-U where the campaign takes it."""
        return easy_conllu.run_suffixes(campaign, stored=stored)

    def run_formats_label(self, campaign) -> str:
        """What the organisers' console says of the run files the campaign takes."""
        if easy_conllu.accepts_conllu(campaign):
            return f"EASY XML and CoNLL-U (converted to EASY XML on validation, {easy_conllu.CONVERTER_VERSION})"
        return "EASY XML only"

    def run_file_label(self, campaign) -> str:
        if easy_conllu.accepts_conllu(campaign):
            return gettext("EASY .xml or CoNLL-U .conllu file")
        return gettext(self.file_label)

    def file_help_for(self, campaign) -> str:
        return easy_conllu.FILE_HELP if easy_conllu.accepts_conllu(campaign) else self.file_help

    def run_file_format(self, filename: str) -> str:
        return "xml" if filename.lower().endswith(".xml") else "conllu"

    def run_file_problem(self, path: Path, display: str) -> str | None:
        if self.run_file_format(display) != "xml":
            return super().run_file_problem(path, display)
        with open(path, "rb") as fh:
            head = fh.read(4096)
        head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
        if not (head.startswith(b"<") and b"\x00" not in head):
            return "is not an XML file (it must start with '<')"
        return None

    def parameters(self, campaign, run=None) -> dict:
        campaign_schema(campaign)  # a malformed schema stops the run before anything is read
        return scoring_parameters(campaign)

    def setup(self, run) -> RunSetup:
        """The parameters, the schema of the campaign's guide and the UD validator's level (CoNLL-U runs), read
        once."""
        schema = campaign_schema(run.campaign)
        return RunSetup(self, scoring_parameters(run.campaign), self.run_suffixes(run.campaign, stored=True),
                        context={"schema": schema,
                                 "ud_level": udvalidate.check_level((run.campaign.metrics or {}).get(udvalidate.OPTION))})

    # -- validation: DocumentKind's loop, these hooks ---------------------------------------
    def begin_check(self, check: RunCheck) -> None:
        validation.begin(check)

    def check_document(self, check: RunCheck, doc, path, cover) -> int:
        return validation.check_document(check, doc, path, cover, check.setup.context["schema"])

    def end_check(self, check: RunCheck) -> None:
        validation.end(check)

    def report_fields(self, check: RunCheck) -> dict:
        return validation.report_fields(check, check.setup.context["schema"])

    # -- gold and scoring ---------------------------------------------------------------------
    def gold_sentences(self, gold, wanted: set[str], setup: RunSetup | None = None):
        schema = setup.context["schema"] if setup else campaign_schema(gold.document.campaign)
        return easy_gold.cut(gold, wanted, schema)

    def scored_lines(self, documents: list) -> list[str]:
        return easy_gold.scored_lines(documents)

    def score_run_files(self, run, files, setup: RunSetup, progress=None) -> dict:
        return score_run_files(run, files, setup.context["schema"], progress, params=setup.parameters)

    def shard_documents(self, run, files, setup: RunSetup, sentences_per_shard: int) -> list[list[str]]:
        return shards.shard_documents(run, setup, sentences_per_shard)

    def score_shard(self, run, files, setup: RunSetup, documents: list[str]) -> bytes:
        return shards.score_shard(run, files, setup, documents)

    def merge_shards(self, run, setup: RunSetup, counts: list[bytes]) -> dict:
        return shards.merge_shards(run, setup, counts)

    def result_parameters(self, setup: RunSetup, document: dict) -> dict:
        """A CoNLL-U run's converter is part of what produced its result."""
        converter = (document.get("parameters") or {}).get("converter")
        return {**setup.parameters, "converter": converter} if converter else setup.parameters

    def figure_help_template(self, explained) -> str:
        return "results/_easy_help.html"

    def gold_file(self, gold, keep: set[str]) -> bytes:
        """An EASY file of the gold sentences in ``keep``, with only what the corpus file also carries (no
        attribute of the gold's source: paths, dates)."""
        name = gold.document.name
        with gold.file.open("rb") as fh:
            doc = read_document(fh, gold=True, strict=False, name=f"{name}.xml")
        return document_to_bytes(Document(name=f"{name}.xml", sentences=[s for s in doc.sentences if s.id in keep],
                                          attributes={"fichier": f"{name}.xml"}))

    def summary_cells(self, result, *, match: str = "EQUAL", mode: str = "HYP") -> list:
        """Per layer, all types, micro and macro, in the chosen mode and match."""
        return [cell for cell in result.cells.filter(genre=ALL, type=ALL, match=match).order_by("layer", "aggregation")
                if cell.layer != "relations" or cell.mode == mode]

    def summary_fields(self, cell) -> dict:
        return {"by_way": True}

    # -- paired significance (evaluation.significance.sets) ---------------------------------------
    def sentence_rows(self, result):
        """The result's per-sentence count rows: the run counted again against its gold."""
        return easy_rows(result, campaign_schema(result.run.campaign))

    def paired_figures(self, result):
        """Micro F of every (way, type) and macro F of every way, from summed rows."""
        params = result.document.get("parameters") or {}
        return easy_figures(Plan(campaign_schema(result.run.campaign), params.get("matches") or MATCHES,
                                 params.get("modes") or MODES))

    # -- consensus (evaluation.consensus.runs) ------------------------------------------------
    def consensus_track(self, campaign) -> str | None:
        return ""

    def combine(self, runs, weights, out: Path, *, thresholds: dict | None = None,
                fallback: int | None = None) -> Combined:
        """Groups, then relations, by weighted vote (:mod:`parseval.evaluation.consensus.easy`), on the corpus's forms."""
        campaign = runs[0][0].campaign if runs else None
        return consensus.combine(campaign, runs, weights, out, thresholds=thresholds, fallback=fallback)

    def consensus_figure(self, parameters: dict) -> tuple | None:
        """Relations, micro F, in the first way the campaign scores (HYP and EQUAL by default)."""
        modes, matches = parameters.get("modes") or MODES, parameters.get("matches") or MATCHES
        return ("micro", "relations", modes[0], matches[0], ALL)

    def rescoring(self, result):
        """The ranges, modes and schema the rows were counted with; a CoNLL-U run also names its converter."""
        params = result.document.get("parameters") or {}
        return {"engine": "easy", "matches": list(params.get("matches") or MATCHES),
                "modes": list(params.get("modes") or MODES), "schema": campaign_schema(result.run.campaign).to_dict(),
                "converter": (result.parameters or {}).get("converter") or result.run.converter or None}

    # -- disk upkeep --------------------------------------------------------------------------------
    def forget_run_files(self, run) -> int:
        """The run's indexes (a re-score validates again, which stores its index again)."""
        return run_index.remove(run.file.storage, run.file.name) if run.file.name else 0

    def sweep_stored(self) -> dict[str, int]:
        """The runs' indexes and superseded conversions no scoring reads, and the gold's indexes of other keys."""
        return {**run_index.sweep_stored(), **easy_gold.sweep_stored()}

    # -- the analysis explorer ------------------------------------------------------------------
    def analyse(self, result):
        """The library's bucket analysis of the relations (HYP EQUAL), with its sentences."""
        return easy_analysis.analyse(result, campaign_schema(result.run.campaign))

    def sentence_svg(self, result, key: str, labels: dict | None = None):
        """Groups as brackets over the forms, relations as arcs: the gold's above, the run's below."""
        return easy_analysis.sentence_svg(result, key, campaign_schema(result.run.campaign), labels or {})

    def campaign_page(self, request, campaign):
        return pages.campaign_page(request, campaign)

    def run_page(self, request, campaign, run):
        return pages.run_page(request, campaign, run)

    def diagnostics_page(self, request, run):
        return pages.diagnostics_page(request, run)
