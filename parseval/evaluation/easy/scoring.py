"""Scoring an EASY run against gold: counts, micro and macro figures, bootstrap intervals.

The entry point is :func:`score_corpus`; it returns the JSON document that
the command line writes with ``--json`` and that the web app stores. All
functions are pure (no Django, no global state); run files given as paths
are streamed.
"""
from __future__ import annotations

import gc
import warnings as _warnings
from contextlib import contextmanager
from typing import Callable, Iterable, Mapping

import numpy as np

from parseval.annotations.easy.model import Document, SentenceParts
from parseval.annotations.easy.reader import DEFAULT_MAX_PROBLEMS, ProblemSink, compare_forms, document_key, iter_sentences, source_name
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.easy.validate import reference_forms
from parseval.annotations.errors import InputError, Problem
from parseval.evaluation.signature import make_signature
from parseval.evaluation.stats import ALL, DEFAULT_SEED, column_intervals, f_from_counts, interval, prf, streamed_resampled_sums
from parseval.evaluation.version import SCORER_VERSION

from .counting import Plan, count_sentence_compact
from .files import genre_of
from .gold_index import IndexedDocument
from .ranges import MATCHES, MODES, HypothesisView, ReferenceView
from .row_spill import CountRows, RowSpill, Segment
from .run_index import IndexedRunDocument, replay
from .warning_log import MAX_WARNINGS, GoldWarnings, WarningLog, as_dicts

LAYERS = ("constituents", "relations")
DEFAULT_BOOTSTRAP = 1000


def cell_signature(layer: str, mode: str | None, match: str, agg: str, bootstrap: int, seed: int) -> str:
    return make_signature(f"easy-{layer}", mode=mode, match=match, agg=agg, bs=bootstrap, seed=seed)


def corpus_signature(matches, modes, bootstrap: int, seed: int) -> str:
    return make_signature("easy", mode=list(modes), match=list(matches), agg="micro+macro", bs=bootstrap,
                          seed=seed)


def extend_all(x: np.ndarray, plan: Plan) -> np.ndarray:
    """Append an ALL-types column after each way's block: columns become (way, type..., ALL)."""
    blocks = []
    for _, _, _, off, types in plan.ways:
        block = x[..., off:off + len(types)]
        blocks.append(block)
        blocks.append(block.sum(axis=-1, keepdims=True))
    return np.concatenate(blocks, axis=-1)


class _Rows:
    """One document's count rows, filled as its run sentences stream in: ``fc`` one column per (way, type),
    ``fp_compact`` and ``cr_compact`` one per (layer or mode, type) (see ``Plan.expand``); ``fp`` and ``cr``
    give them expanded to the columns of ``fc``."""

    def __init__(self, n: int, plan: Plan):
        self.plan = plan
        # a sentence's counts are bounded by parseval.annotations.limits (4,000 relations, 2,000 groups): int16 holds them
        self.fc = np.zeros((n, plan.ncols), dtype=np.int16)
        self.fp_compact = np.zeros((n, plan.ncompact), dtype=np.int16)
        self.cr_compact = np.zeros((n, plan.ncompact), dtype=np.int16)
        self.done = np.zeros(n, dtype=bool)

    def set(self, i, rows):
        """Row ``i`` from :func:`count_sentence_compact`'s arrays."""
        fc, fp, cr = rows
        self.fc[i] = fc
        self.fp_compact[i] = fp
        self.cr_compact[i] = cr
        self.done[i] = True

    @property
    def fp(self) -> np.ndarray:
        return self.fp_compact[:, self.plan.expand]

    @property
    def cr(self) -> np.ndarray:
        return self.cr_compact[:, self.plan.expand]


def _as_docs(docs) -> list:
    if docs is None:
        return []
    if isinstance(docs, Mapping):
        return list(docs.items())
    out = []
    for d in docs:
        if isinstance(d, Document):
            out.append((document_key(d.name), d))
        else:
            out.append((document_key(source_name(d)), d))
    return out


