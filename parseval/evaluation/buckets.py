"""The one registry of analysis attributes, and what every kind's bucket analysis shares.

An :class:`Attribute` names a property of an item (a dependency arc, a tree's bracket, an EASY relation) or
of its sentence, the kinds it applies to, and a function from an item to its *bucket*, a short label. A
kind's package registers its attributes when its ``buckets`` module is imported
(``parseval.evaluation.{easy,trees,deps}.buckets``) and computes its buckets itself, with its scorer's own
matching: the registry holds the names, keyed by kind and name, so that the command line, the JSON document
and the pages list the same attributes in the same order for every kind.

Numeric attributes fall into fixed ranges (:func:`range_label`): a bucket means the same thing on every
corpus, so that two analyses can be read side by side.

Shared by the kinds: :class:`Counts` (a run's per-sentence bucket counts, what a document, a pairwise
comparison and the confusion tables are made from), :class:`Counter` (filling them), the resampling of
the intervals (:func:`resampled_tables`), and for the span kinds (EASY relations, tree brackets) the
figures and the document (:func:`span_figures`, :func:`span_document`). The arithmetic and the JSON schema
are in docs/metrics/analysis.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from parseval.annotations.errors import InputError


@dataclass(frozen=True)
class Attribute:
    """One attribute: ``bucket(item)`` gives the item's bucket label; ``order`` the fixed order of the
    bucket labels when the attribute has one (numeric ranges), else buckets are sorted by name;
    ``per_sentence``: the bucket depends only on the item's sentence (its length, its genre), so that a kind
    may compute it once per sentence."""

    name: str
    kinds: tuple[str, ...]
    description: str
    bucket: Callable[[Any], str]
    order: tuple[str, ...] = ()
    per_sentence: bool = False

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

    :meth:`add_counts` adds a sentence's counts of its buckets (``{label: [count per column]}``), :meth:`add`
    one count; :meth:`table` gives the sorted labels and the dense (sentences, buckets x columns) matrix.
    Until then the counts are records ``(sentence, bucket, count per column)`` in one flat int32 array: 4
    bytes per count of a bucket a sentence has, never Python objects per sentence.
    """

    __slots__ = ("attribute", "width", "index", "labels", "data")

    def __init__(self, attribute: Attribute, width: int):
        from array import array
        self.attribute, self.width = attribute, width
        self.index: dict[str, int] = {}
        self.labels: list[str] = []
        self.data = array("i")

    def _bucket(self, label: str) -> int:
        k = self.index.get(label)
        if k is None:
            k = self.index[label] = len(self.labels)
            self.labels.append(label)
        return k

    def add(self, sentence: int, label: str, column: int, n: int = 1) -> None:
        record = [0] * (2 + self.width)
        record[0], record[1], record[2 + column] = sentence, self._bucket(label), n
        self.data.extend(record)

    def add_counts(self, sentence: int, counts: dict) -> None:
        """Add ``{label: [count per column]}`` to the counts of ``sentence``."""
        data, index = self.data, self.index
        for label, values in counts.items():
            k = index.get(label)
            if k is None:
                k = self._bucket(label)
            data.append(sentence)
            data.append(k)
            data.extend(values)

    def table(self, sentences: int, labels: list[str] | None = None):
        """``(labels, rows)``: the labels in the attribute's order (or ``labels``, a superset, as given) and the
        (sentences, len(labels) x width) integer matrix of counts (bucket k's columns at ``k*width ...``; int16
        when a count per sentence stays below 16,384, a bucket's sum per sentence too, else int32)."""
        import numpy as np
        order = sorted(self.labels, key=self.attribute.sort_key) if labels is None else list(labels)
        where = {label: j for j, label in enumerate(order)}
        w = self.width
        rows = np.zeros((sentences, len(order) * w), dtype=np.int32)
        if len(self.data):
            records = np.frombuffer(self.data, dtype=np.int32).reshape(-1, 2 + w)
            remap = np.array([where[label] for label in self.labels], dtype=np.int64)
            first = remap[records[:, 1]] * w
            for c in range(w):
                np.add.at(rows, (records[:, 0], first + c), records[:, 2 + c])
        if int(np.abs(rows).max(initial=0)) < 2 ** 15:
            rows = rows.astype(np.int16)  # always for EASY (at most 4,000 relations a sentence): half the memory
        return order, rows


