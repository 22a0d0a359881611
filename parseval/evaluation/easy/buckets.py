"""Bucket analysis of an EASY run: its relation F (mode HYP, range function EQUAL) by attributes of the relations.

An *item* is one relation of one side, in range space exactly as the scorer reads it
(:class:`~parseval.evaluation.easy.ranges.ReferenceView` for the gold, :class:`HypothesisView` in mode HYP
for the run: an argument that is a form in a group of that side becomes the group, a dangling gold pointer
the null argument, exact repeats counted once). A run item is correct when the gold has the same item
(type and argument ranges): under EQUAL the one-to-one maximum matching is exactly the intersection of the
two sets (``matching.match_counts``). Each side's items are bucketed by that side's own annotation (a gold
relation by the gold groups, a run relation by the run's groups), so per bucket, per sentence:

* ``gold`` gold relations in the bucket, ``correct`` of those found by the run;
* ``test`` run relations in the bucket, ``correct_test`` of those in the gold;

summed over the buckets of any attribute: the headline cell's ``cr``, ``fp``, ``fc`` and ``fc``. Figures:
recall, precision, F (:func:`parseval.evaluation.buckets.span_figures`: on the whole set 2·fc / (fp + cr),
the scorer's). Intervals: the sentences resampled within each genre with the seed of the headline
(:func:`parseval.evaluation.stats.resampled_sums`): the headline's interval is the ``easy`` command's.

The confusion tables (``relations``, ``groups``) and the errors for the common errors are read in the same
pass. The document's schema: ``docs/metrics/analysis.md``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from parseval.annotations.easy.model import Document, SentenceParts
from parseval.annotations.easy.reader import (DEFAULT_MAX_PROBLEMS, ProblemSink, compare_forms, document_key,
                                             iter_sentences)
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.errors import InputError
from parseval.evaluation import buckets, stats
from parseval.evaluation.buckets import Attribute, Counter, Counts
from parseval.evaluation.signature import make_signature

from .ranges import HypothesisView, ReferenceView
from .warning_log import WarningLog

KIND = "easy"
SCHEMA = "parseval-analysis/1"
MODE, MATCH = "HYP", "EQUAL"
HEADLINE_COLUMNS = ("fc", "fp", "cr")

SENTENCE_EDGES = (1, 11, 21, 31, 41, 61)
DISTANCE_EDGES = (0, 1, 2, 3, 5, 10)
FORM, NULL = "form", "null"     # an argument that is a bare form of its side, the null argument
SAME, OVERLAP = "same", "overlap"  # the two arguments are one range, or share forms
NONE = "none"                   # an argument the relation type does not have
MISSING = "missing"             # confusions: the run has nothing at the gold item's place
EXTRA = "extra"                 # confusions: a run item where the gold has nothing


class Item:
    """One relation of one side: its type, its argument ranges (schema order), its sentence's forms and
    genre, and the side's group type of each range (``groups``: ``{(start, end): type}``)."""

    __slots__ = ("type", "args", "forms", "genre", "groups")

    def __init__(self, rtype: str, args: tuple, forms: int, genre: str, groups: Mapping):
        self.type, self.args, self.forms, self.genre, self.groups = rtype, args, forms, genre, groups

    def argument(self, k: int) -> str:
        """The group type of argument ``k``, ``form`` for a bare form, ``null``, or ``none`` (no such role)."""
        if k >= len(self.args):
            return NONE
        a = self.args[k]
        if a is None:
            return NULL
        return self.groups.get(a, FORM)


def _argument_kinds(item: Item) -> str:
    def kind(k):
        label = item.argument(k)
        return label if label in (FORM, NULL, NONE) else "group"
    return f"{kind(0)}/{kind(1)}"


def _distance(item: Item) -> str:
    if len(item.args) < 2:
        return NONE
    a, b = item.args[0], item.args[1]
    if a is None or b is None:
        return NULL
    if a == b:
        return SAME
    if a[0] < b[1] and b[0] < a[1]:
        return OVERLAP
    return buckets.range_label(max(b[0] - a[1], a[0] - b[1]), DISTANCE_EDGES)


def _sentence_length(item: Item) -> str:
    return buckets.range_label(max(item.forms, 1), SENTENCE_EDGES)


