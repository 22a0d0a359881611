"""The contract of a campaign kind: every hook the rest of the platform calls, each with its default.

A kind (EASY, constituency, dependency...) is one :class:`Kind` subclass, registered with
:mod:`campaign.kinds` when the evaluation app starts. The portal, the console, the worker and the
results pages only ever call the methods below; none of them asks which kind a campaign is, and none
probes a kind for an optional method (``tests/test_kind_contract.py`` fails if one does). A hook a
kind has nothing to say about keeps its default here: no tracks, no diagnostics, one run format.

Abstract (every kind says it): its files and their reading at corpus import, validation, gold
loading, scoring, per-sentence rows and figures for the significance layer, the published summary
and its pages. Everything else has a default.

What the methods receive: ``campaign`` and ``run`` are the campaign layer's model objects, ``files``
is ``{corpus document name: path}`` of an unpacked run (:func:`campaign.services.runs.unpacked`), and
``setup`` the :class:`RunSetup` the worker asks :meth:`Kind.setup` for once per run (parameters, run
file names, and what else the kind resolves from the campaign, such as EASY's schema), so that
validation and scoring never go back to the campaign for them.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from django.http import Http404
from django.utils.translation import gettext

Progress = Callable[[int, int], None]
FIGURE_HELP = "results/_figure_help.html"


@dataclass(frozen=True)
class RunSetup:
    """What scoring one run needs from its campaign, resolved once (:meth:`Kind.setup`) and passed down."""

    kind: "Kind"
    parameters: dict  # stored with the result (see Kind.result_parameters)
    suffixes: tuple[str, ...]  # the run's file names (Kind.run_suffixes of a stored run)
    track: str = ""
    context: dict = field(default_factory=dict)  # anything else the kind resolved (not stored)


@dataclass
class Combined:
    """What :meth:`Kind.combine` made: the consensus as a run (``{document name: file in the kind's run
    format}``, scored like any run) and the treebank files that carry each item's agreement."""

    files: dict[str, Path]
    treebank: list[Path]
    sentences: int = 0
    items: int = 0
    mean_agreement: float | None = None


@dataclass
class Analysis:
    """What :meth:`Kind.analyse` computed for one result (issue 38), stored once by :mod:`evaluation.analysis.store`.

    ``document``: the library's analysis document (``docs/metrics/analysis.md``), with the confusions the kind
    adds; ``index``: what the explorer reads to go from a number to its sentences
    (:mod:`evaluation.kinds.analysis` builds it: sentence keys and genres, per bucket the sentences and their
    counts, per confusion cell its sentences, and the run's errors item by item)."""

    document: dict
    index: dict


