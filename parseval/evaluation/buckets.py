"""The one registry of analysis attributes: what a figure can be broken down by, for every kind.

An :class:`Attribute` names a property of an item (a dependency arc, later a tree's span or an EASY
relation) or of its sentence, the kinds it applies to, and a function from an item to its *bucket*, a
short label. A kind's package registers its attributes when it is imported (``parseval.evaluation.deps.buckets``
for dependencies) and computes its buckets itself, with its own matching: this module only holds the
names, so that the command line, the JSON document and (later) the pages list the same attributes in the
same order for every kind.

Numeric attributes fall into fixed ranges (:func:`range_label`): a bucket means the same thing on every
corpus, so that two analyses can be read side by side.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from parseval.annotations.errors import InputError


@dataclass(frozen=True)
class Attribute:
    """One attribute: ``bucket(item)`` gives the item's bucket label; ``order`` the fixed order of the
    bucket labels when the attribute has one (numeric ranges), else buckets are sorted by name."""

    name: str
    kinds: tuple[str, ...]
    description: str
    bucket: Callable[[Any], str]
    order: tuple[str, ...] = ()

    def sort_key(self, label: str):
        if label in self.order:
            return (0, self.order.index(label), "")
        return (1, 0, label)


# keyed by (name, kinds): two kinds may each have an attribute of one name (``relation``, ``sentence_length``,
# ``genre``), each computed by its own package; a kind never has two attributes of one name
_REGISTRY: dict[tuple[str, tuple[str, ...]], Attribute] = {}


def register(attribute: Attribute) -> Attribute:
    for (name, kinds), other in _REGISTRY.items():
        if name == attribute.name and kinds != attribute.kinds and set(kinds) & set(attribute.kinds):
            raise ValueError(f"attribute {name!r} registered twice for the kind(s) "
                             f"{', '.join(sorted(set(kinds) & set(attribute.kinds)))}")
    _REGISTRY[(attribute.name, attribute.kinds)] = attribute
    return attribute


def kinds() -> list[str]:
    """Every kind with at least one registered attribute, in registration order."""
    return list(dict.fromkeys(k for a in _REGISTRY.values() for k in a.kinds))


def attributes_for(kind: str) -> list[Attribute]:
    """The attributes that apply to ``kind``, in registration order."""
    return [a for a in _REGISTRY.values() if kind in a.kinds]


def get(kind: str, name: str) -> Attribute:
    """The attribute ``name`` of ``kind``; a clear error naming the available ones otherwise."""
    for attribute in attributes_for(kind):
        if attribute.name == name:
            return attribute
    names = ", ".join(a.name for a in attributes_for(kind))
    raise InputError(f"no attribute {name!r} for the kind {kind}: choose among {names}")


@lru_cache(maxsize=None)
def range_labels(edges: tuple[int, ...]) -> tuple[str, ...]:
    """Labels of the ranges that start at each edge: ``(1, 2, 3, 5)`` gives ``1, 2, 3-4, 5+``."""
    labels = []
    for low, high in zip(edges, edges[1:]):
        labels.append(str(low) if high == low + 1 else f"{low}-{high - 1}")
    labels.append(f"{edges[-1]}+")
    return tuple(labels)


def range_label(value: int, edges: tuple[int, ...]) -> str:
    """The label of the range of ``edges`` (:func:`range_labels`) that holds ``value`` (``value >= edges[0]``)."""
    labels = range_labels(edges)
    for k in range(len(edges) - 1, -1, -1):
        if value >= edges[k]:
            return labels[k]
    raise ValueError(f"{value} is below the first range ({edges[0]})")


# -- what every kind shares: per-sentence bucket counts, their sums, intervals and sentence lists -------------

GENRE = "genre"  # the attribute every kind has: the sentence's genre (its stratum of the bootstrap)
ALL_GENRES = "all"  # the one stratum when no genre is known


class Counter:
    """Per-sentence counts of the buckets of one attribute, filled a sentence at a time, kept compact.

    ``add(sentence, label, column, n)`` adds ``n`` to a count of one bucket of one sentence; :meth:`table`
    gives the sorted labels and a dense (sentences, buckets x columns) integer matrix. Entries are kept as
    flat integer arrays (sentence, bucket, column, n), so memory grows with the non-zero counts, never with
    Python objects per sentence.
    """

    __slots__ = ("attribute", "width", "index", "labels", "entries")

    def __init__(self, attribute: Attribute, width: int):
        from array import array
        self.attribute, self.width = attribute, width
        self.index: dict[str, int] = {}
        self.labels: list[str] = []
        self.entries = array("q")

    def add(self, sentence: int, label: str, column: int, n: int = 1) -> None:
        k = self.index.get(label)
        if k is None:
            k = self.index[label] = len(self.labels)
            self.labels.append(label)
        self.entries.extend((sentence, k, column, n))

    def table(self, sentences: int, labels: list[str] | None = None):
        """``(labels, rows)``: the labels in the attribute's order (or ``labels``, a superset, as given) and the
        (sentences, len(labels) x width) int32 matrix of counts (bucket k's columns at ``k*width ...``)."""
        import numpy as np
        order = sorted(self.labels, key=self.attribute.sort_key) if labels is None else list(labels)
        where = {label: i for i, label in enumerate(order)}
        rows = np.zeros((sentences, len(order) * self.width), dtype=np.int32)
        if self.entries:
            e = np.frombuffer(self.entries, dtype=np.int64).reshape(-1, 4)
            remap = np.array([where[label] for label in self.labels], dtype=np.int64)
            np.add.at(rows, (e[:, 0], remap[e[:, 1]] * self.width + e[:, 2]), e[:, 3])
        return order, rows


def sentence_lists(rows, k: int, width: int, error) -> tuple[list[int], list[int]]:
    """Indices of the sentences with an item in bucket ``k`` and of those with an error there (``error``: the
    bucket's count columns (sentences, width) -> a boolean per sentence)."""
    import numpy as np
    block = rows[:, k * width:(k + 1) * width]
    return (np.flatnonzero(block.any(axis=1)).tolist(), np.flatnonzero(error(block)).tolist())


def genre_attribute(kind: str) -> Attribute:
    """Register ``genre`` for ``kind``: an item's bucket is its sentence's genre (``item.genre``), the
    stratum its sentence is resampled in."""
    return register(Attribute(GENRE, (kind,), "the sentence's genre (the strata of the intervals)",
                              lambda item: item.genre))


# -- the span kinds (EASY relations, tree brackets): four counts per bucket ------------------------------------

# ``gold``: gold items in the bucket (by the gold side's attributes); ``test``: run items in the bucket (by
# the run's); ``correct``: gold items matched; ``correct_test``: run items matched. Summed over the buckets
# of any attribute: the headline's reference size, hypothesis size and matches (twice).
SPAN_COLUMNS = ("gold", "test", "correct", "correct_test")
SPAN_FIGURES = ("recall", "precision", "f")


@dataclass
class Counts:
    """A run's per-sentence counts, before any figure: what :func:`document` sums and resamples, what the
    pairwise analysis (:mod:`parseval.evaluation.bucket_pairs`) compares and the confusion tables
    (:mod:`parseval.evaluation.confusions`) read.

    ``keys[i]`` names sentence ``i`` (``document/sentence id`` for EASY, the ``sent_id`` or the 1-based
    number for dependencies, the 1-based number for trees); ``strata[i]`` is its genre. ``headline`` holds the
    headline scoring's per-sentence rows (columns ``headline_columns``); ``tables`` one ``(attribute,
    labels, rows)`` per attribute, ``rows`` of shape (sentences, len(labels) x len(columns)).
    ``confusions``: ``{layer: {gold label: {run label: [count, sentence indices]}}}``; ``errors`` (when asked
    for): ``(sentence, "missed" | "spurious", label, item)`` of every error, for the common errors.
    """

    kind: str
    columns: tuple[str, ...]
    keys: list[str]
    strata: list[str]
    headline_columns: tuple[str, ...]
    headline: Any
    tables: list = field(default_factory=list)
    confusions: dict = field(default_factory=dict)
    errors: list | None = None
    signature: str = ""

    def table(self, name: str):
        """``(attribute, labels, rows)`` of the attribute ``name``."""
        for entry in self.tables:
            if entry[0].name == name:
                return entry
        raise InputError(f"the analysis has no attribute {name!r}: "
                         + ", ".join(a.name for a, _, _ in self.tables))


def resampled_tables(counts: Counts, bootstrap: int, seed: int) -> list | None:
    """Every matrix of ``counts`` (the headline's, then each attribute's) summed over the same ``bootstrap``
    genre-stratified resamples of the sentences (:func:`parseval.evaluation.stats.resampled_sums`, the
    headline intervals' draws): a list of (B, columns) arrays, or None without resamples."""
    from parseval.evaluation import stats
    if not bootstrap or not len(counts.keys):
        return None
    matrices = [counts.headline] + [rows for _, _, rows in counts.tables]
    resampled = None
    for _, parts in stats.resampled_sums(matrices, counts.strata, bootstrap, seed):
        resampled = list(parts) if resampled is None else [a + b for a, b in zip(resampled, parts)]
    return resampled


def span_figures(f_exact: Callable) -> Callable:
    """The figures of a span kind's bucket from its four (summed or resampled) counts: ``recall = correct /
    gold``, ``precision = correct_test / test`` and ``f`` their harmonic mean, computed by ``f_exact(correct,
    test, gold)`` (the kind's own headline arithmetic) where both sides agree on the matches (correct ==
    correct_test: always on the whole set), else as 2·c·c' / (c'·gold + c·test), 0 when either side matched
    nothing, undefined (NaN) when the bucket is empty on both sides."""
    import numpy as np
    from parseval.evaluation import stats

    def figures(gold, test, correct, correct_test) -> dict:
        recall, precision = stats.ratio(correct, gold), stats.ratio(correct_test, test)
        scalar = np.ndim(correct) == 0
        g, t, c, ct = (np.asarray(v, dtype=np.float64) for v in (gold, test, correct, correct_test))
        same = f_exact(c, t, g)
        with np.errstate(divide="ignore", invalid="ignore"):
            den = ct * g + c * t
            mixed = np.where(den > 0, 2.0 * c * ct / np.where(den > 0, den, 1.0), 0.0)
        f = np.where(c == ct, same, mixed)
        return {"recall": recall, "precision": precision, "f": float(f) if scalar else f}
    return figures


def span_error(block) -> Any:
    """Per sentence, whether a bucket's counts (sentences, 4) hold an error: a gold item missed or a run item
    wrong."""
    return (block[:, 0] > block[:, 2]) | (block[:, 1] > block[:, 3])


def span_document(counts: Counts, figures: Callable, headline: dict, *, bootstrap: int, seed: int,
                  schema: str, extra: dict | None = None) -> dict:
    """The analysis document of a span kind (see docs/metrics/analysis.md) from its :class:`Counts`.

    ``headline``: the headline's own counts and figures (``{"gold", "test", "correct", "f", ...}``); its
    intervals are added here from the resampled headline rows, whose first three columns must be
    ``correct, test, gold`` (the scorers' ``fc, fp, cr``).
    """
    from parseval.evaluation import stats
    width = len(SPAN_COLUMNS)
    resampled = resampled_tables(counts, bootstrap, seed)
    head = dict(headline)
    if resampled is not None:
        fc, fp, cr = (resampled[0][:, k] for k in range(3))
        boot = figures(cr, fp, fc, fc)
        head.update({f"{name}_ci": stats.interval(boot[name]) for name in SPAN_FIGURES})
    doc = {"schema": schema, "kind": counts.kind, "signature": counts.signature, "sentences": len(counts.keys),
           "headline": head,
           "bootstrap": {"resamples": bootstrap, "seed": seed, "ci_level": stats.CI_LEVEL,
                         "strata": "genre" if len(set(counts.strata)) > 1 else "none"},
           "attributes": [], "sentence_ids": list(counts.keys)}
    for m, (attribute, labels, rows) in enumerate(counts.tables, start=1):
        sums = rows.sum(axis=0, dtype="int64")
        entries = []
        for k, label in enumerate(labels):
            values = dict(zip(SPAN_COLUMNS, (int(v) for v in sums[width * k:width * k + width])))
            entry = {"bucket": label, **values,
                     **{name: stats.defined(v) for name, v in figures(*values.values()).items()}}
            if resampled is not None:
                boot = figures(*(resampled[m][:, width * k + c] for c in range(width)))
                entry.update({f"{name}_ci": stats.interval(boot[name]) for name in SPAN_FIGURES})
            entry["sentences"], entry["error_sentences"] = sentence_lists(rows, k, width, span_error)
            entries.append(entry)
        doc["attributes"].append({"name": attribute.name, "description": attribute.description,
                                  "buckets": entries})
    if extra:
        doc.update(extra)
    return doc
