"""Bucket analysis of a constituency run: evalb's labelled bracket F by attributes of the brackets.

An *item* is one bracket evalb scores, on one side: a bracket of the sentence as evalb reads it with the
run's parameters (the preset's ``DELETE_LABEL``, ``DELETE_LABEL_FOR_LENGTH``, ``EQ_LABEL``; COLLINS.prm's by
default), not empty once the deleted words are gone, its label compared as evalb compares it (function tags
cut, equivalent labels one). The judgement is evalb's (:class:`~parseval.evaluation.trees.evalb.EvalbScorer`):
a sentence evalb leaves out of its totals (an error: words that differ, a malformed line; a skip: an empty
test line) has no item, and after ``MAX_ERROR`` + 1 errors no later sentence counts, as in evalb's summary;
brackets are matched one to one with evalb's own order (with disjoint ``EQ_LABEL`` classes, the multiset
intersection; otherwise each gold bracket takes the first free test bracket of its span and an equivalent
label). Each side's brackets are bucketed by that side's own tree, so per bucket, per sentence: ``gold``,
``test``, ``correct`` (gold brackets matched), ``correct_test`` (test brackets matched); summed over the
buckets of any attribute, evalb's ``gold_brackets``, ``test_brackets`` and ``matched`` (twice). F on the
whole set is evalb's (the harmonic mean of its precision and recall).
"""
from __future__ import annotations

import os
from typing import Mapping, Sequence

import numpy as np

from parseval.annotations.errors import InputError
from parseval.evaluation import buckets, stats
from parseval.evaluation.buckets import Attribute, Counter, Counts
from parseval.evaluation.trees.evalb import STATUS_OK, EvalbParams, EvalbRun

KIND = "trees"
SCHEMA = "parseval-analysis/1"
HEADLINE_COLUMNS = ("matched", "test_brackets", "gold_brackets")

SENTENCE_EDGES = (1, 11, 21, 31, 41)
SPAN_EDGES = (1, 2, 3, 5, 10, 20)
DEPTH_EDGES = (1, 2, 3, 4, 5, 7, 10)
UNLABELLED = "(unlabelled)"
MISSING, EXTRA = "missing", "extra"


class Item:
    """One kept bracket of one side: compared label, span (kept words, half-open), depth (1 for a bracket
    no other kept bracket of its side encloses), the sentence's evalb length and genre."""

    __slots__ = ("label", "start", "end", "depth", "length", "genre")

    def __init__(self, label, start, end, depth, length, genre):
        self.label, self.start, self.end, self.depth, self.length, self.genre = label, start, end, depth, length, genre


ATTRIBUTES = [buckets.register(a) for a in (
    Attribute("sentence_length", (KIND,), "the sentence's length as evalb counts it (DELETE_LABEL_FOR_LENGTH "
              "tags left out)", lambda item: buckets.range_label(max(item.length, 1), SENTENCE_EDGES),
              buckets.range_labels(SENTENCE_EDGES)),
)] + [buckets.genre_attribute(KIND)] + [buckets.register(a) for a in (
    Attribute("span_length", (KIND,), "words the bracket covers (deleted words left out)",
              lambda item: buckets.range_label(item.end - item.start, SPAN_EDGES), buckets.range_labels(SPAN_EDGES)),
    Attribute("label", (KIND,), "the bracket's label as evalb compares it (function tags cut)",
              lambda item: item.label or UNLABELLED),
    Attribute("depth", (KIND,), "brackets of its own tree enclosing it, plus one (1: the top bracket)",
              lambda item: buckets.range_label(item.depth, DEPTH_EDGES), buckets.range_labels(DEPTH_EDGES)),
)]


def kept_brackets(scorer, side) -> list[tuple[str, int, int, int]]:
    """``(label, start, end, depth)`` of a side's kept brackets (evalb's ``_kept``), in opening order."""
    table = scorer._kept_cache
    kept = [(cut, s, e) for label, s, e in side.brackets if s != e and (cut := table[label]) is not None]
    out = []
    for i, (label, s, e) in enumerate(kept):
        out.append((label, s, e, 1 + sum(1 for _, s2, e2 in kept[:i] if s2 <= s and e <= e2)))
    return out