def score_corpus(
    gold_docs,
    run_docs,
    genres: Mapping[str, str] | Callable[[str], str] | None = None,
    *,
    matches: Iterable[str] = MATCHES,
    modes: Iterable[str] = MODES,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    gold_sha256: str = "",
    progress: Callable[[int, int], None] | None = None,
    schema: EasySchema = DEFAULT_SCHEMA,
    corpus=None,
    max_problems: int | None = DEFAULT_MAX_PROBLEMS,
) -> dict:
    """Score runs against gold; return the result document (see docs/metrics/easy.md).

    ``gold_docs``: :class:`Document` objects (read with ``gold=True``) or paths
    (read one at a time, when their run comes), as an iterable or a ``{key:
    Document or path}`` mapping; a mapping may also give stored gold indexes
    (:class:`~parseval.evaluation.easy.gold_index.IndexedDocument`) or functions
    returning one, called when the document's run comes. ``run_docs``: Documents or
    paths (streamed), iterable or mapping; documents are paired by key (the
    base file name without ``.xml``). ``genres`` maps a key to a genre
    (default: the name up to the first ``_``). ``corpus`` optionally maps a
    key to the corpus text of the document (a Document or ``{sentence id:
    ((form id, text), ...)}``) used to validate run sentences that have no
    gold. Raises :class:`InputError` listing every problem of the runs.
    ``progress(done, total)`` is called after each run document and after
    the bootstrap.
    """
    return _score_corpus(gold_docs, run_docs, genres, matches=matches, modes=modes, bootstrap=bootstrap, seed=seed,
                         gold_sha256=gold_sha256, progress=progress, schema=schema, corpus=corpus,
                         max_problems=max_problems, with_rows=False)[0]


def score_corpus_with_rows(gold_docs, run_docs, genres=None, **options) -> tuple[dict, tuple, list[str]]:
    """:func:`score_corpus`'s document, the count rows it summed (``(keys, genres, rows)`` as
    :func:`counted_rows` gives them) and the rows' column names (``fc|relations|HYP|EQUAL|SUJ-V``...): one
    scoring for the library's API, which returns all three."""
    return _score_corpus(gold_docs, run_docs, genres, with_rows=True, **options)


def row_columns(plan: Plan) -> list[str]:
    """The names of :func:`counted_rows`' columns: ``count|layer|mode|match|type``, ALL after each way's types."""
    names = [f"{layer}|{mode or ''}|{match}|{t}" for layer, mode, match, _, types in plan.ways for t in (*types, ALL)]
    return [f"{count}|{name}" for count in ("fc", "fp", "cr") for name in names]


def _score_corpus(gold_docs, run_docs, genres=None, *, matches: Iterable[str] = MATCHES,
                  modes: Iterable[str] = MODES, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                  gold_sha256: str = "", progress: Callable[[int, int], None] | None = None,
                  schema: EasySchema = DEFAULT_SCHEMA, corpus=None, max_problems: int | None = DEFAULT_MAX_PROBLEMS,
                  with_rows: bool) -> tuple[dict, tuple | None, list[str] | None]:
    matches, modes = _check_options(tuple(matches), tuple(modes), bootstrap)
    plan, gold, counting = count_sentences(gold_docs, run_docs, genres, matches=matches, modes=modes,
                                           progress=progress, schema=schema, corpus=corpus,
                                           max_problems=max_problems)
    total = counting.documents_read + 1
    rows = counting.rows
    run_warnings = as_dicts(counting.warnings)
    run_warnings.add(*as_dicts(counting.late_warnings).said())
    run_warnings.extend(w.as_dict() for w in counting.layer_warnings)
    counted = counted_rows(plan, gold, counting) if with_rows else None
    try:
        document = result_document(
            plan, rows, counting.submitted, gold_warnings=as_dicts(gold.warnings),
            run_warnings=run_warnings, documents=gold.documents,
            counts={"gold_sentences": len(rows), **counting.stats, **gold.dedup},
            bootstrap=bootstrap, seed=seed, gold_sha256=gold_sha256, schema=schema)
    finally:
        rows.close()
    if progress is not None:
        progress(total, total)
    return document, counted, row_columns(plan) if with_rows else None


