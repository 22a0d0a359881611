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


def _bucket_counts(attribute, gold: list[DepSentence], test: list[DepSentence], punct: PunctRule, rel):
    """``(labels, rows)``: the sorted bucket labels and a (sentences x buckets*5) integer matrix of counts."""
    per_sentence: list[dict[str, list[int]]] = []
    for gs, ts in zip(gold, test):
        gskip, tskip = punct_skips(punct, gs, ts)
        gtree, ttree = Tree(gs), Tree(ts)
        counts: dict[str, list[int]] = {}
        for i, g in enumerate(gs.words):
            if gskip[i]:
                continue
            c = counts.setdefault(attribute.bucket(Item(gtree, i, rel)), [0] * 5)
            c[0] += 1
            if i < len(ts.words):
                head_ok, label_ok = attachment(g, ts.words[i], rel)
                c[1] += head_ok
                c[2] += head_ok and label_ok
        for j, t in enumerate(ts.words):
            if tskip[j] or t.head is None:
                continue
            c = counts.setdefault(attribute.bucket(Item(ttree, j, rel)), [0] * 5)
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


def analyse(gold: list[DepSentence], test: list[DepSentence], *, by: list[str] | None = None,
            punct: PunctRule | str = "upos", labels: bool | str = True, bootstrap: int = 1000,
            seed: int = stats.DEFAULT_SEED, strata: list[str] | None = None) -> dict:
    """The analysis document (``docs/metrics/analysis.md``) of ``test`` against ``gold``, paired by order.

    ``by``: attribute names (default: every dependency attribute); ``labels``: ``True`` (relations whole)
    or ``"universal"`` (without subtype), as in the ``deps`` command.
    """
    if isinstance(punct, str):
        punct = PunctRule.parse(punct)
    if labels not in (True, "full", "universal"):
        raise InputError(f"labels must be full or universal, not {labels!r}")
    if bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    universal = labels == "universal"
    attributes = [buckets.get(KIND, name) for name in by] if by else buckets.attributes_for(KIND)
    headline_rows: list = []
    headline = score_dependencies(gold, test, punct=punct, labels="universal" if universal else True,
                                  rows=headline_rows)  # pairs by order, refuses differing sentence counts

    def rel(word) -> str:
        return word.deprel.split(":", 1)[0] if universal else word.deprel

    strata = strata if strata is not None else ["all"] * len(gold)
    tables = [(a, *_bucket_counts(a, gold, test, punct, rel)) for a in attributes]
    matrices = [np.asarray(headline_rows, dtype=np.int64).reshape(len(gold), len(ROW_COLUMNS))]
    matrices += [rows for _, _, rows in tables]
    resampled = None
    if bootstrap and len(gold):
        for _, parts in stats.resampled_sums(matrices, strata, bootstrap, seed):
            resampled = list(parts) if resampled is None else [a + b for a, b in zip(resampled, parts)]
    doc = {
        "schema": SCHEMA, "kind": KIND, "signature": headline["signature"], "sentences": len(gold),
        "headline": _headline(headline, headline_rows, resampled[0] if resampled else None),
        "bootstrap": {"resamples": bootstrap, "seed": seed, "ci_level": stats.CI_LEVEL,
                      "strata": "genre" if len(set(strata)) > 1 else "none"},
        "attributes": [],
    }
    for m, (attribute, bucket_labels, rows) in enumerate(tables, start=1):
        sums = rows.sum(axis=0)
        entries = []
        for k, label in enumerate(bucket_labels):
            counts = dict(zip(COUNT_COLUMNS, (int(v) for v in sums[5 * k:5 * k + 5])))
            entry = {"bucket": label, **counts,
                     **{name: stats.defined(v) for name, v in figures(*counts.values()).items()}}
            if resampled is not None:
                boot = figures(*(resampled[m][:, 5 * k + c] for c in range(5)))
                entry.update({f"{name}_ci": stats.interval(boot[name]) for name in FIGURES})
            entries.append(entry)
        doc["attributes"].append({"name": attribute.name, "description": attribute.description,
                                  "buckets": entries})
    return doc


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
