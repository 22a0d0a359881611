"""Bucket analysis of a dependency run: its attachment scores broken down by attributes of the arcs.

An *item* is one scored word and its arc to its head (punctuation left out by the same :class:`PunctRule`
as the ``deps`` command). Each side's items are bucketed by that side's own tree: a gold word by the gold
arc, a test word by the test arc (MaltEval's and ExplainaBoard's reading: recall counts what the gold has
in the bucket, precision what the run put there). The judgement is the ``deps`` command's own
(:func:`~parseval.evaluation.deps.metrics.attachment`: the test word at the same position has the gold
head, and the relation). Per bucket, per sentence, five counts:

* ``gold``: scored gold words in the bucket (by the gold arc); their sum over the buckets is the
  headline's ``words``;
* ``head``: of those, head right (the UAS numerator); ``correct``: head and relation right (LAS);
* ``test``: scored, attached test words in the bucket (by the test arc); the sum is the headline's
  Lin ``test`` count;
* ``correct_test``: of those, head and relation right.

Figures: ``uas = head / gold``, ``las = correct / gold`` (the recall), ``precision = correct_test / test``
and ``f`` their harmonic mean; None where undefined. On a bucket of every word, ``uas`` and ``las`` are
the ``deps`` command's. Intervals: the per-sentence counts resampled with
:func:`parseval.evaluation.stats.resampled_sums` (the same seeded draws as the headline intervals of
``deps --bootstrap``, stratified by genre when strata are given). The schema is ``docs/metrics/analysis.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable
from functools import cached_property

import numpy as np

from parseval.annotations.conllu import DepSentence, Word
from parseval.annotations.errors import InputError
from parseval.evaluation import buckets, stats
from parseval.evaluation.deps.metrics import PunctRule, ROW_COLUMNS, attachment, punct_skips, score_dependencies

KIND = "deps"
SCHEMA = "parseval-analysis/1"
COUNT_COLUMNS = ("gold", "head", "correct", "test", "correct_test")
FIGURES = ("uas", "las", "precision", "f")
NO_HEAD = "unattached"  # the bucket of a word without a head, for the attributes of its arc
IN_CYCLE = "cycle"  # distance to root of a word whose ancestors loop (a test tree read without the check)

SENTENCE_EDGES = (1, 11, 21, 31, 41)
ARC_EDGES = (1, 2, 3, 5, 8, 15)
DEPTH_EDGES = (1, 2, 3, 4, 5, 7)


@dataclass
class Tree:
    """One side's sentence with what several attributes need, computed once."""

    sentence: DepSentence

    @cached_property
    def depth(self) -> list[int | None]:
        """Arcs from each word up to the root (1 for a root word); None when unattached or in a cycle."""
        words = self.sentence.words
        out: list[int | None] = []
        for w in words:
            seen, node, steps = set(), w, 0
            while node is not None and node.head not in (None, 0) and node.id not in seen:
                seen.add(node.id)
                node = words[node.head - 1] if 0 < node.head <= len(words) else None
                steps += 1
            ok = node is not None and node.head == 0 and node.id not in seen
            out.append(steps + 1 if ok else None)
        return out

    def dominates(self, head: int, k: int) -> bool:
        """Whether word ``head`` is an ancestor of word ``k`` (positions, 1-based)."""
        words, seen = self.sentence.words, set()
        while k not in seen and 0 < k <= len(words):
            seen.add(k)
            k = words[k - 1].head or 0
            if k == head:
                return True
        return False

    @cached_property
    def non_projective(self) -> list[bool]:
        """Per word: its arc is crossed, i.e. some word between it and its head is not below the head."""
        out = []
        for w in self.sentence.words:
            h = w.head
            out.append(bool(h) and any(not self.dominates(h, k) for k in range(min(h, w.id) + 1, max(h, w.id))))
        return out


@dataclass
class Item:
    """One scored word of one side, with its tree; ``rel`` reads a relation as the scoring compares it."""

    tree: Tree
    index: int  # 0-based position
    rel: Callable[[Word], str] = field(default=lambda word: word.deprel)
    genre: str = buckets.ALL_GENRES

    @property
    def word(self) -> Word:
        return self.tree.sentence.words[self.index]


def _sentence_length(item: Item) -> str:
    return buckets.range_label(len(item.tree.sentence.words), SENTENCE_EDGES)


def _arc_length(item: Item) -> str:
    w = item.word
    if w.head is None:
        return NO_HEAD
    return "root" if w.head == 0 else buckets.range_label(abs(w.head - w.id), ARC_EDGES)