ATTRIBUTES = [buckets.register(a) for a in (
    Attribute("sentence_length", (KIND,), "forms in the sentence", _sentence_length,
              buckets.range_labels(SENTENCE_EDGES), per_sentence=True),
)] + [buckets.genre_attribute(KIND)] + [buckets.register(a) for a in (
    Attribute("relation", (KIND,), "the relation type", lambda item: item.type),
    Attribute("first_argument", (KIND,), "group type of the first argument (schema order: sujet, auxiliaire, "
              "cod, ..., coordonnant); form: a form in no group of that side; null: the null argument",
              lambda item: item.argument(0)),
    Attribute("second_argument", (KIND,), "group type of the second argument (verbe, nom, ..., coord-g)",
              lambda item: item.argument(1)),
    Attribute("argument_kinds", (KIND,), "whether the first and second arguments are groups or bare forms",
              _argument_kinds, ("group/group", "group/form", "form/group", "form/form")),
    Attribute("distance", (KIND,), "forms strictly between the first two arguments (same: one range; overlap: "
              "they share forms)", _distance, (SAME, OVERLAP) + buckets.range_labels(DISTANCE_EDGES) + (NULL, NONE)),
)]


# -- reading gold and run as the scorer does ---------------------------------------------------------------

def _documents(source) -> list[tuple[str, object]]:
    """``[(key, document or path)]``: a file or folder path, a list of paths or Documents, or a mapping."""
    from .files import list_xml
    if isinstance(source, Mapping):
        return [(document_key(k), v) for k, v in source.items()]
    if isinstance(source, (str, Path)):
        source = list_xml(source)
    out = []
    for d in source:
        out.append((document_key(d.name) if isinstance(d, Document) else document_key(Path(d).name), d))
    return out


def _views(source, key: str, schema: EasySchema, *, gold: bool, want=None, expected=None):
    """``[(sentence id, sentence or parts)]`` of one document, read as the scorer reads it (its problems
    raised as :class:`InputError`)."""
    if isinstance(source, Document):
        problems = list(source.problems)
        for s in source.sentences if expected is not None else ():
            if s.id in expected:  # a run read in memory: its forms checked against the gold's, as the scorer does
                problems.extend(compare_forms(s, expected[s.id], source.name))
        if problems:
            raise InputError(problems)
        return [(s.id, s) for s in source.sentences if want is None or want(s.id)]
    sink = ProblemSink(DEFAULT_MAX_PROBLEMS)
    name = None if gold else (Path(source).name if document_key(Path(source).name) == key else f"{key}.xml")
    items = [(s.id, s) for s in iter_sentences(source, schema=schema, gold=gold, problems=sink,
                                               warnings=WarningLog(), name=name, want=want,
                                               expected_forms=expected, parts=True)]
    if len(sink):
        raise InputError(sink.result())
    return items


def sentence_pairs(gold, run, *, schema: EasySchema = DEFAULT_SCHEMA,
                   genres: Mapping[str, str] | Callable[[str], str] | None = None,
                   sentence_genres: Mapping[str, str] | None = None):
    """``(key, genre, reference view, hypothesis view or None)`` of every gold sentence, in the scorer's row
    order (gold documents as given, a folder's by name; sentences in file order). ``key`` is
    ``document/sentence id``. The run's documents are paired with the gold's by base name (one file each:
    as given); a gold sentence the run lacks has no hypothesis (empty output, as scored).

    ``genres`` maps a document to its genre as the ``easy`` command's ``--genres`` (default: the name up to
    the first ``_``); ``sentence_genres`` (``{document/sentence id: genre}``) overrides it per sentence.
    """
    from .scoring import _genre_function
    genre_of = _genre_function(genres)
    gold_docs, run_docs = _documents(gold), _documents(run)
    if not gold_docs:
        raise InputError("no gold document")
    if len(gold_docs) == 1 and len(run_docs) == 1:
        run_docs = [(gold_docs[0][0], run_docs[0][1])]  # one file each: paired whatever their names
    runs = dict(run_docs)
    relation_roles = schema.relation_roles
    for key, source in gold_docs:
        genre = genre_of(key)
        refs = {}
        for sid, s in _views(source, key, schema, gold=True):
            ref = (ReferenceView.from_sentence_parts(s) if isinstance(s, SentenceParts)
                   else ReferenceView(s, relation_roles))
            forms = s.forms if isinstance(s, SentenceParts) else tuple((f.id, f.text) for f in s.forms)
            refs[sid] = (ref, forms)
        hyps = {}
        if key in runs:
            expected = {sid: forms for sid, (_, forms) in refs.items()}
            for sid, s in _views(runs[key], key, schema, gold=False, want=refs.__contains__, expected=expected):
                hyps[sid] = HypothesisView(s, refs[sid][0], (MODE,))
        for sid, (ref, _) in refs.items():
            k = f"{key}/{sid}"
            yield k, (sentence_genres or {}).get(k, genre), ref, hyps.get(sid)


