"""Dependency campaigns: CoNLL-U runs, scored with Lin's triples, UAS and LAS, and the CoNLL 2018 figures.

``Campaign.metrics``: ``{"punct": "upos", "pos": "upos", "tracks": ["gold-tokens"]}``
(``punct``/``pos``: the options of :func:`parseval.evaluation.deps.score_dependencies`;
``tracks``: what runs the campaign accepts, see :mod:`.tracks`; these
are the defaults), and ``"ud_validation": 2`` for runs that must also pass the
UD project's validator at that level (:mod:`parseval.evaluation.deps.udvalidate`).

Two tracks:

* gold tokens: one run sentence per corpus sentence on the corpus's words
  (:class:`~evaluation.kinds.sentence.SentenceKind`'s pairing), scored with Lin's
  triples, UAS, LAS and the CoNLL 2018 figures on the words side by side;
* raw text: each run file is the parser's own tokenisation and sentence
  segmentation of the document's raw text. Validation checks that it spells
  the document's characters (against the team-facing gold tokenisation, never
  the gold); scoring aligns it with the gold document by characters
  (:mod:`parseval.evaluation.deps.alignment`) and gives each gold sentence the aligned
  words that fall in it, so per-genre figures and intervals come from the same
  per-sentence rows as for every kind. Only the CoNLL 2018 figures apply.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from django.utils.translation import gettext_lazy

from parseval.annotations.conllu import parse_conllu, write_conllu
from parseval.annotations.errors import InputError, Problem, N_
from parseval.annotations.limits import size_problems
from campaign.services.downloads import read_extra_file
from campaign.services.runs import unpacked
from campaign.stored_files import local_copy
from campaign.subsets import missing_document_message, sentences_to_cover

from parseval.evaluation.consensus.files import combine_dependency_files
from parseval.evaluation.deps import campaign_scoring, udvalidate
from parseval.evaluation.deps.campaign_scoring import CONLL18
from parseval.evaluation.deps.conll18_reader import parse_conll18
from parseval.evaluation.deps.metrics import PunctRule
from parseval.evaluation.deps.rawtext import raw_text, tokenisation, tokenisation_characters
from parseval.evaluation.metrics.conll18 import document_rows, score_rows
from evaluation.results.sentence_rows import RowsUnavailable
from evaluation.pipeline.services import NoGold
from parseval.evaluation.stats import ALL

from ..sentence import Parsed, SentenceKind, bootstrap_parameters
from ..contract import Progress, RunSetup
from ..documents import RunCheck
from ..gold import gold_checksum, read_gold_file, run_subset_gold
from . import analysis as dep_analysis, tracks

METRIC = "dependency"
RAW_SUFFIX = ".txt"
TOKENS_SUFFIX = ".tokens.conllu"



def _ud_level(campaign) -> int | None:
    return udvalidate.check_level((campaign.metrics or {}).get(udvalidate.OPTION))


class DependencyKind(SentenceKind):
    name = "dependency"
    label = N_("Dependency trees")
    suffixes = (".conllu", ".conll")
    rescoring_engine = "deps"
    file_label = N_("CoNLL-U file")
    corpus_contents = gettext_lazy("zip: per document, its words (.tok), its raw text (.txt) and the gold "
                                   "tokenisation (.tokens.conllu)")
    option_keys = ("punct", "pos", "tracks", "bootstrap", "seed", udvalidate.OPTION)
    options_help = ('Dependency: {"punct": "upos", "pos": "upos", "tracks": ["gold-tokens", "raw-text"], '
                    '"ud_validation": 2} (tracks: which runs the campaign accepts, default ["gold-tokens"]; '
                    'ud_validation: runs must also pass the UD validator at that level, 1-5, as the IWPT shared tasks '
                    'asked level 2; default none).')
    file_help = N_("One CoNLL-U file (.conllu), or a .zip or .tar.gz with one .conllu file per corpus document, "
                   "named after it. Gold-tokens track: one sentence per corpus sentence, in order, on the corpus's "
                   "words. Raw-text track: your parser's own tokens and sentences of the document's raw text.")

    def check_options(self, options: dict) -> None:
        if options.get("punct"):
            try:
                PunctRule.parse(options["punct"])
            except Exception as exc:  # the parser's own message says what is wrong
                raise ValueError(f"punct: {exc}") from None
        if "tracks" in options:
            tracks.check_tracks(options["tracks"])
        udvalidate.check_level(options.get(udvalidate.OPTION))

    def read(self, path: Path, display: str) -> list[Parsed]:
        text = Path(path).read_bytes().decode("utf-8")
        if not text.strip():
            raise InputError(N_("empty file: no sentence"), file=display)
        sentences = parse_conllu(text, file=display)
        return [Parsed(s, [w.form for w in s.words], s.sent_id or str(i), s.line)
                for i, s in enumerate(sentences, 1)]

    def sizes(self, parsed: Parsed) -> dict[str, int]:
        return {"words": len(parsed.unit.words) + len(parsed.unit.extra)}  # multiword tokens and empty nodes too

    def write(self, units: list) -> bytes:
        return write_conllu(units).encode("utf-8")

    def extra_texts(self, parsed: list[Parsed]) -> dict[str, bytes]:
        """The raw text and the gold tokenisation of the document (:mod:`parseval.evaluation.deps.rawtext`)."""
        units = [p.unit for p in parsed]
        return {RAW_SUFFIX: raw_text(units), TOKENS_SUFFIX: tokenisation(units, [p.sid for p in parsed])}

    def parameters(self, campaign, run=None) -> dict:
        """The campaign's options; for a run, its track too (raw-text runs have the CoNLL 2018 figures only)."""
        options = campaign.metrics or {}
        params = {"metrics": [METRIC, CONLL18], "punct": options.get("punct") or "upos",
                  "pos": options.get("pos", "upos"),
                  "tracks": tracks.check_tracks(options["tracks"]) if "tracks" in options else list(tracks.DEFAULT),
                  **bootstrap_parameters(options)}
        if run is not None:
            track = self.track_of(run)
            params["track"] = track
            params["metrics"] = [CONLL18] if track == tracks.RAW_TEXT else [METRIC, CONLL18]
        return params

    # -- tracks ------------------------------------------------------------------------------
    def tracks(self, campaign) -> dict[str, str]:
        return {t: tracks.TRACKS.get(t, t) for t in (campaign.metrics or {}).get("tracks") or tracks.DEFAULT}

    def all_tracks(self) -> dict[str, str]:
        return dict(tracks.TRACKS)

    def track_of(self, run) -> str:
        return run.track or tracks.GOLD_TOKENS  # runs stored before tracks existed are gold-token runs

    def track_note(self, track: str) -> str:
        return tracks.NOTES.get(track, "")

    # -- consensus ---------------------------------------------------------------------------
    def consensus_track(self, campaign) -> str | None:
        """Gold-token runs only: a raw-text run's words are its own, and aligning them to the corpus would
        make the consensus depend on an alignment no run chose (docs/consensus.md)."""
        return tracks.GOLD_TOKENS if tracks.GOLD_TOKENS in self.tracks(campaign) else None

    def combine_document(self, paths, folder, weights, thresholds, fallback):
        """Sagae and Lavie's reparsing (:mod:`parseval.evaluation.consensus.deps`); CoNLL-U Plus with the agreement
        (none on a fallback: the run's own file)."""
        summary = combine_dependency_files(paths, folder, weights, fallback=fallback)
        side = folder / "consensus.conllup"
        return folder / "consensus.conllu", [side] if side.exists() else [], summary

    def consensus_figure(self, parameters: dict) -> tuple | None:
        """LAS."""
        if METRIC in self.metrics_of(parameters):
            return ("micro", "deps-las", "", "", ALL)
        return super().consensus_figure(parameters)

    def score_metric(self, metric: str, gold: list, test: list, params: dict):
        return campaign_scoring.score_metric(metric, gold, test, params)

    # -- validation ------------------------------------------------------------------------
    def setup(self, run) -> RunSetup:
        """The parameters and track, and the UD validator's level if the organiser asks for it."""
        return replace(super().setup(run), context={"ud_level": _ud_level(run.campaign)})

    def check_document(self, check: RunCheck, doc, path: Path | None, cover: dict[str, set[str]] | None) -> int:
        expected = self._check_track(check, doc, path, cover)
        level = check.setup.context.get("ud_level")
        if level and path is not None:  # the UD project's checks as well, never instead of the project's
            check.problems += udvalidate.ud_problems(path, self.display(doc.name), level, check.run.campaign.language)
        return expected

    def _check_track(self, check: RunCheck, doc, path: Path | None, cover: dict[str, set[str]] | None) -> int:
        if check.setup.track != tracks.RAW_TEXT:
            return super().check_document(check, doc, path, cover)
        display = self.display(doc.name)
        if path is None:
            check.problems.append(Problem(missing_document_message(doc.name, cover), file=display))
            return 0
        try:
            expected, starts = self.expected_characters(doc, None if cover is None else cover.get(doc.name, set()))
        except InputError as exc:  # a corpus imported before tracks: said in the report
            check.problems += exc.problems
            return 0
        check.problems += self.check_raw_file(path, display, expected, starts)
        return len(starts)

    def report_fields(self, check: RunCheck) -> dict:
        fields = {**super().report_fields(check),
                  **({"track": tracks.RAW_TEXT} if check.setup.track == tracks.RAW_TEXT else {})}
        level = check.setup.context.get("ud_level")
        if level:
            fields["ud_validation"] = {"level": level, "validator": udvalidate.validator_version()}
        return fields

    @staticmethod
    def expected_characters(doc, wanted: set[str] | None) -> tuple[str, list[tuple[int, str]]]:
        """The non-whitespace characters a raw-text run of ``doc`` must spell (those of the sentences in
        ``wanted``, or of every sentence) and where each sentence starts, from the team-facing tokenisation."""
        data = read_extra_file(doc, TOKENS_SUFFIX)
        if data is None:
            raise InputError(N_('the corpus document %(name)s was imported before raw-text runs existed: it has no gold tokenisation to check the run against; ask the organisers') % {"name": doc.name},
                             file=f"{doc.name}{TOKENS_SUFFIX}")
        chars, starts = tokenisation_characters(data)
        if wanted is None:
            return chars, starts
        ends = [s for s, _ in starts[1:]] + [len(chars)]
        kept, kept_starts, pos = [], [], 0
        for (start, sid), end in zip(starts, ends):
            if sid in wanted:
                kept_starts.append((pos, sid))
                kept.append(chars[start:end])
                pos += end - start
        return "".join(kept), kept_starts

    def check_raw_file(self, path: Path, display: str, expected: str, starts: list[tuple[int, str]]) -> list[Problem]:
        """Problems of one raw-text run file: unreadable by the CoNLL 2018 rules, too big, or another text."""
        data = Path(path).read_bytes()
        try:
            run_tb = parse_conll18(data.decode("utf-8"), file=display)
        except UnicodeDecodeError as exc:
            return [Problem(N_('not UTF-8 text (%(reason)s at byte %(start)s)') % {"reason": exc.reason, "start": exc.start}, file=display)]
        except InputError as exc:
            return list(exc.problems)
        problems = []
        counts: dict[int, int] = {}
        for w in run_tb.words:
            counts[w.sentence] = counts.get(w.sentence, 0) + 1
        for k, n in counts.items():
            problems += size_problems({"words": n}, file=display, line=run_tb.sentence_lines[k],
                                      sentence=run_tb.sentence_names[k])
        found = run_tb.characters
        if found != expected:
            at = next((i for i, (a, b) in enumerate(zip(found, expected)) if a != b), min(len(found), len(expected)))
            sid = next((sid for start, sid in reversed(starts) if start <= at), starts[0][1] if starts else None)
            line = run_tb.token_lines[run_tb.token_at(at)] if run_tb.tokens else None
            run_sentence = run_tb.sentence_names[run_tb.sentence_at(at)] if run_tb.sentences else None
            if at >= len(found):
                what = f"the run's text ends there where the corpus text goes on with {expected[at:at + 20]!r}"
            elif at >= len(expected):
                what = f"the run goes on with {found[at:at + 20]!r} after the end of the corpus text"
            else:
                what = f"the run has {found[at:at + 20]!r} where the corpus text has {expected[at:at + 20]!r}"
            problems.append(Problem(
                f"not the corpus document's text: from non-whitespace character {at} (corpus sentence {sid}"
                + (f", run sentence {run_sentence}" if run_sentence else "") + f"), {what}",
                file=display, line=line, sentence=sid))
        return problems

    # -- scoring ----------------------------------------------------------------------------
    def score_run_files(self, run, files: dict[str, Path], setup: RunSetup,
                        progress: Progress | None = None) -> dict:
        params = setup.parameters
        if setup.track != tracks.RAW_TEXT:
            gold, where, checksum = self.paired_gold(run)
            if not gold:
                raise NoGold("the development sample is empty" if run.scope == "dev"
                             else "the campaign has no gold for its test set yet")
            test_by_doc = {name: {p.sid: p for p in self.run_sentences(files[name], name, run)}
                           for name in {d for d, _, _ in where}}
            test = [test_by_doc[d][s] for d, s, _ in where]
            return self.score(gold, test, [g for _, _, g in where], params, checksum,
                              sentences=[{"document": d, "sid": s, "genre": g} for d, s, g in where],
                              progress=progress)
        where, checksum, counts = self.raw_text_counts(run, files)
        return self.score([], [], [g for _, _, g in where], params, checksum,
                          sentences=[{"document": d, "sid": s, "genre": g} for d, s, g in where],
                          progress=progress, scored={CONLL18: score_rows(counts)})

    def raw_text_counts(self, run, files: dict[str, Path]) -> tuple[list[tuple[str, str, str]], str, list]:
        """``(where, gold checksum, rows)`` of a raw-text run: per gold sentence of the run's subset, in corpus
        order, the CoNLL 2018 counts of the run aligned with its whole document (for a development-sample
        check: with the document's development sentences, the text such a run spells)."""
        subset, wanted, golds = run_subset_gold(run)
        cover = sentences_to_cover(run.campaign, run.scope)
        where, rows, checksum_files, partial = [], [], {}, False
        for gold in sorted(golds, key=lambda g: (g.document.order, g.document.name)):
            doc = gold.document
            display = self.display(doc.name)
            with local_copy(gold.file, sha256=gold.sha256) as path:
                parsed = self.read(path, display)
            aligned = parsed if cover is None else [p for p in parsed if p.sid in cover.get(doc.name, set())]
            gold_tb = parse_conll18(write_conllu([p.unit for p in aligned]), file=display)
            test_tb = parse_conll18(Path(files[doc.name]).read_bytes().decode("utf-8"), file=display)
            for p, row in zip(aligned, document_rows(gold_tb, test_tb)):
                if p.sid in wanted[doc.pk]:
                    where.append((doc.name, p.sid, doc.genre.code))
                    rows.append(row)
                else:
                    partial = True
            checksum_files[display] = read_gold_file(gold)
        if not where:
            raise NoGold("the development sample is empty" if run.scope == "dev"
                         else "the campaign has no gold for its test set yet")
        scored = [f"{d}:{s}" for d, s, _ in where] if partial else None
        return where, gold_checksum(checksum_files, subset, scored), rows

    def rescoring(self, result):
        """Gold-tokens runs only: a raw-text run is aligned to the gold before it is scored."""
        if (result.document.get("parameters") or {}).get("track") == tracks.RAW_TEXT:
            return {"engine": "", "note": "a raw-text run is aligned to the gold tokens before it is scored"}
        return super().rescoring(result)

    def sentence_rows(self, result):
        """Paired significance: a raw-text run's rows are its alignment's, computed again."""
        params = result.document.get("parameters") or {}
        if params.get("track") != tracks.RAW_TEXT:
            return super().sentence_rows(result)
        run = result.run
        try:
            with local_copy(run.file, sha256=run.sha256) as path, \
                    unpacked(run.campaign, path, run.original_filename) as files:
                where, checksum, counts = self.raw_text_counts(run, files)
        except FileNotFoundError as exc:
            raise RowsUnavailable(f"the run's file is gone ({exc.filename})") from None
        if checksum != result.gold_sha256:
            raise RowsUnavailable("the gold changed since this result was scored")
        _, rows = score_rows(counts)
        return [f"{d}/{s}" for d, s, _ in where], [g for _, _, g in where], np.asarray(rows, dtype=np.float64)

    # -- the analysis explorer ------------------------------------------------------------------
    def analyse(self, result):
        """The library's bucket analysis of the run (gold-tokens track; None for raw text), with its sentences."""
        return dep_analysis.analyse(self, result)

    def sentence_svg(self, result, key: str, labels: dict | None = None):
        """The sentence's gold arcs above its words, the run's below."""
        return dep_analysis.sentence_svg(self, result, key, labels or {})


__all__ = ["DependencyKind"]