class ErrorList:
    """:attr:`Counts.errors` kept compact: each error ``(sentence, what, label, item)`` as a few bytes (the
    sentence in an int32 array, ``what`` and ``label`` as indices of their distinct values, ``item`` as UTF-8 in
    one byte buffer) instead of a tuple and a string (about 140 bytes an error: 30 MB for a 12x EASY run's).
    A sequence of those tuples: :meth:`append` one, index or iterate to read them back."""

    __slots__ = ("sentences", "_what", "_labels", "_codes", "_items", "_ends", "_names", "_index")

    def __init__(self):
        from array import array
        self.sentences = array("i")
        self._what, self._labels = array("B"), array("I")
        self._items, self._ends = bytearray(), array("q")
        self._names: list[str] = []
        self._index: dict[str, int] = {}

    def _code(self, value: str) -> int:
        k = self._index.get(value)
        if k is None:
            k = self._index[value] = len(self._names)
            self._names.append(value)
        return k

    def append(self, error: tuple) -> None:
        sentence, what, label, item = error
        self.sentences.append(sentence)
        self._what.append(self._code(what))
        self._labels.append(self._code(label))
        self._items += item.encode("utf-8")
        self._ends.append(len(self._items))

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        start = self._ends[k - 1] if k else 0
        names = self._names
        return (self.sentences[k], names[self._what[k]], names[self._labels[k]],
                self._items[start:self._ends[k]].decode("utf-8"))

    def __iter__(self):
        names, items, start = self._names, self._items, 0
        for sentence, what, label, end in zip(self.sentences, self._what, self._labels, self._ends):
            yield sentence, names[what], names[label], items[start:end].decode("utf-8")
            start = end

    def __eq__(self, other) -> bool:
        return list(self) == list(other)


def tables_of(counters: list[Counter], sentences: int) -> list:
    """``(attribute, labels, rows)`` of each counter, each counter's growing matrix freed once its table is
    made (so that a matrix and its table coexist one attribute at a time)."""
    out = []
    for counter in counters:
        out.append((counter.attribute, *counter.table(sentences)))
        counter.data = counter.data[:0]
    return out


def sentence_lists(rows, k: int, width: int, error, ids: list[int] | None = None) -> tuple[list[int], list[int]]:
    """Indices of the sentences with an item in bucket ``k`` and of those with an error there (``error``: the
    bucket's count columns (sentences, width) -> a boolean per sentence). ``ids``: ``list(range(sentences))``
    made once by the caller, so that every list shares its int objects (8 bytes an entry, not 36: a 12x
    EASY analysis lists about two million)."""
    import numpy as np
    block = rows[:, k * width:(k + 1) * width]
    return shared(np.flatnonzero(block.any(axis=1)), ids), shared(np.flatnonzero(error(block)), ids)


def shared(indices, ids: list[int] | None) -> list[int]:
    """``indices`` as a list of ints, taken from ``ids`` (``list(range(n))``) when given."""
    if ids is None:
        return [int(i) for i in indices]
    return [ids[i] for i in (indices.tolist() if hasattr(indices, "tolist") else indices)]


def genre_attribute(kind: str) -> Attribute:
    """Register ``genre`` for ``kind``: an item's bucket is its sentence's genre (``item.genre``), the
    stratum its sentence is resampled in."""
    return register(Attribute(GENRE, (kind,), "the sentence's genre (the strata of the intervals)",
                              lambda item: item.genre, per_sentence=True))


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
    ``confusions``: ``{name: Confusion}`` (:class:`parseval.evaluation.confusions.Confusion`); ``errors``
    (when asked for): ``(sentence, "missed" | "spurious", label, item)`` of every error, for the common
    errors; ``result``: the headline scoring's own result, when the kind keeps it.
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
    result: dict | None = None  # the headline scoring's own result when the kind keeps it (deps; evalb's summary)

    def table(self, name: str):
        """``(attribute, labels, rows)`` of the attribute ``name``."""
        for entry in self.tables:
            if entry[0].name == name:
                return entry
        raise InputError(f"the analysis has no attribute {name!r}: "
                         + ", ".join(a.name for a, _, _ in self.tables))


ANALYSIS_RESAMPLE_BUDGET = 500_000  # draws at a time (:func:`parseval.evaluation.stats.resampled_sums`)