def _root_distance(item: Item) -> str:
    if item.word.head is None:
        return NO_HEAD
    d = item.tree.depth[item.index]
    return IN_CYCLE if d is None else buckets.range_label(d, DEPTH_EDGES)


def _head_upos(item: Item) -> str:
    w, words = item.word, item.tree.sentence.words
    if w.head is None:
        return NO_HEAD
    return "ROOT" if w.head == 0 else words[w.head - 1].upos


def _projectivity(item: Item) -> str:
    if item.word.head is None:
        return NO_HEAD
    return "non-projective" if item.tree.non_projective[item.index] else "projective"


ATTRIBUTES = [buckets.register(a) for a in (
    buckets.Attribute("sentence_length", (KIND,), "words in the sentence (punctuation included)",
                      _sentence_length, buckets.range_labels(SENTENCE_EDGES)),
)] + [buckets.genre_attribute(KIND)] + [buckets.register(a) for a in (
    buckets.Attribute("arc_length", (KIND,), "|head - dependent| in words; root for the root's arc",
                      _arc_length, ("root",) + buckets.range_labels(ARC_EDGES) + (NO_HEAD,)),
    buckets.Attribute("root_distance", (KIND,), "arcs from the word up to the root (1 for the root word)",
                      _root_distance, buckets.range_labels(DEPTH_EDGES) + (IN_CYCLE, NO_HEAD)),
    buckets.Attribute("head_upos", (KIND,), "UPOS of the head (ROOT for the root's arc)", _head_upos),
    buckets.Attribute("dependent_upos", (KIND,), "UPOS of the dependent", lambda item: item.word.upos),
    buckets.Attribute("relation", (KIND,), "the dependency relation (without subtype with --labels universal)",
                      lambda item: item.rel(item.word)),
    buckets.Attribute("projectivity", (KIND,), "whether the arc is crossed by another (non-projective)",
                      _projectivity, ("projective", "non-projective", NO_HEAD)),
)]


def _bucket_counts(attribute, gold: list[DepSentence], test: list[DepSentence], punct: PunctRule, rel,
                   strata: list[str] | None = None):
    """``(labels, rows)``: the sorted bucket labels and a (sentences x buckets*5) integer matrix of counts."""
    per_sentence: list[dict[str, list[int]]] = []
    strata = strata if strata is not None else [buckets.ALL_GENRES] * len(gold)
    for gs, ts, genre in zip(gold, test, strata):
        gskip, tskip = punct_skips(punct, gs, ts)
        gtree, ttree = Tree(gs), Tree(ts)
        counts: dict[str, list[int]] = {}
        for i, g in enumerate(gs.words):
            if gskip[i]:
                continue
            c = counts.setdefault(attribute.bucket(Item(gtree, i, rel, genre)), [0] * 5)
            c[0] += 1
            if i < len(ts.words):
                head_ok, label_ok = attachment(g, ts.words[i], rel)
                c[1] += head_ok
                c[2] += head_ok and label_ok
        for j, t in enumerate(ts.words):
            if tskip[j] or t.head is None:
                continue
            c = counts.setdefault(attribute.bucket(Item(ttree, j, rel, genre)), [0] * 5)
            c[3] += 1
            if j < len(gs.words) and not gskip[j]:
                head_ok, label_ok = attachment(gs.words[j], t, rel)
                c[4] += head_ok and label_ok
        per_sentence.append(counts)
    labels = sorted({b for counts in per_sentence for b in counts}, key=attribute.sort_key)
    rows = np.zeros((len(per_sentence), 5 * len(labels)), dtype=np.int64)
    for s, counts in enumerate(per_sentence):
        for k, label in enumerate(labels):
            if label in counts:
                rows[s, 5 * k:5 * k + 5] = counts[label]
    return labels, rows


def figures(gold, head, correct, test, correct_test) -> dict:
    """The bucket's figures from its (summed or resampled) counts: scalars or arrays alike."""
    las, precision = stats.ratio(correct, gold), stats.ratio(correct_test, test)
    return {"uas": stats.ratio(head, gold), "las": las, "precision": precision,
            "f": stats.f_measure(precision, las)}


