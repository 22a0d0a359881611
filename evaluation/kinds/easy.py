"""The EASY kind: EASY XML files, constituents and relations scored in 15 ways with intervals.

Everything EASY-specific the app needs is reached through :class:`EasyKind`
(registered with :mod:`campaign.kinds` by the evaluation app): its corpus
import, the validation of a run against the corpus text, loading the gold of
a run's subset, scoring, the gold files it releases, its pages and diagnostics.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Callable

from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone

from annotations.easy import DEFAULT_SCHEMA, EasySchema, document_to_bytes, read_document, reference_forms, validate_run
from annotations.easy.model import Document
from annotations.errors import Problem
from annotations.models import GoldDocument
from campaign.models import Run
from campaign.services import archives
from campaign.services.corpus import import_corpus
from campaign.subsets import documents_to_check, missing_document_message, sentences_to_cover
from evaluation.deps import udvalidate
from evaluation.kinds.gold import gold_checksum, read_gold_file, run_subset_gold
from evaluation.easy.ranges import MATCHES, MODES
from evaluation.easy.scoring import DEFAULT_BOOTSTRAP, DEFAULT_SEED, score_corpus
from evaluation.services import NoGold, shown
from evaluation.stats import ALL

from . import easy_conllu

Progress = Callable[[int, int], None]
MAX_REPORTED = 1000  # problems listed in a report; the count says how many there were


class EasyKind:
    name = "easy"
    label = "EASY (constituents and relations)"
    suffixes = archives.EASY  # ".xml", and how upload messages name EASY files
    file_label = "EASY .xml file"
    file_help = "One EASY .xml file, or a .zip or .tar.gz with one .xml file per corpus document."
    options_error = "the annotation guide's schema is malformed"
    genres_from_names_only = True  # genres come from file names: the import takes no genre map
    has_word_view = False
    has_diagnostics = True  # per-sentence diagnostics_page (tree and dependency kinds have none)

    def import_corpus(self, campaign, gold_paths, *, subset: str = "test", actor=None, **options):
        return import_corpus(campaign, gold_paths, subset=subset, actor=actor, **options)

    # What Campaign.metrics may set; run_formats is the run files taken (easy_conllu), not a scoring parameter.
    option_keys = ("matches", "modes", "bootstrap", "seed", "run_formats", udvalidate.OPTION)

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

    def accepts_conllu(self, campaign) -> bool:
        return easy_conllu.accepts_conllu(campaign)

    def run_formats_label(self, campaign) -> str:
        """What the organisers' console says of the run files the campaign takes."""
        if easy_conllu.accepts_conllu(campaign):
            return f"EASY XML and CoNLL-U (converted to EASY XML on validation, {easy_conllu.CONVERTER_VERSION})"
        return "EASY XML only"

    def file_help_for(self, campaign) -> str:
        return easy_conllu.FILE_HELP if easy_conllu.accepts_conllu(campaign) else self.file_help

    def parameters(self, campaign) -> dict:
        campaign_schema(campaign)  # a malformed schema stops the run before anything is read
        return scoring_parameters(campaign)

    def validate_run_files(self, run, files, progress=None) -> dict:
        return validate_run_files(run, files, campaign_schema(run.campaign), progress)

    def score_run_files(self, run, files, progress=None) -> dict:
        return score_run_files(run, files, campaign_schema(run.campaign), progress)

    def gold_files(self, campaign, wanted: dict[str, set[str]]) -> dict[str, bytes]:
        """``{file name: bytes}``: per document, an EASY file of its gold sentences whose ids are in ``wanted``."""
        out = {}
        golds = GoldDocument.objects.filter(document__campaign=campaign, document__name__in=list(wanted))
        for gold in golds.select_related("document").order_by("document__order", "document__name"):
            name = gold.document.name
            with gold.file.open("rb") as fh:
                doc = read_document(fh, gold=True, strict=False, name=f"{name}.xml")
            keep = wanted[name]
            # Only what the corpus file also carries: no attribute of the gold's source (paths, dates).
            out[f"{name}.xml"] = document_to_bytes(Document(
                name=f"{name}.xml", sentences=[s for s in doc.sentences if s.id in keep],
                attributes={"fichier": f"{name}.xml"}))
        return out

    def result_summary(self, result, *, match: str = "EQUAL", mode: str = "HYP") -> list[dict]:
        """Per layer, all types, micro and macro, in the chosen mode and match (``by_way``)."""
        rows = []
        for cell in result.cells.filter(genre=ALL, type=ALL, match=match).order_by("layer", "aggregation"):
            if cell.layer == "relations" and cell.mode != mode:
                continue
            rows.append({"layer": cell.layer, "aggregation": cell.get_aggregation_display(), "mode": cell.mode,
                         "match": cell.match, "p": cell.p, "r": cell.r, "f": cell.f,
                         "ci": (cell.ci_low, cell.ci_high) if cell.ci_low is not None else None, "by_way": True,
                         "shown": shown(cell)})
        return rows

    # -- paired significance (evaluation.significance) ---------------------------------------
    def sentence_rows(self, result):
        """The result's per-sentence count rows: the run counted again against its gold."""
        from evaluation.sentence_rows import easy_rows

        return easy_rows(result, campaign_schema(result.run.campaign), load_gold)

    def paired_figures(self, result):
        """Micro F of every (way, type) and macro F of every way, from summed rows."""
        from evaluation.easy.scoring import Plan
        from evaluation.figure_sets import easy_figures

        params = result.document.get("parameters") or {}
        return easy_figures(Plan(campaign_schema(result.run.campaign), params.get("matches") or MATCHES,
                                 params.get("modes") or MODES))

    def campaign_page(self, request, campaign):
        from .easy_pages import campaign_page

        return campaign_page(request, campaign)

    def run_page(self, request, campaign, run):
        from .easy_pages import run_page

        return run_page(request, campaign, run)

    def diagnostics_page(self, request, run):
        from .easy_pages import diagnostics_page

        return diagnostics_page(request, run)