# -- counting ----------------------------------------------------------------------------------------------

def _range_text(r) -> str:
    if r is None:
        return "∅"
    return str(r[0] + 1) if r[1] == r[0] + 1 else f"{r[0] + 1}-{r[1]}"


def _argument_order(args: tuple) -> tuple:
    """A total order of argument tuples: a null argument before any range (ranges start at 0)."""
    return tuple((-1, -1) if a is None else a for a in args)


def item_text(rtype: str, args: tuple) -> str:
    """A relation as text: ``SUJ-V(1-2, 3)``, form positions 1-based, ``∅`` the null argument."""
    return f"{rtype}({', '.join(_range_text(a) for a in args)})"


def count(gold, run, *, by: list[str] | None = None, schema: EasySchema = DEFAULT_SCHEMA, genres=None,
          sentence_genres: Mapping[str, str] | None = None, errors: bool = False,
          bootstrap: int = 0, seed: int = stats.DEFAULT_SEED) -> Counts:
    """The per-sentence bucket counts of ``run`` against ``gold`` (see :class:`parseval.evaluation.buckets.Counts`),
    read in one pass: every attribute of ``by`` (default: all of EASY's), the headline rows ``fc, fp, cr``
    (relations, HYP, EQUAL, all types), the confusion tables and, with ``errors``, every error.
    ``bootstrap`` and ``seed`` only name the headline cell's signature."""
    from parseval.evaluation.confusions import Confusion
    from .scoring import cell_signature
    attributes = [buckets.get(KIND, name) for name in by] if by else buckets.attributes_for(KIND)
    counters = [Counter(a, 4) for a in attributes]
    # an item's attributes are computed per item; its sentence's (length, genre) once per sentence
    per_item = [k for k, a in enumerate(attributes) if not a.per_sentence]
    per_sentence = [k for k, a in enumerate(attributes) if a.per_sentence]
    type_order = _type_order(schema)
    keys, strata, headline = [], [], []
    rel_confusion, group_confusion = Confusion(), Confusion()
    error_list = buckets.ErrorList() if errors else None
    empty: frozenset = frozenset()
    for i, (key, genre, ref, hyp) in enumerate(sentence_pairs(gold, run, schema=schema, genres=genres,
                                                               sentence_genres=sentence_genres)):
        keys.append(key)
        strata.append(genre)
        gold_groups = {rng: t for t, ranges in ref.cons.items() for rng in ranges}
        run_groups = {rng: t for t, ranges in hyp.cons.items() for rng in ranges} if hyp is not None else {}
        rels = ref.rels
        hrels = hyp.rels[MODE] if hyp is not None else {}
        local = [{} for _ in attributes]
        item_fns = [(attributes[k].bucket, local[k]) for k in per_item]
        fc = fp = cr = 0
        gold_at: dict = {}   # argument ranges -> gold types there
        run_at: dict = {}
        for t, items in rels.items():
            for r in items:
                gold_at.setdefault(r, []).append(t)
        for t, items in hrels.items():
            for h in items:
                run_at.setdefault(h, []).append(t)
        n = ref.n
        for side, own, other, groups, found, total in ((0, rels, hrels, gold_groups, 2, 0),
                                                        (1, hrels, rels, run_groups, 3, 1)):
            for t, items in own.items():
                matched = other.get(t, empty)
                # a set of argument ranges iterates in hash order, and hash(None) (a null argument) differs
                # from one process to the next: the errors and the confusion cells follow an order of their own
                for x in sorted(items, key=_argument_order):
                    ok = x in matched
                    item = Item(t, x, n, genre, groups)
                    for fn, acc in item_fns:
                        label = fn(item)
                        c = acc.get(label)
                        if c is None:
                            c = acc[label] = [0, 0, 0, 0]
                        c[total] += 1
                        if ok:
                            c[found] += 1
                    if side == 0:
                        cr += 1
                        fc += ok
                        rel_confusion.add(t, t if ok else min(run_at.get(x, (MISSING,)), key=type_order), i)
                        if not ok and error_list is not None:
                            error_list.append((i, "missed", t, item_text(t, x)))
                    else:
                        fp += 1
                        if x not in gold_at:
                            rel_confusion.add(EXTRA, t, i)
                        if not ok and error_list is not None:
                            error_list.append((i, "spurious", t, item_text(t, x)))
        for rng, t in gold_groups.items():
            group_confusion.add(t, run_groups.get(rng, MISSING), i)
        for rng, t in run_groups.items():
            if rng not in gold_groups:
                group_confusion.add(EXTRA, t, i)
        if cr or fp:
            probe = Item("", (), n, genre, {})
            for k in per_sentence:
                local[k] = {attributes[k].bucket(probe): [cr, fp, fc, fc]}
        for counter, acc in zip(counters, local):
            counter.add_counts(i, acc)
        headline.append((fc, fp, cr))
    unknown = sorted(set(sentence_genres or ()) - set(keys))
    if unknown:
        raise InputError(f"a genre is given for {len(unknown)} sentence(s) the gold does not have: "
                         + ", ".join(unknown[:10]) + (" ..." if len(unknown) > 10 else ""))
    rows = np.asarray(headline, dtype=np.int32).reshape(len(keys), 3)
    tables = buckets.tables_of(counters, len(keys))
    return Counts(KIND, buckets.SPAN_COLUMNS, keys, strata, HEADLINE_COLUMNS, rows, tables,
                  {"relations": rel_confusion, "groups": group_confusion}, error_list,
                  cell_signature("relations", MODE, MATCH, "micro", bootstrap, seed))