def count(gold: list[DepSentence], test: list[DepSentence], *, by: list[str] | None = None,
          punct: PunctRule | str = "upos", labels: bool | str = True, strata: list[str] | None = None,
          keys: list[str] | None = None, errors: bool = False) -> buckets.Counts:
    """Per-sentence bucket counts (:class:`parseval.evaluation.buckets.Counts`, columns :data:`COUNT_COLUMNS`)
    of ``test`` against ``gold``, paired by order: every attribute of ``by`` (default all), the ``deps``
    command's rows (:data:`ROW_COLUMNS`), the relation confusion table and, with ``errors``, every error.
    ``strata``: a genre per sentence; ``keys``: a name per sentence (default its ``sent_id``, else its
    1-based number)."""
    if isinstance(punct, str):
        punct = PunctRule.parse(punct)
    if labels not in (True, "full", "universal"):
        raise InputError(f"labels must be full or universal, not {labels!r}")
    universal = labels == "universal"
    attributes = [buckets.get(KIND, name) for name in by] if by else buckets.attributes_for(KIND)
    headline_rows: list = []
    headline = score_dependencies(gold, test, punct=punct, labels="universal" if universal else True,
                                  rows=headline_rows)  # pairs by order, refuses differing sentence counts

    def rel(word) -> str:
        return word.deprel.split(":", 1)[0] if universal else word.deprel

    if strata is not None and len(strata) != len(gold):
        raise InputError(f"{len(strata)} genres for {len(gold)} sentences")
    strata = list(strata) if strata is not None else [buckets.ALL_GENRES] * len(gold)
    keys = list(keys) if keys is not None else [s.sent_id or str(k + 1) for k, s in enumerate(gold)]
    tables = [(a, *_bucket_counts(a, gold, test, punct, rel, strata)) for a in attributes]
    confusion, error_list = _confusions(gold, test, punct, rel, errors)
    counts = buckets.Counts(KIND, COUNT_COLUMNS, keys, strata, ROW_COLUMNS,
                            np.asarray(headline_rows, dtype=np.int64).reshape(len(gold), len(ROW_COLUMNS)),
                            tables, {"relations": confusion}, error_list, headline["signature"], headline)
    return counts


WRONG_HEAD = "wrong head"


def _confusions(gold, test, punct: PunctRule, rel, errors: bool):
    """The relation confusion table (each scored gold word: the run's relation when its head is right,
    ``wrong head`` when it is not, ``missing`` when the run has no attached word there) and the errors."""
    from parseval.evaluation.confusions import MISSING, Confusion
    confusion = Confusion()
    error_list: list | None = [] if errors else None
    for s, (gs, ts) in enumerate(zip(gold, test)):
        gskip, tskip = punct_skips(punct, gs, ts)
        for i, g in enumerate(gs.words):
            if gskip[i]:
                continue
            t = ts.words[i] if i < len(ts.words) else None
            if t is None or t.head is None:
                confusion.add(rel(g), MISSING, s)
                ok = False
            else:
                head_ok, label_ok = attachment(g, t, rel)
                confusion.add(rel(g), rel(t) if head_ok else WRONG_HEAD, s)
                ok = head_ok and label_ok
            if not ok and error_list is not None:
                error_list.append((s, "missed", rel(g), f"{g.id} {g.form} <-{g.head} {rel(g)}"))
        if error_list is not None:
            for j, t in enumerate(ts.words):
                if tskip[j] or t.head is None:
                    continue
                g = gs.words[j] if j < len(gs.words) and not gskip[j] else None
                if g is None or not all(attachment(g, t, rel)):
                    error_list.append((s, "spurious", rel(t), f"{t.id} {t.form} <-{t.head} {rel(t)}"))
    return confusion, error_list


def error_rows(block) -> np.ndarray:
    """Per sentence, whether a bucket's five counts hold an error: a gold word not fully right, or a run
    word not right."""
    return (block[:, 0] > block[:, 2]) | (block[:, 3] > block[:, 4])


def analyse(gold: list[DepSentence], test: list[DepSentence], *, by: list[str] | None = None,
            punct: PunctRule | str = "upos", labels: bool | str = True, bootstrap: int = 1000,
            seed: int = stats.DEFAULT_SEED, strata: list[str] | None = None, keys: list[str] | None = None,
            confusions: bool = False) -> dict:
    """The analysis document (``docs/metrics/analysis.md``) of ``test`` against ``gold``, paired by order.

    ``by``: attribute names (default: every dependency attribute); ``labels``: ``True`` (relations whole)
    or ``"universal"`` (without subtype), as in the ``deps`` command; ``strata``: one genre per sentence
    (the intervals resampled within each); ``confusions``: add the relation confusion table.
    """
    if bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    counts = count(gold, test, by=by, punct=punct, labels=labels, strata=strata, keys=keys)
    return document(counts, bootstrap=bootstrap, seed=seed, confusions=confusions)