class Kind(ABC):
    #: The stored ``Campaign.kind`` value and the registry key.
    name: str = ""
    #: What the organiser picks in the campaign form.
    label: str = ""
    #: File suffixes of the kind's gold and run files, the first one canonical (``NAME + suffixes[0]``).
    suffixes: tuple[str, ...] = ()
    #: How an import page and its messages name one gold file.
    file_label: str = ""
    #: The upload form's help text (see :meth:`file_help_for`).
    file_help: str = ""
    #: Prefix of the reason a run fails when the campaign's options cannot be used.
    options_error: str = "the campaign's scoring options are wrong"
    #: The keys ``Campaign.metrics`` may hold for this kind (the admin form refuses others).
    option_keys: tuple[str, ...] = ()
    #: What the campaign admin's scoring options field says of this kind's (one sentence, with an example).
    options_help: str = ""
    #: True when genres come from the gold file names: the import takes no genre map.
    genres_from_names_only: bool = False
    #: True when the error lab's per-word view applies to a run.
    has_word_view: bool = False
    #: True when :meth:`diagnostics_page` shows something (linked from the run and comparison pages).
    has_diagnostics: bool = False
    #: True when the organisers' error lab (damaged phrase-structure treebanks) applies to the kind's campaigns.
    has_error_lab: bool = False
    #: What the corpus download holds, after "Download the corpus" (the team's campaign page).
    corpus_contents: str = ""

    # -- options and parameters ---------------------------------------------------------------
    def check_options(self, options: dict) -> None:
        """Raise ValueError, saying what is wrong, unless ``options`` (``Campaign.metrics``) can be used.
        Default: every value of :attr:`option_keys` is accepted."""

    @abstractmethod
    def parameters(self, campaign, run=None) -> dict:
        """What a run of ``campaign`` is scored with (stored in the result and its signature): the campaign's
        options with the defaults filled in, and, given ``run``, what depends on the run (its track).
        Raise ValueError when the options cannot be used (the run fails with :attr:`options_error`)."""

    def setup(self, run) -> RunSetup:
        """Everything validating and scoring ``run`` reads from its campaign, resolved once by the worker.
        Raises ValueError as :meth:`parameters` does. Default: parameters, stored-run suffixes and track."""
        return RunSetup(self, self.parameters(run.campaign, run), self.run_suffixes(run.campaign, stored=True),
                        self.track_of(run))

    # -- run files ----------------------------------------------------------------------------
    def run_suffixes(self, campaign, *, stored: bool = False):
        """The suffixes (or a :class:`campaign.services.archives.FileNames`) of a run's files.
        ``stored``: a run already accepted, read whatever the campaign's options have become since.
        Default: :attr:`suffixes`."""
        return self.suffixes

    def run_file_format(self, filename: str) -> str:
        """The format of one run file, by its name: a run's files must all be in the same one.
        Default: one format for every suffix."""
        return ""

    def run_file_problem(self, path: Path, display: str) -> str | None:
        """Why an uploaded run file cannot be what its name says (read before anything is stored), or None.
        Default: a text file (no NUL byte in its first 4 KiB)."""
        with open(path, "rb") as fh:
            head = fh.read(4096)
        if b"\x00" in head:
            return "is not a text file (it holds NUL bytes)"
        return None

    def file_help_for(self, campaign) -> str:
        """The upload form's help for ``campaign`` (its options may widen what it takes). Default: :attr:`file_help`."""
        return self.file_help

    def run_file_label(self, campaign) -> str:
        """How the upload page names one run file of ``campaign`` ("Name each ... after the corpus document it
        annotates"), in the reader's language. Default: :attr:`file_label` (an ``N_`` text)."""
        return gettext(self.file_label) if self.file_label else ""

    def run_formats_label(self, campaign) -> str:
        """What the organisers' console says of the run files ``campaign`` takes ("": nothing to say, the
        kind takes one format). Default: ""."""
        return ""

    # -- tracks -------------------------------------------------------------------------------
    def tracks(self, campaign) -> dict[str, str]:
        """``{track: label}`` of the tracks ``campaign`` takes, in the organiser's order, the first the default.
        Runs of different tracks are not comparable and are ranked apart. Default: none."""
        return {}

    def all_tracks(self) -> dict[str, str]:
        """``{track: label}`` of every track the kind knows (the API's and the forms' choices). Default: none."""
        return {}

    def track_of(self, run) -> str:
        """The track ``run`` is scored in (``Run.track``, or what stands for it). Default: none."""
        return ""

    def track_note(self, track: str) -> str:
        """One sentence on what runs of ``track`` are, for the results page's section. Default: none."""
        return ""

    # -- corpus, validation, gold, scoring ----------------------------------------------------
    @abstractmethod
    def import_corpus(self, campaign, gold_paths: Iterable[Path | str], *, genres: Mapping[str, str] | None = None,
                      subset: str = "test", actor=None):
        """Import gold files, one per corpus document, all or nothing (an ``InputError`` lists every problem);
        returns :class:`campaign.services.corpus.ImportSummary`."""

    @abstractmethod
    def validate_run_files(self, run, files: dict[str, Path], setup: RunSetup, progress: Progress | None = None) -> dict:
        """The validation report of a run, against the corpus text teams downloaded, never the gold
        (``valid``, ``problem_count``, ``problems``, ``warnings``...)."""

    @abstractmethod
    def score_run_files(self, run, files: dict[str, Path], setup: RunSetup, progress: Progress | None = None) -> dict:
        """The result document of a validated run (``cells``, ``signature``, ``gold_sha256``...), scored against
        the gold of the run's subset; raise :class:`evaluation.pipeline.services.NoGold` when there is none."""

    @abstractmethod
    def gold_files(self, campaign, wanted: dict[str, set[str]]) -> dict[str, bytes]:
        """``{file name: bytes}``: per document, its gold sentences whose ids are in ``wanted[document]``."""

    def result_parameters(self, setup: RunSetup, document: dict) -> dict:
        """The parameters stored with a result scored as ``document``. Default: the setup's parameters."""
        return setup.parameters

    # -- one run scored across workers (evaluation.pipeline.sharding) ------------------------------------
    def shard_documents(self, run, files: dict[str, Path], setup: RunSetup, sentences_per_shard: int) -> list[list[str]]:
        """The corpus documents of each shard ``run`` can be scored in, in corpus order: consecutive documents
        of at most ``sentences_per_shard`` gold sentences each (a larger document alone). One shard or none:
        the run is scored by one task. Default: ``[]``, the kind cannot shard and every run is one task."""
        return []

    def score_shard(self, run, files: dict[str, Path], setup: RunSetup, documents: list[str]) -> bytes:
        """What one shard (``documents``, as :meth:`shard_documents` gave them) counts, in a form only
        :meth:`merge_shards` reads; raises as :meth:`score_run_files` would. Called only for the shards of a
        kind that gives some. Default: none."""
        raise NotImplementedError(f"the {self.name} kind does not score runs in shards")

    def merge_shards(self, run, setup: RunSetup, counts: Iterable[bytes]) -> dict:
        """The result document of ``run`` from its shards' :meth:`score_shard` output, in shard order: byte for
        byte what :meth:`score_run_files` returns for the whole run (the signature and gold checksum included;
        the bootstrap, if any, computed once on the merged rows). ``counts`` may be a generator reading each
        shard's bytes when its turn comes, so that a merge need not hold every shard. Default: none."""
        raise NotImplementedError(f"the {self.name} kind does not score runs in shards")

    # -- results, significance, pages ---------------------------------------------------------
    @abstractmethod
    def result_summary(self, result, **selection) -> list[dict]:
        """One row per published figure of ``result`` (the API, CSV exports and run pages read them)."""

    @abstractmethod
    def sentence_rows(self, result):
        """``(sentence ids, genres, rows)``: the per-sentence count rows of ``result``, for paired tests."""

    @abstractmethod
    def paired_figures(self, result):
        """The :class:`parseval.evaluation.paired.FigureSet` list the significance layer tests for ``result``."""

    def rescoring(self, result) -> dict | None:
        """How a reader without the platform counts ``result``'s per-sentence rows again from the run's file and
        the released gold (``python -m evaluation reproduce --gold``, docs/bundle.md): ``{"engine": one of
        parseval.evaluation.cli.reproduce.RESCORERS, ...what that engine reads}``, or None. Default: None (the bundle's
        figures are still recomputed from its rows)."""
        return None

    def gold_tree_labels(self, campaign) -> set[str]:
        """The phrase labels of the campaign's gold trees (the error lab picks its label preset from them).
        Default: none (no trees)."""
        return set()

    def figure_help_template(self, explained) -> str:
        """The template explaining the figures on the ranking and comparison pages ("" for none).
        Default: the registry's figure help, when there are figures to explain."""
        return FIGURE_HELP if explained else ""

    @abstractmethod
    def campaign_page(self, request, campaign):
        """The campaign's results page."""

    @abstractmethod
    def run_page(self, request, campaign, run):
        """One run's results page."""

    # -- consensus (evaluation.consensus.runs) ------------------------------------------------
    def consensus_track(self, campaign) -> str | None:
        """The track whose runs the campaign's consensus combines (runs of one track share the corpus's
        tokens), or None when the kind cannot combine runs. Default: None: the campaign then has no
        consensus pseudo-run, no oracle and no treebank, and the organisers' consensus page says so."""
        return None

    def combine(self, runs, weights, out: Path, *, thresholds: dict | None = None,
                fallback: int | None = None) -> Combined:
        """The consensus of ``runs`` (each ``(run, {document name: path})``, its files unpacked), weighed by
        ``weights`` (one per run), written under ``out``; ``thresholds`` (``groups``, ``relations``, ``spans``:
        :mod:`parseval.evaluation.consensus.tuning`) default to one half; ``fallback=i``: run ``i``'s own files
        instead (a tuning found nothing better). The engine (:mod:`parseval.evaluation.consensus`) is pure and
        reads one document at a time. Default: the kind cannot combine (see :meth:`consensus_track`)."""
        raise NotImplementedError(f"campaigns of kind {self.name!r} cannot combine their runs")

    def consensus_figure(self, parameters: dict) -> tuple | None:
        """The key ``(aggregation, layer, mode, match, type)`` of the one figure, in results scored with
        ``parameters``, that weighs runs by their development scores and picks the oracle's run sentence by
        sentence (the best per-sentence value of that figure). Default: none."""
        return None

    # -- the analysis explorer (evaluation.analysis) -------------------------------------------
    def analyse(self, result) -> Analysis | None:
        """The analysis of ``result`` (:class:`Analysis`): its figures by attributes of the items, with the sentences
        behind every bucket and confusion cell, computed once per result by :mod:`evaluation.analysis.store` (worker
        code: it reads gold). Raise :class:`evaluation.results.sentence_rows.RowsUnavailable` when the run's files or
        its gold are gone. Default: None, the kind has no analysis (the explorer says so)."""
        return None

    def sentence_svg(self, result, key: str, labels: dict | None = None) -> str | None:
        """The sentence ``key`` ("document/sentence id") of ``result``'s run drawn beside its gold as one server-side
        ``<svg>`` (:mod:`evaluation.kinds.sentence_svg`), the missing and wrong items marked, captioned with
        ``labels`` (translated by the caller); None when the sentence is not one of the result's. Reads gold: the
        caller decides who may see it. Default: None."""
        return None

    # -- disk upkeep (evaluation.upkeep) -------------------------------------------------------------
    def forget_run_files(self, run) -> int:
        """Delete what the kind stored beside ``run``'s file for its own reading (never the file itself), the run
        being withdrawn: nothing will read it again. How many files. Default: the kind stores nothing, 0."""
        return 0

    def sweep_stored(self) -> dict[str, int]:
        """Delete what the kind stored beside the runs' files or the gold that no scoring will read (of runs
        withdrawn or deleted, of files gone, of older keys), never what a task started within the task time
        limit may still read; counts by reason (those named in ``evaluation.upkeep.FOUND`` count what was found,
        not removed). Default: the kind stores nothing, ``{}``."""
        return {}

    def diagnostics_page(self, request, run):
        """Per-sentence diagnostics of a run (see :attr:`has_diagnostics`). Default: none (404)."""
        raise Http404("Per-sentence diagnostics are not available for this kind of campaign.")