def result_document(plan: Plan, rows: CountRows, submitted: Mapping[str, bool], *,
                    gold_warnings: WarningLog, run_warnings: WarningLog, documents: list[dict], counts: dict,
                    bootstrap: int, seed: int, gold_sha256: str, schema: EasySchema) -> dict:
    """The result document from every gold sentence's count rows (in gold order) and what the counting said:
    what :func:`score_corpus` returns, and what :func:`parseval.evaluation.easy.shards.merge` rebuilds from shards.
    The warnings (as dicts) are each side's first :data:`MAX_WARNINGS` and how many it said."""
    matches, modes = plan.matches, plan.modes
    result = aggregate(rows, plan, submitted, bootstrap=bootstrap, seed=seed)
    # Each warning says which side it is about: a gold file and its run often share a name.
    warnings = ([dict(w, side="gold") for w in gold_warnings.kept]
                + [dict(w, side="run") for w in run_warnings.kept])
    said = gold_warnings.total + run_warnings.total
    if said > MAX_WARNINGS:
        extra = said - MAX_WARNINGS
        warnings = warnings[:MAX_WARNINGS] + [Problem(f"... and {extra} more warnings not shown").as_dict()]
    return {
        "signature": corpus_signature(matches, modes, bootstrap, seed),
        "scorer_version": SCORER_VERSION,
        "gold_sha256": gold_sha256,
        "cells": result["cells"],
        "macro": result["macro"],
        "warnings": warnings,
        "layers_submitted": dict(submitted),
        "parameters": {
            "matches": list(matches), "modes": list(modes), "bootstrap": bootstrap, "seed": seed,
            "schema": schema.name, "bootstrap_strata": "genre", "ci_level": 0.95,
        },
        "genres": result["genres"],
        "documents": documents,
        "counts": counts,
    }


def count_sentences(gold_docs, run_docs, genres=None, *, matches: Iterable[str] = MATCHES,
                    modes: Iterable[str] = MODES, progress: Callable[[int, int], None] | None = None,
                    schema: EasySchema = DEFAULT_SCHEMA, corpus=None,
                    max_problems: int | None = DEFAULT_MAX_PROBLEMS) -> tuple[Plan, "_GoldIndex", "_Counting"]:
    """The per-gold-sentence count rows of a run (``counting.rows``, one row per gold sentence, genre
    ``gold.row_genre[i]``: a :class:`CountRows` on a temporary file, read in blocks, or whole with ``.fc``,
    ``.fp``, ``.cr``), before any aggregation: what :func:`score_corpus` sums, and what the paired
    significance tests resample. ``progress`` counts one step per run document plus one to come."""
    plan = Plan(schema, tuple(matches), tuple(modes))
    gold = _GoldIndex(_as_docs(gold_docs), _genre_function(genres), schema.relation_roles, schema)
    counting = _Counting(gold, plan, schema, corpus, max_problems)
    run_list = _as_docs(run_docs)
    total = len(run_list) + 1
    seen_keys = set()
    with _fewer_full_collections():
        for done, (key, run) in enumerate(run_list, 1):
            if key in seen_keys:
                raise InputError(f"two run documents share the name {key}")
            seen_keys.add(key)
            counting.add_run(key, run)
            if progress is not None:
                progress(done, total)
    counting.documents_read = len(run_list)
    counting.finish()
    return plan, gold, counting