_ORDERS: dict = {}


def _type_order(schema: EasySchema):
    """A sort key putting relation types in schema order (the confusion's pick among several run types)."""
    key = _ORDERS.get(schema.name)
    if key is None:
        order = {t: k for k, t in enumerate(schema.relation_types)}
        key = _ORDERS[schema.name] = lambda t: order.get(t, len(order))
    return key


def f_exact(correct, test, gold):
    """The scorer's F of summed counts, 2·fc / (fp + cr) (:func:`parseval.evaluation.stats.f_from_counts`)."""
    return stats.f_from_counts(correct, test, gold)


FIGURES = buckets.span_figures(f_exact)


def document(counts: Counts, *, bootstrap: int = 1000, seed: int = stats.DEFAULT_SEED, confusions: bool = False,
             schema: EasySchema = DEFAULT_SCHEMA) -> dict:
    """The analysis document of :func:`count`'s counts."""
    fc, fp, cr = (int(v) for v in counts.headline.sum(axis=0, dtype=np.int64))
    p, r, f = stats.prf(fc, fp, cr)
    headline = {"gold": cr, "test": fp, "correct": fc, "recall": r, "precision": p, "f": f,
                "layer": "relations", "mode": MODE, "match": MATCH}
    extra = {}
    if confusions:
        extra["confusions"] = confusion_documents(counts, schema)
    doc = buckets.span_document(counts, FIGURES, headline, bootstrap=bootstrap, seed=seed, schema=SCHEMA,
                                extra=extra)
    doc["signature"] = make_signature("easy-relations", mode=MODE, match=MATCH, agg="micro", bs=bootstrap,
                                      seed=seed)
    return doc


def confusion_documents(counts: Counts, schema: EasySchema = DEFAULT_SCHEMA) -> list[dict]:
    ids = list(range(len(counts.keys)))
    return [
        counts.confusions["relations"].document(
            "relations", "per gold relation type: the run's relation on the same argument ranges (mode HYP); "
            "missing: no run relation on those arguments; extra: run relations on arguments with no gold relation", schema.relation_types, ids),
        counts.confusions["groups"].document(
            "groups", "per gold group type: the run's group on the same forms; missing: no run group there; extra: run groups "
            "where the gold has none", schema.group_types, ids),
    ]


def analyse(gold, run, *, by: list[str] | None = None, bootstrap: int = 1000, seed: int = stats.DEFAULT_SEED,
            genres=None, sentence_genres: Mapping[str, str] | None = None, schema: EasySchema = DEFAULT_SCHEMA,
            confusions: bool = False) -> dict:
    """The analysis document (``docs/metrics/analysis.md``) of an EASY run: ``gold`` and ``run`` are files,
    folders, lists of paths or Documents, or ``{name: document}`` mappings, paired by name as the ``easy``
    command pairs them; ``by``: attribute names (default: every EASY attribute); ``genres``: the ``easy``
    command's genre map (or a function of the document name); ``sentence_genres``: per sentence
    (``document/sentence id``), overriding it. ``confusions``: add the confusion tables."""
    if bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    counts = count(gold, run, by=by, schema=schema, genres=genres, sentence_genres=sentence_genres,
                   bootstrap=bootstrap, seed=seed)
    return document(counts, bootstrap=bootstrap, seed=seed, confusions=confusions, schema=schema)