def campaign_schema(campaign) -> EasySchema:
    """The schema of the current guide version, or the engine's default. ValueError if malformed."""
    try:
        version = campaign.guide.current
    except ObjectDoesNotExist:  # the campaign has no guide
        version = None
    if version is not None and version.schema:
        return EasySchema.from_dict(version.schema)
    return DEFAULT_SCHEMA


def scoring_parameters(campaign) -> dict:
    """Range functions, modes, bootstrap size and seed: the engine's defaults unless the campaign sets them."""
    metrics = campaign.metrics or {}
    return {
        "matches": list(metrics.get("matches") or MATCHES),
        "modes": list(metrics.get("modes") or MODES),
        "bootstrap": int(metrics.get("bootstrap", DEFAULT_BOOTSTRAP)),
        "seed": int(metrics.get("seed", DEFAULT_SEED)),
    }



# -- validation: against the corpus text, the same for sentences with and without gold ------

def validate_run_files(run, files: dict[str, Path], schema: EasySchema, progress: Progress | None = None) -> dict:
    """The validation report of a run: every problem, over every corpus document.

    The reference is the corpus text teams downloaded, never the gold, so no
    message, count or order depends on which sentences have gold. A CoNLL-U
    run is converted first (:mod:`.easy_conllu`), against that same text; its
    problems are part of the report, and the EASY XML of a valid run is kept.
    """
    problems: list[Problem] = []
    warnings: list[Problem] = []
    conllu = easy_conllu.is_conllu_run(files)
    suffix = easy_conllu.CONLLU if conllu else ".xml"
    converted: dict[str, bytes] = {}
    ud_level = udvalidate.check_level((run.campaign.metrics or {}).get(udvalidate.OPTION)) if conllu else None
    cover = sentences_to_cover(run.campaign, run.scope)
    documents = documents_to_check(run.campaign, cover, files)
    sentences = 0
    for done, doc in enumerate(documents, 1):
        path = files.get(doc.name)
        if path is None:
            problems.append(Problem(missing_document_message(doc.name, cover), file=f"{doc.name}{suffix}"))
        else:
            with doc.text_file.open("rb") as text:
                corpus = read_document(text, gold=True, name=f"{doc.name}.xml")
            expected = reference_forms(corpus)
            sentences += len(expected)
            run_file = path
            if conllu:
                xml, found = easy_conllu.convert_file(corpus, path, f"{doc.name}{suffix}")
                problems.extend(found)
                if ud_level:  # the UD project's checks as well, when the organiser asks for them
                    problems.extend(udvalidate.ud_problems(path, f"{doc.name}{suffix}", ud_level,
                                                           run.campaign.language))
                if xml is not None:
                    converted[doc.name] = xml
                    run_file = io.BytesIO(xml)
                else:
                    run_file = None
            if run_file is not None:
                # named as the team named it: the unpacked copy has a temporary name
                problems.extend(validate_run(run_file, expected, schema=schema, warnings=warnings,
                                             name=f"{doc.name}.xml"))
        if progress:
            progress(done, len(documents))
    if conllu and not problems:
        easy_conllu.store_converted(run, converted)
    extra = {"format": "conllu", "converter": easy_conllu.CONVERTER_VERSION} if conllu else {}
    if ud_level:
        extra["ud_validation"] = {"level": ud_level, "validator": udvalidate.validator_version()}
    return {
        **extra,
        "valid": not problems,
        "checked_at": timezone.now().isoformat(),
        "schema": schema.name,
        "documents": len(documents),
        "sentences": sentences,
        "problem_count": len(problems),
        "problems": [p.as_dict() for p in problems[:MAX_REPORTED]],
        "warnings": [w.as_dict() for w in warnings[:MAX_REPORTED]],
        "warning_count": len(warnings),
    }