def matched_flags(scorer, gold: list, test: list) -> tuple[list[bool], list[bool]]:
    """Which gold and which test brackets evalb matches (``EvalbScorer._score``'s matching, bracket by
    bracket): the flags of each side sum to evalb's ``matched``."""
    g_keys = [b[:3] for b in gold]
    t_keys = [b[:3] for b in test]
    gf, tf = [False] * len(gold), [False] * len(test)
    if scorer._canon is not None:  # labels compared by equality: copies matched in order
        pool: dict = {}
        for j, b in enumerate(t_keys):
            pool.setdefault(b, []).append(j)
        for i, b in enumerate(g_keys):
            js = pool.get(b)
            if js:
                gf[i] = tf[js.pop(0)] = True
        return gf, tf
    eq = scorer.eq_labels
    by_span: dict = {}
    for j, (label, s, e) in enumerate(t_keys):
        by_span.setdefault((s, e), []).append((label, j))
    for i, (label, s, e) in enumerate(g_keys):
        cands = by_span.get((s, e))
        if cands:
            for k, (other, j) in enumerate(cands):
                if other == label or (other, label) in eq:
                    del cands[k]
                    gf[i] = tf[j] = True
                    break
    return gf, tf


def _params(params) -> EvalbParams:
    from parseval.evaluation import metrics as registry
    return registry.get("evalb").params(params)


def count(gold_trees: Sequence, test_trees: Sequence, *, params=None, by: list[str] | None = None,
          strata: Sequence[str] | None = None, keys: Sequence[str] | None = None, errors: bool = False) -> Counts:
    """Per-sentence bucket counts of ``test_trees`` against ``gold_trees`` (trees or ``BadSentence``, paired by
    order, as ``read_pair`` reads them for evalb): every attribute of ``by`` (default all), evalb's headline
    rows ``matched, test_brackets, gold_brackets``, the label confusion table and, with ``errors``, every
    error. ``params``: an :class:`EvalbParams` or a ``.prm`` path (default COLLINS.prm's values);
    ``strata``: one genre per sentence; ``keys``: one name per sentence (default its 1-based number)."""
    from parseval.evaluation.confusions import Confusion
    params = _params(params)
    attributes = [buckets.get(KIND, name) for name in by] if by else buckets.attributes_for(KIND)
    n = len(gold_trees)
    if strata is not None and len(strata) != n:
        raise InputError(f"{len(strata)} genres for {n} sentences")
    strata = list(strata) if strata is not None else [buckets.ALL_GENRES] * n
    keys = list(keys) if keys is not None else [str(i + 1) for i in range(n)]
    run = EvalbRun(params, on_error="skip")
    scorer = run.scorer
    counters = [Counter(a, 4) for a in attributes]
    fns = [a.bucket for a in attributes]
    headline = np.zeros((n, 3), dtype=np.int32)
    confusion = Confusion()
    error_list: list | None = [] if errors else None
    for i in range(min(n, len(test_trees))):
        if run.stopped:
            break
        g, t = scorer.side(gold_trees[i]), scorer.side(test_trees[i])
        row = run.add(g if g is not None else gold_trees[i], t if t is not None else test_trees[i])
        if row[0] != STATUS_OK:
            continue
        gold, test = kept_brackets(scorer, g), kept_brackets(scorer, t)
        gf, tf = matched_flags(scorer, gold, test)
        headline[i] = (sum(gf), len(test), len(gold))
        local = [{} for _ in attributes]
        for side, brackets, flags in ((0, gold, gf), (1, test, tf)):
            for (label, s, e, depth), ok in zip(brackets, flags):
                item = Item(label, s, e, depth, g.length, strata[i])
                for fn, acc in zip(fns, local):
                    c = acc.setdefault(fn(item), [0, 0, 0, 0])
                    c[side] += 1
                    c[side + 2] += ok
                if not ok and error_list is not None:
                    error_list.append((i, "missed" if side == 0 else "spurious", label or UNLABELLED,
                                       f"{label or UNLABELLED} {s + 1}-{e}"))
        _confuse(confusion, i, gold, test, gf, tf)
        for counter, acc in zip(counters, local):
            counter.add_counts(i, acc)
    tables = buckets.tables_of(counters, n)
    return Counts(KIND, buckets.SPAN_COLUMNS, keys, strata, HEADLINE_COLUMNS, headline, tables,
                  {"labels": confusion}, error_list, run.head()["signature"], run.finish())