def resampled_tables(counts: Counts, bootstrap: int, seed: int) -> list | None:
    """Every matrix of ``counts`` (the headline's, then each attribute's) summed over the same ``bootstrap``
    genre-stratified resamples of the sentences (:func:`parseval.evaluation.stats.resampled_sums`, the
    headline intervals' draws): a list of (B, columns) arrays, or None without resamples.

    One matrix at a time: each call draws the same resamples from the same seed, and a matrix's sums do not
    depend on the others', so the numbers are those of one call over all of them, with a genre's copy of
    one matrix in memory at a time instead of all of them; and a quarter of the scoring's draws at a time
    (:data:`ANALYSIS_RESAMPLE_BUDGET`: the same numbers, taken a few at a time), so that the resampling's
    buffers add to a 12x EASY analysis's counts no more than about 8 MB instead of 30."""
    from parseval.evaluation import stats
    if not bootstrap or not len(counts.keys):
        return None
    out = []
    for matrix in [counts.headline] + [rows for _, _, rows in counts.tables]:
        total = None
        for _, (part,) in stats.resampled_sums([matrix], counts.strata, bootstrap, seed,
                                               ANALYSIS_RESAMPLE_BUDGET):
            total = part if total is None else total + part
        out.append(total)
    return out


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
    ids = list(range(len(counts.keys)))
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
            entry["sentences"], entry["error_sentences"] = sentence_lists(rows, k, width, span_error, ids)
            entries.append(entry)
        doc["attributes"].append({"name": attribute.name, "description": attribute.description,
                                  "buckets": entries})
    if extra:
        doc.update(extra)
    return doc


def format_span_tables(doc: dict) -> str:
    """A span kind's bucket tables as text (percentages), one per attribute, after the headline."""
    h = doc["headline"]
    lines = [f"signature: {doc['signature']}",
             f"sentences: {doc['sentences']}   gold items: {h['gold']}   run items: {h['test']}   "
             f"matched: {h['correct']}",
             f"R {_pct(h['recall']).strip()}{_ci(h.get('recall_ci'))}   P {_pct(h['precision']).strip()}"
             f"{_ci(h.get('precision_ci'))}   F {_pct(h['f']).strip()}{_ci(h.get('f_ci'))}"]
    boot = doc["bootstrap"]
    if boot["resamples"]:
        lines.append(f"intervals: {round(100 * boot['ci_level'])}% bootstrap, {boot['resamples']} resamples of the "
                     f"sentences{' within each genre' if boot['strata'] == 'genre' else ''}, seed {boot['seed']}")
    for attribute in doc["attributes"]:
        width = max([12] + [len(b["bucket"]) + 2 for b in attribute["buckets"]])
        lines += ["", f"by {attribute['name']}: {attribute['description']}",
                  f"{'bucket':<{width}}{'gold':>8}{'run':>8}{'matched':>9}{'R':>8}{'P':>8}{'F':>8}{'F interval':>18}"]
        for b in attribute["buckets"]:
            lines.append(f"{b['bucket']:<{width}}{b['gold']:>8}{b['test']:>8}{b['correct']:>9}{_pct(b['recall'])}"
                         f"{_pct(b['precision'])}{_pct(b['f'])}{_ci(b.get('f_ci')):>18}")
    return "\n".join(lines) + "\n"


def format_confusions(tables: list[dict], top: int = 6) -> str:
    """Confusion tables as text: per gold label, its count and its most frequent cells."""
    lines = []
    for table in tables:
        width = max([10] + [len(r["gold"]) + 2 for r in table["rows"]])
        lines += ["", f"confusions, {table['name']}: {table['description']}"]
        for row in table["rows"]:
            cells = sorted(row["cells"].items(), key=lambda kv: (-kv[1]["count"], kv[0]))
            shown = ", ".join(f"{label} {c['count']}" for label, c in cells[:top])
            more = f", ... ({len(cells) - top} more)" if len(cells) > top else ""
            lines.append(f"{row['gold']:<{width}}{row['count']:>7}  {shown}{more}")
    return "\n".join(lines) + "\n"


def _pct(value) -> str:
    return f"{'–':>8}" if value is None else f"{100 * value:>8.2f}"


def _ci(ci) -> str:
    return "" if not ci else f" [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"