# -- scoring: against the gold of the run's scope --------------------------------------------

def load_gold(run, schema: EasySchema) -> tuple[dict[str, Document], dict[str, str], str, int]:
    """Gold documents restricted to the run's subset, the genre map, the gold checksum, sentence count."""
    subset, wanted, golds = run_subset_gold(run)
    gold_docs: dict[str, Document] = {}
    genres: dict[str, str] = {}
    checksum_files: dict[str, bytes] = {}
    partial = False
    count = 0
    for gold in golds:
        doc = gold.document
        data = read_gold_file(gold)
        full = read_document(gold.file.path, gold=True, strict=True, schema=schema, name=f"{doc.name}.xml")
        keep = wanted[doc.pk]
        sentences = [s for s in full.sentences if s.id in keep]
        partial |= len(sentences) != len(full.sentences)
        gold_docs[doc.name] = Document(name=f"{doc.name}.xml", sentences=sentences, warnings=full.warnings,
                                       has_constituents=full.has_constituents, has_relations=full.has_relations)
        genres[doc.name] = doc.genre.code
        checksum_files[f"{doc.name}.xml"] = data
        count += len(sentences)
    scored = ([f"{d}:{sid}" for d in sorted(gold_docs) for sid in sorted(s.id for s in gold_docs[d].sentences)]
              if partial else None)
    return gold_docs, genres, gold_checksum(checksum_files, subset, scored), count


def score_run_files(run, files: dict[str, Path], schema: EasySchema, progress: Progress | None = None) -> dict:
    """The engine's result document for a validated run."""
    gold_docs, genres, checksum, count = load_gold(run, schema)
    if not count:
        raise NoGold("the development sample is empty" if run.scope == Run.Scope.DEV
                     else "the campaign has no gold for its test set yet")
    params = scoring_parameters(run.campaign)
    if easy_conllu.is_conllu_run(files):  # what is scored is the EASY XML validation converted and kept
        from campaign.services.runs import staging_dir

        with easy_conllu.converted_files(run, staging_dir()) as converted:
            return easy_conllu.mark_converted(_score(gold_docs, converted, genres, checksum, params, schema,
                                                     progress), run.converter)
    return _score(gold_docs, files, genres, checksum, params, schema, progress)


def _score(gold_docs, files, genres, checksum, params, schema, progress) -> dict:
    run_docs = {name: files[name] for name in gold_docs if name in files}
    return score_corpus(gold_docs, run_docs, genres, matches=params["matches"], modes=params["modes"],
                        bootstrap=params["bootstrap"], seed=params["seed"], gold_sha256=checksum,
                        progress=progress, schema=schema)