def _confuse(confusion, i: int, gold: list, test: list, gf: list, tf: list) -> None:
    """Each gold bracket: its own label when matched, else the label of the first unmatched test bracket of
    its span (each taken once), else ``missing``; test brackets left over on spans with no gold bracket: the
    ``extra`` row."""
    free: dict = {}
    for (label, s, e, _), ok in zip(test, tf):
        if not ok:
            free.setdefault((s, e), []).append(label)
    gold_spans = set()
    for (label, s, e, _), ok in zip(gold, gf):
        gold_spans.add((s, e))
        if ok:
            confusion.add(label or UNLABELLED, label or UNLABELLED, i)
            continue
        others = free.get((s, e))
        confusion.add(label or UNLABELLED, (others.pop(0) or UNLABELLED) if others else MISSING, i)
    for (s, e), labels in free.items():
        if (s, e) not in gold_spans:
            for label in labels:
                confusion.add(EXTRA, label or UNLABELLED, i)


def f_exact(correct, test, gold):
    """evalb's F of summed counts: the harmonic mean of precision and recall (``metrics.evalb``'s arithmetic)."""
    return stats.f_measure(stats.ratio(correct, test), stats.ratio(correct, gold))


FIGURES = buckets.span_figures(f_exact)


def document(counts: Counts, *, bootstrap: int = 1000, seed: int = stats.DEFAULT_SEED,
             confusions: bool = False) -> dict:
    """The analysis document of :func:`count`'s counts."""
    matched, tb, gb = (int(v) for v in counts.headline.sum(axis=0, dtype=np.int64))
    figures = FIGURES(gb, tb, matched, matched)
    headline = {"gold": gb, "test": tb, "correct": matched,
                **{k: stats.defined(v) for k, v in figures.items()}}
    extra = {"confusions": confusion_documents(counts)} if confusions else {}
    return buckets.span_document(counts, FIGURES, headline, bootstrap=bootstrap, seed=seed, schema=SCHEMA,
                                 extra=extra)


def confusion_documents(counts: Counts) -> list[dict]:
    ids = list(range(len(counts.keys)))
    return [counts.confusions["labels"].document(
        "labels", "per gold bracket label: the run's label on the same span; missing: no run bracket there; "
        "extra: run brackets on spans with no gold bracket", ids=ids)]


def read(gold_path, test_path, *, params=None, fmt: str | None = None, layout: str | None = None) -> dict:
    """Both files read as evalb reads them for scoring (``trees.read_pair``, malformed lines kept as error
    sentences): ``{"gold_trees", "test_trees", ...}``."""
    from parseval.evaluation.trees import read_pair
    return read_pair(gold_path, test_path, "evalb", fmt=fmt, layout=layout, on_error="skip")


def analyse(gold_trees: Sequence, test_trees: Sequence, *, params=None, by: list[str] | None = None,
            bootstrap: int = 1000, seed: int = stats.DEFAULT_SEED, strata: Sequence[str] | None = None,
            keys: Sequence[str] | None = None, confusions: bool = False) -> dict:
    """The analysis document (``docs/metrics/analysis.md``) of a constituency run against gold, paired by
    order (see :func:`count`)."""
    if bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    counts = count(gold_trees, test_trees, params=params, by=by, strata=strata, keys=keys)
    return document(counts, bootstrap=bootstrap, seed=seed, confusions=confusions)


def analyse_files(gold_path, test_path, *, genres: Mapping[str, str] | Sequence[str] | None = None,
                  **options) -> dict:
    """:func:`analyse` of two tree files; ``genres``: one per sentence, or ``{1-based number: genre}``."""
    pair = read(gold_path, test_path, params=options.get("params"))
    gold, test = pair["gold_trees"], pair["test_trees"]
    strata = _strata(genres, len(gold))
    doc = analyse(gold, test, strata=strata, **options)
    doc["files"] = {"gold": os.fspath(gold_path), "run": os.fspath(test_path)}
    return doc


def _strata(genres, n: int) -> list[str] | None:
    if genres is None:
        return None
    if isinstance(genres, Mapping):
        missing = [str(k) for k in range(1, n + 1) if str(k) not in genres]
        if missing:
            raise InputError(f"no genre for sentence(s) {', '.join(missing[:10])}")
        return [genres[str(k)] for k in range(1, n + 1)]
    return list(genres)