@contextmanager
def _fewer_full_collections():
    """Counting with the cyclic garbage collector's older generations collected less often.

    Counting builds a few dozen tuples, lists, sets and dictionaries for every sentence, which live as long as
    their document: the collector then moves them to its older generations, and each of its full collections
    walks every object of the process, the imported modules' included (at 24x the reference, 70 of them took
    0.8 s, 3 % of the command). Here the objects that exist before counting (imports, the gold's sources) are
    frozen out of the collector's walks (``gc.freeze``), and a middle-generation collection waits for 100
    young ones instead of 10. The young generation is collected as often as before, so cyclic garbage is
    still freed soon (peak memory unchanged). Restored on the way out: the settings are the process's."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(thresholds[0], max(thresholds[1], 100), thresholds[2])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def counted_rows(plan: Plan, gold: "_GoldIndex", counting: "_Counting") -> tuple[list[str], list[str], np.ndarray]:
    """What :func:`count_sentences` returns as ``(keys, genres, fc | fp | cr rows)``, a key being
    ``document/sentence id`` (the rows the paired tests and the publication bundle carry)."""
    keys = [f"{document}/{sid}" for document, sid in gold.row_ids]
    r = counting.rows
    return keys, gold.row_genre, np.hstack([extend_all(x, plan) for x in (r.fc, r.fp, r.cr)])


def _check_options(matches: tuple, modes: tuple, bootstrap: int) -> tuple[tuple, tuple]:
    for m in matches:
        if m not in MATCHES:
            raise InputError(f"unknown range function {m!r} (expected one of {', '.join(MATCHES)})")
    for m in modes:
        if m not in MODES:
            raise InputError(f"unknown mode {m!r} (expected one of {', '.join(MODES)})")
    if not matches or not modes:
        raise InputError("at least one range function and one mode are needed")
    if bootstrap < 0:
        raise InputError("the bootstrap size must be >= 0")
    return matches, modes


def _genre_function(genres) -> Callable[[str], str]:
    if genres is None:
        return genre_of
    if callable(genres):
        return genres
    gmap = {document_key(k): v for k, v in genres.items()}
    return lambda key: gmap.get(key) or genre_of(key)


class _GoldIndex:
    """The gold, one document at a time: a document's sentences (count row, reference view, forms) are
    read when its run comes (:meth:`load`) and dropped once it is counted (:meth:`release`), its count rows
    (:class:`_Rows`) and sentence ids then written to a :class:`RowSpill`; what stays is per document where
    they went. :meth:`assemble` gives the rows in gold order (:class:`CountRows`).

    A document given as a path is read only then, so the gold is never held whole in memory, nor its rows.
    """

    def __init__(self, gold_list: list, genre_fn: Callable[[str], str], relation_roles,
                 schema: EasySchema = DEFAULT_SCHEMA):
        if not gold_list:
            raise InputError("no gold document")
        self.sources: dict = {}
        for key, doc in gold_list:
            if key in self.sources:
                raise InputError(f"two gold documents share the name {key}")
            self.sources[key] = doc
        self.order = [key for key, _ in gold_list]
        self.genre_fn, self.relation_roles, self.schema = genre_fn, relation_roles, schema
        self.spill: RowSpill | None = None  # created with the plan, by the first load
        self.blocks: dict[str, _Rows] = {}  # the rows of the documents being counted
        self.loaded: dict[str, dict[str, tuple[int, ReferenceView, tuple]]] = {}
        self.placed: dict[str, Segment] = {}  # the documents counted: where their rows went
        self.warnings = GoldWarnings(self.order)  # what the result can show of the gold's warnings
        self.documents = [{"name": key, "genre": genre_fn(key), "gold_sentences": 0, "run": False,
                           "run_sentences": 0} for key in self.order]
        self.by_name = {d["name"]: d for d in self.documents}
        self.dedup = {"gold_groups_read": 0, "gold_groups_scored": 0, "gold_relations_read": 0,
                      "gold_relations_scored": 0}

    @property
    def row_genre(self) -> list[str]:
        """The genre of each row, in row order (built when asked)."""
        return [d["genre"] for d in self.documents for _ in range(d["gold_sentences"])]

    @property
    def row_ids(self) -> list[tuple[str, str]]:
        """``(document, sentence id)`` of each row, in row order (read back when asked: only paired tests ask)."""
        return [(key, sid) for key in self.order if key in self.placed
                for sid in self.spill.ids(self.placed[key].ids)]

    def load(self, key: str, plan: Plan) -> dict[str, tuple[int, ReferenceView, tuple]] | None:
        """``{sentence id: (row in the document's block, reference view, forms)}``, or None (no such gold)."""
        if key in self.loaded:
            return self.loaded[key]
        source = self.sources.get(key)
        if source is None or key in self.blocks or key in self.placed:
            return None if source is None else {}
        if callable(source):  # a loader: the document (a stored index) is fetched only now
            source = source()
        if isinstance(source, IndexedDocument):
            self.warnings.add(key, source.warnings)
            items = source.scoring_sentences()
        elif isinstance(source, Document):
            if source.problems:
                raise InputError(source.problems)
            self.warnings.add(key, source.warnings)
            items = (self._reference_item(s) for s in source.sentences)
        else:
            items = self._read_reference(source, key)
        sents = {}
        dedup = self.dedup
        for sid, ref, forms, groups_read, relations_read in items:
            sents[sid] = (len(sents), ref, forms)
            dedup["gold_groups_read"] += groups_read
            dedup["gold_relations_read"] += relations_read
            dedup["gold_groups_scored"] += sum(map(len, ref.cons.values()))
            dedup["gold_relations_scored"] += sum(map(len, ref.rels.values()))
        self.by_name[key]["gold_sentences"] = len(sents)
        if self.spill is None:
            self.spill = RowSpill(plan.ncols, plan.ncompact)
        self.blocks[key] = _Rows(len(sents), plan)
        self.loaded[key] = sents
        return sents

    def _reference_item(self, s):
        """``(id, reference view, forms, groups read, relations read)`` of a gold sentence or its parts."""
        if isinstance(s, SentenceParts):
            return s.id, ReferenceView.from_sentence_parts(s), s.forms, len(s.groups), len(s.relations)
        return (s.id, ReferenceView(s, self.relation_roles), tuple((f.id, f.text) for f in s.forms), len(s.groups),
                len(s.relations))

    def _read_reference(self, source, key: str) -> list:
        """A gold file's items (see :meth:`_reference_item`), read as ``read_document(gold=True)`` reads it
        (its problems raised, its warnings kept), its sentences as parts where they can be."""
        sink = ProblemSink(DEFAULT_MAX_PROBLEMS)
        warnings = WarningLog()
        items = [self._reference_item(s) for s in iter_sentences(source, schema=self.schema, gold=True,
                                                                 problems=sink, warnings=warnings, parts=True)]
        if len(sink):
            raise InputError(sink.result())
        self.warnings.add(key, warnings.kept, warnings.total)
        return items

    def release(self, key: str) -> None:
        """The document is counted: its rows and ids go to the spill, its sentences are dropped."""
        sents = self.loaded.pop(key, None)
        rows = self.blocks.pop(key, None)
        if rows is None:
            return
        start, ids = self.spill.append(rows.fc, rows.fp_compact, rows.cr_compact, list(sents or ()))
        self.placed[key] = Segment(self.by_name[key]["genre"], start, rows.fc.shape[0], ids)

    def assemble(self, plan: Plan) -> CountRows:
        """The count rows of every gold sentence, in gold order (one document after the other)."""
        if self.spill is None:
            self.spill = RowSpill(plan.ncols, plan.ncompact)
        return CountRows(self.spill, [self.placed[key] for key in self.order], plan.expand)


class _Counting:
    """Run documents streamed in one by one: validated against the corpus or gold forms, counted per sentence."""

    def __init__(self, gold: _GoldIndex, plan: Plan, schema: EasySchema, corpus, max_problems):
        self.gold, self.plan, self.schema = gold, plan, schema
        self.rows: CountRows | None = None  # every gold sentence's, once finished
        self.sink = ProblemSink(max_problems)
        self.corpus_forms = {document_key(k): reference_forms(v) for k, v in (corpus or {}).items()}
        self.submitted = {"constituents": False, "relations": False}
        self.documents_read = 0
        self.stats = {"run_sentences": 0, "run_sentences_without_gold": 0, "gold_sentences_missing_from_run": 0}
        # the result lists the warnings said reading the runs, then those of the end of the counting (gold
        # documents without a run), then the layers missing from the run; a shard's merge needs them apart
        self.warnings = WarningLog()
        self.late_warnings = WarningLog()
        self.layer_warnings: list[Problem] = []

    def add_run(self, key: str, run) -> None:
        gold_sents = self.gold.load(key, self.plan)
        block = self.gold.blocks.get(key)
        text = self.corpus_forms.get(key)
        if gold_sents is None:
            self.warnings.append(Problem(f"run document {key} has no gold: validated, not scored", file=key))
        gold_forms = ({sid: forms for sid, (_, _, forms) in gold_sents.items()} if gold_sents is not None
                      else None)
        expected = text if text is not None else gold_forms
        ids: list[str] = []
        indexed = None
        if isinstance(run, IndexedRunDocument):  # the run's index, as validation kept it; else its file
            indexed = run.read(gold_forms) if text is None else None
            run = run.path
        if isinstance(run, Document):
            file, info = run.name, None
            sentences = self._read_document(run, expected, text, gold_sents, file, ids)
        elif indexed is not None:
            file = source_name(run)
            if document_key(file) != key:
                file = f"{key}.xml"
            kept, info = indexed
            wanted = (lambda sid, _g=gold_sents: sid in _g) if gold_sents is not None else (lambda sid: False)
            sentences = replay(kept, file, wanted, self.warnings, ids)
        else:
            file = source_name(run)
            if document_key(file) != key:
                file = f"{key}.xml"  # a copy under another name (an unpacked upload): name the document
            info = {}
            wanted = (lambda sid, _g=gold_sents: sid in _g) if gold_sents is not None else (lambda sid: False)
            sentences = iter_sentences(run, schema=self.schema, gold=False, problems=self.sink,
                                       warnings=self.warnings, info=info, name=file, want=wanted,
                                       expected_forms=expected, expected_complete=text is not None, seen=ids,
                                       parts=True)
        for s in sentences:
            row, ref, _ = gold_sents[s.id]
            if len(self.sink):
                continue  # the run is invalid anyway: only keep validating
            block.set(row, count_sentence_compact(ref, HypothesisView(s, ref, self.plan.modes), self.plan))
        self._account(key, file, ids, info, gold_sents)
        if gold_sents is not None:
            self._count_missing(key)
            self.gold.release(key)

    def _read_document(self, run: Document, expected, text, gold_sents, file: str, ids: list) -> list:
        """An in-memory run document: its sentences that have gold, every one checked against ``expected``."""
        for p in run.problems:
            self.sink.add(p)
        self.warnings.extend(run.warnings)
        self.submitted["constituents"] |= run.has_constituents
        self.submitted["relations"] |= run.has_relations
        sentences = []
        for s in run.sentences:
            ids.append(s.id)
            exp = expected.get(s.id) if expected is not None else None
            if exp is None:
                if text is not None:
                    self.sink.add(Problem(f"unknown sentence id {s.id}: not in the corpus", file=file,
                                          line=s.line, sentence=s.id, element="E"))
            else:
                for p in compare_forms(s, exp, file):
                    self.sink.add(p)
            if gold_sents is not None and s.id in gold_sents:
                sentences.append(s)
        return sentences

    def _account(self, key: str, file: str, ids: list, info: dict | None, gold_sents) -> None:
        seen = set(ids)
        self.stats["run_sentences_without_gold"] += sum(1 for sid in ids if gold_sents is None or sid not in gold_sents)
        self.stats["run_sentences"] += len(ids)
        if info is not None:
            self.submitted["constituents"] |= bool(info.get("has_constituents"))
            self.submitted["relations"] |= bool(info.get("has_relations"))
        if gold_sents is not None:
            self.gold.by_name[key]["run"] = True
            self.gold.by_name[key]["run_sentences"] = len(ids)
            missing = [sid for sid in gold_sents if sid not in seen]
            if missing:
                self.stats["gold_sentences_missing_from_run"] += len(missing)
                shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
                self.warnings.append(Problem(f"{len(missing)} gold sentence(s) missing from the run (scored as "
                                             f"empty output): {shown}", file=file))

    def _count_missing(self, key: str) -> None:
        """Gold sentences of a document that its run did not give: scored as empty output."""
        block = self.gold.blocks[key]
        if block.done.all():
            return
        for row, ref, _ in self.gold.loaded[key].values():
            if not block.done[row]:
                block.set(row, count_sentence_compact(ref, None, self.plan))

    def finish(self) -> None:
        """Raise the runs' problems, if any; otherwise count what the runs never gave as empty output."""
        if len(self.sink):
            raise InputError(self.sink.result())
        for key, d in self.gold.by_name.items():
            if not d["run"]:
                self.late_warnings.append(Problem(f"no run for gold document {key}: its sentences score as "
                                                  f"empty output", file=key))
                self.gold.load(key, self.plan)
                self._count_missing(key)
                self.gold.release(key)
                self.stats["gold_sentences_missing_from_run"] += d["gold_sentences"]
        self.rows = self.gold.assemble(self.plan)
        for layer in LAYERS:
            if not self.submitted[layer]:
                self.layer_warnings.append(Problem(f"the run has no {layer}: layer reported as not submitted"))


def aggregate(rows: CountRows, plan: Plan, submitted: Mapping[str, bool], *,
              bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED) -> dict:
    """Cells and macro rows from per-sentence count rows (rows = gold sentences, read a block at a time);
    ``fp`` and ``cr`` have the compact columns of ``Plan.expand``, expanded on the sums (the same integers)."""
    def widened(x: np.ndarray) -> tuple[np.ndarray, ...]:
        fc, fp, cr = rows.split(x)
        return extend_all(fc, plan), extend_all(fp[..., plan.expand], plan), extend_all(cr[..., plan.expand], plan)

    genres = rows.genres
    # point estimates per genre and ALL (exact integer sums); the ALL-types columns are added to the sums,
    # not to the rows (the same integers, without a second copy of every row)
    sums = {g: rows.column_sums(g) for g in genres}
    total = sum(sums.values(), np.zeros(rows.spill.width, dtype=np.int64))
    sums = {g: widened(x) for g, x in sums.items()}
    sums[ALL] = widened(total)
    # bootstrap: resample sentences with replacement within each genre, the rows streamed from the spill
    boot_f = {}
    if bootstrap > 0 and genres:
        acc = None
        sizes = {g: rows.size(g) for g in genres}
        for g, part in streamed_resampled_sums(sizes, rows.blocks, bootstrap, seed):
            part = widened(part)  # exact integers
            boot_f[g] = f_from_counts(*part)
            acc = part if acc is None else tuple(a + b for a, b in zip(acc, part))
        boot_f[ALL] = f_from_counts(*acc)
    # assemble
    cells, macro = [], []
    col = 0
    layout = []
    for layer, mode, match, _, types in plan.ways:
        layout.append((layer, mode, match, types, col))
        col += len(types) + 1
    genre_order = [ALL] + genres
    sig_cache = {}
    boot_ci: dict = {}
    for layer, mode, match, types, base in layout:
        if not submitted.get(layer, True):
            continue
        for g in genre_order:
            sfc, sfp, scr = sums[g]
            bf = boot_f.get(g)
            cis = boot_ci.get(g)
            if bf is not None and cis is None:
                cis = boot_ci[g] = column_intervals(bf)
            sig = sig_cache.setdefault((layer, mode, match, "micro"),
                                       cell_signature(layer, mode, match, "micro", bootstrap, seed))
            ps, rs, fs = [], [], []
            for k, t in enumerate(list(types) + [ALL]):
                c = base + k
                a, b, d = int(sfc[c]), int(sfp[c]), int(scr[c])
                p, r, f = prf(a, b, d)
                ci = None
                if bf is not None and f is not None:
                    ci = cis.get(c) or interval(bf[:, c])
                cells.append({"layer": layer, "mode": mode, "match": match, "genre": g, "type": t,
                              "fc": a, "fp": b, "cr": d, "p": p, "r": r, "f": f, "ci": ci, "signature": sig})
                if t != ALL and f is not None:
                    fs.append(f)
                    if p is not None:
                        ps.append(p)
                    if r is not None:
                        rs.append(r)
            c_all = base + len(types)
            mci = None
            if bf is not None and fs:
                with _warnings.catch_warnings():
                    _warnings.simplefilter("ignore", RuntimeWarning)
                    per_resample = np.nanmean(bf[:, base:base + len(types)], axis=1)
                mci = interval(per_resample)
            macro.append({
                "layer": layer, "mode": mode, "match": match, "genre": g, "type": ALL,
                "fc": int(sfc[c_all]), "fp": int(sfp[c_all]), "cr": int(scr[c_all]),
                "p": sum(ps) / len(ps) if ps else None,
                "r": sum(rs) / len(rs) if rs else None,
                "f": sum(fs) / len(fs) if fs else None,
                "ci": mci,
                "types_averaged": len(fs),
                "signature": sig_cache.setdefault((layer, mode, match, "macro"),
                                                  cell_signature(layer, mode, match, "macro", bootstrap, seed)),
            })
    return {"cells": cells, "macro": macro, "genres": genres}