def document(counts: buckets.Counts, *, bootstrap: int = 1000, seed: int = stats.DEFAULT_SEED,
             confusions: bool = False) -> dict:
    """The analysis document of :func:`count`'s counts."""
    resampled = buckets.resampled_tables(counts, bootstrap, seed)
    strata = counts.strata
    doc = {
        "schema": SCHEMA, "kind": KIND, "signature": counts.signature, "sentences": len(counts.keys),
        "headline": _headline(counts.result, counts.headline.tolist(), resampled[0] if resampled else None),
        "bootstrap": {"resamples": bootstrap, "seed": seed, "ci_level": stats.CI_LEVEL,
                      "strata": "genre" if len(set(strata)) > 1 else "none"},
        "attributes": [],
        "sentence_ids": list(counts.keys),
    }
    ids = list(range(len(counts.keys)))
    for m, (attribute, bucket_labels, rows) in enumerate(counts.tables, start=1):
        sums = rows.sum(axis=0)
        entries = []
        for k, label in enumerate(bucket_labels):
            values = dict(zip(COUNT_COLUMNS, (int(v) for v in sums[5 * k:5 * k + 5])))
            entry = {"bucket": label, **values,
                     **{name: stats.defined(v) for name, v in figures(*values.values()).items()}}
            if resampled is not None:
                boot = figures(*(resampled[m][:, 5 * k + c] for c in range(5)))
                entry.update({f"{name}_ci": stats.interval(boot[name]) for name in FIGURES})
            entry["sentences"], entry["error_sentences"] = buckets.sentence_lists(rows, k, 5, error_rows, ids)
            entries.append(entry)
        doc["attributes"].append({"name": attribute.name, "description": attribute.description,
                                  "buckets": entries})
    if confusions:
        doc["confusions"] = confusion_documents(counts)
    return doc


def confusion_documents(counts: buckets.Counts) -> list[dict]:
    ids = list(range(len(counts.keys)))
    return [counts.confusions["relations"].document(
        "relations", "per gold relation (scored words): the run's relation on the same word when its head is "
        "right; wrong head: the head is wrong; missing: the run's word has no head (or no such word)", ids=ids)]


def _headline(result: dict, rows: list, resampled) -> dict:
    """The whole run's counts and figures in the buckets' terms, so that a bucket table reads against it."""
    sums = dict(zip(ROW_COLUMNS, (sum(col) for col in zip(*rows)))) if rows else dict.fromkeys(ROW_COLUMNS, 0)
    out = {"gold": sums["words"], "head": sums["head"], "correct": sums["head_label"], "test": sums["test"],
           "uas": result["totals"]["uas"], "las": result["totals"]["las"]}
    if resampled is not None:
        cols = {name: resampled[:, k] for k, name in enumerate(ROW_COLUMNS)}
        out["uas_ci"] = stats.interval(stats.ratio(cols["head"], cols["words"]))
        out["las_ci"] = stats.interval(stats.ratio(cols["head_label"], cols["words"]))
    return out


def format_tables(doc: dict) -> str:
    """The bucket tables as text (percentages), one per attribute, after the headline."""
    h = doc["headline"]
    lines = [f"signature: {doc['signature']}",
             f"sentences: {doc['sentences']}   scored gold words: {h['gold']}   attached test words: {h['test']}",
             f"UAS {100 * h['uas']:6.2f}{_ci(h.get('uas_ci'))}   LAS {100 * h['las']:6.2f}{_ci(h.get('las_ci'))}"]
    boot = doc["bootstrap"]
    if boot["resamples"]:
        lines.append(f"intervals: {round(100 * boot['ci_level'])}% bootstrap, {boot['resamples']} resamples of "
                     f"the sentences, seed {boot['seed']}")
    for attribute in doc["attributes"]:
        width = max(12, *(len(b["bucket"]) + 2 for b in attribute["buckets"])) if attribute["buckets"] else 12
        lines += ["", f"by {attribute['name']}: {attribute['description']}",
                  f"{'bucket':<{width}}{'gold':>7}{'test':>7}{'correct':>9}{'UAS':>8}{'LAS':>8}{'LAS interval':>18}"
                  f"{'P':>8}{'F':>8}"]
        for b in attribute["buckets"]:
            lines.append(f"{b['bucket']:<{width}}{b['gold']:>7}{b['test']:>7}{b['correct']:>9}{_pct(b['uas'])}"
                         f"{_pct(b['las'])}{_ci(b.get('las_ci')):>18}{_pct(b['precision'])}{_pct(b['f'])}")
    return "\n".join(lines) + "\n"


def _pct(value) -> str:
    return f"{'–':>8}" if value is None else f"{100 * value:>8.2f}"


def _ci(ci) -> str:
    return "" if not ci else f" [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
