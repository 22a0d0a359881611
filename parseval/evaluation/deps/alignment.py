"""Character-level alignment of two tokenisations of one text (CoNLL 2018 shared task).

Two analyses of the same text rarely cut it the same way: a parser splits
*du* into *de le*, glues *l'* to its noun, or ends a sentence in the middle
of a gold one. The CoNLL 2018 shared task (Zeman et al. 2018, section 2.2 of
the overview paper; the scorer's own description) compares them over the
text's **non-whitespace characters**: every form is stripped of its space
characters (Unicode category Zs: the ordinary space, the no-break space...),
the stripped forms of each side are concatenated, and the two concatenations
must be the same string. Each token, word or sentence is then a half-open
range ``[start, end)`` of offsets into that string, and two items *match*
when their ranges are equal.

This module is pure Python (no Django) and knows nothing of CoNLL-U, so any
tokenisation can be aligned with it: a converter that has a fixed list of
corpus forms and the tokens a parser produced over the same text uses

* :func:`char_spans` to place each list on the common string,
* :func:`check_same_text` to refuse two lists that are not the same text,
* :func:`overlaps` (for each form, the tokens sharing at least one character
  with it) or :func:`groups` (the smallest many-to-many blocks whose outer
  boundaries coincide on both sides), or :func:`align_forms` which does all
  three steps.

The CoNLL 2018 *word* alignment (:func:`align_words`) adds multiword tokens:
a word inside a multiword token (``1-2 du`` = ``de`` + ``le``) has no range of
its own, only its token's. Words outside any multiword token align when
their ranges are equal. Where either side has a multiword token, the shared
task takes the smallest *multiword region* that contains it and every
multiword token of either side that overlaps the region, and pairs the
words inside by the longest common subsequence of their lower-cased forms
(see :func:`align_words` for the exact walk, which the official scores
depend on).
"""
from __future__ import annotations

import unicodedata
from math import isqrt
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence


class Span(NamedTuple):
    """Half-open range ``[start, end)`` of offsets into the non-whitespace characters."""

    start: int
    end: int


class AlignWord(NamedTuple):
    """A word as the CoNLL 2018 word alignment sees it.

    ``start``/``end``: the range of the word's *token* (for a word inside a
    multiword token, the whole token's range); ``form``: the word's own form
    (compared lower-cased inside multiword regions); ``multiword``: the word
    belongs to a multiword token.
    """

    start: int
    end: int
    form: str
    multiword: bool = False


@dataclass
class TextMismatch(Exception):
    """The two sides are not the same text once whitespace is removed.

    ``offset`` is the first differing character offset; ``gold``/``test`` the
    20 characters from there on each side (shorter at the end of a text).
    """

    offset: int
    gold: str
    test: str

    def __str__(self) -> str:
        return (f"the two texts differ at non-whitespace character {self.offset}: "
                f"{self.gold!r} against {self.test!r}")


def is_space(char: str) -> bool:
    """A character left out of the comparison (Unicode category Zs, as in the shared task)."""
    return unicodedata.category(char) == "Zs"


def strip_spaces(form: str) -> str:
    """``form`` without its space characters (``"10\u00a0000"`` -> ``"10000"``)."""
    if form.isascii():
        return form.replace(" ", "") if " " in form else form  # U+0020 is the only ASCII Zs character
    return "".join(c for c in form if not is_space(c))


def char_spans(forms: Iterable[str]) -> tuple[str, list[Span]]:
    """Concatenated stripped forms and each form's range in it.

    A form that is only spaces gets an empty range ``(p, p)``; callers that
    must refuse empty forms (the CoNLL 2018 reader does) check for it.
    """
    parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    for form in forms:
        stripped = strip_spaces(form)
        parts.append(stripped)
        spans.append(Span(pos, pos + len(stripped)))
        pos += len(stripped)
    return "".join(parts), spans


def first_difference(gold: str, test: str) -> int | None:
    """Offset of the first differing character, or None when the strings are equal."""
    if gold == test:
        return None
    n = min(len(gold), len(test))
    # bisect on prefix equality: a slice comparison runs in C, a character loop would not
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if gold[:mid] == test[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_same_text(gold: str, test: str) -> None:
    """Raise :class:`TextMismatch` unless the two concatenations are identical."""
    at = first_difference(gold, test)
    if at is not None:
        raise TextMismatch(at, gold[at:at + 20], test[at:at + 20])


def overlaps(gold: Sequence[Span], test: Sequence[Span]) -> list[list[int]]:
    """For each gold range, the indices of the test ranges sharing at least one character with it.

    Both lists are in text order and do not overlap within themselves (a
    tokenisation). Empty ranges overlap nothing. Linear in the two lengths.
    """
    out: list[list[int]] = []
    j = 0
    for g in gold:
        while j < len(test) and test[j].end <= g.start:
            j += 1
        hits = []
        k = j
        while k < len(test) and test[k].start < g.end:
            if test[k].end > test[k].start and g.end > g.start:
                hits.append(k)
            k += 1
        out.append(hits)
    return out


def groups(gold: Sequence[Span], test: Sequence[Span]) -> list[tuple[list[int], list[int]]]:
    """The smallest blocks ``(gold indices, test indices)`` whose outer boundaries coincide.

    One-to-one blocks are identical tokens; ``([3], [3, 4])`` is a gold form
    the test side split in two, ``([5, 6], [5])`` two gold forms the test side
    merged, ``([7, 8], [6, 7])`` crossing cuts. An empty range met between
    blocks is a block of its own on its side; inside a block it belongs to it. Both sides must cover the same text (see
    :func:`check_same_text`).
    """
    out: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(gold) or j < len(test):
        if i < len(gold) and gold[i].start == gold[i].end:
            out.append(([i], []))
            i += 1
            continue
        if j < len(test) and test[j].start == test[j].end:
            out.append(([], [j]))
            j += 1
            continue
        if i >= len(gold) or j >= len(test):
            # one side longer than the other: only possible for texts that differ
            out.append((list(range(i, len(gold))), list(range(j, len(test)))))
            break
        gi, tj = [i], [j]
        end_g, end_t = gold[i].end, test[j].end
        i += 1
        j += 1
        while end_g != end_t:
            if end_g < end_t and i < len(gold):
                gi.append(i)
                end_g = gold[i].end
                i += 1
            elif end_t < end_g and j < len(test):
                tj.append(j)
                end_t = test[j].end
                j += 1
            else:
                break
        out.append((gi, tj))
    return out


def align_forms(gold_forms: Sequence[str], test_forms: Sequence[str]) -> list[list[int]]:
    """For each gold form, the test tokens covering (part of) it. Raises :class:`TextMismatch`."""
    gold_text, gold_spans = char_spans(gold_forms)
    test_text, test_spans = char_spans(test_forms)
    check_same_text(gold_text, test_text)
    return overlaps(gold_spans, test_spans)


def matched_pairs(gold: Sequence[Span], test: Sequence[Span]):
    """Index pairs ``(i, j)`` of the ranges on both sides (same start and end).

    Both lists in increasing start order; a range is compared only with the
    other side's range that starts at the same offset.
    """
    i = j = 0
    while i < len(gold) and j < len(test):
        gs, ts = gold[i].start, test[j].start
        if ts < gs:
            j += 1
        elif gs < ts:
            i += 1
        else:
            if gold[i].end == test[j].end:
                yield i, j
            i += 1
            j += 1


def count_matches(gold: Sequence[Span], test: Sequence[Span]) -> int:
    """How many ranges are on both sides (same start and end): the Tokens and Sentences numerator."""
    return sum(1 for _ in matched_pairs(gold, test))


def align_words(gold: Sequence[AlignWord], test: Sequence[AlignWord]) -> list[tuple[int, int]]:
    """The CoNLL 2018 word alignment: pairs ``(gold index, test index)`` in text order.

    The words are :class:`AlignWord` or any objects with the same four attributes.

    The walk keeps one cursor per side.

    * Neither current word is in a multiword token: equal ranges align and
      both cursors move; otherwise the word that starts first is dropped
      (the gold one when both start together).
    * Otherwise a multiword region opens at the multiword token's end (the
      gold one when both are). A plain word of the other side that starts
      strictly before that token is dropped first (one word only). The region
      then takes, one at a time, the word that starts first (gold on ties)
      for as long as either side's next word is still inside: a multiword
      word is inside when it starts before the region's end, a plain word
      when it ends at or before it; taking a multiword word pushes the end
      to its token's end. Inside the region, words pair along a longest
      common subsequence of lower-cased forms, read from the front: equal
      forms pair, otherwise the gold word is passed over when that keeps
      the subsequence as long, else the test word.
    """
    ng, nt = len(gold), len(test)
    g_start = [w.start for w in gold]
    g_end = [w.end for w in gold]
    g_multi = [w.multiword for w in gold]
    t_start = [w.start for w in test]
    t_end = [w.end for w in test]
    t_multi = [w.multiword for w in test]
    pairs: list[tuple[int, int]] = []

    def inside(starts, ends, multi, n, k, region_end) -> bool:
        if k >= n:
            return False
        if multi[k]:
            return starts[k] < region_end
        return ends[k] <= region_end

    i = j = 0
    while i < ng and j < nt:
        if not g_multi[i] and not t_multi[j]:
            if g_start[i] == t_start[j] and g_end[i] == t_end[j]:
                pairs.append((i, j))
                i += 1
                j += 1
            elif g_start[i] <= t_start[j]:
                i += 1
            else:
                j += 1
            continue
        if g_multi[i]:
            region_end = g_end[i]
            if not t_multi[j] and t_start[j] < g_start[i]:
                j += 1
        else:
            region_end = t_end[j]
            if g_start[i] < t_start[j]:
                i += 1
        i0, j0 = i, j
        while (inside(g_start, g_end, g_multi, ng, i, region_end)
               or inside(t_start, t_end, t_multi, nt, j, region_end)):
            if i < ng and (j >= nt or g_start[i] <= t_start[j]):
                if g_multi[i] and g_end[i] > region_end:
                    region_end = g_end[i]
                i += 1
            else:
                if t_multi[j] and t_end[j] > region_end:
                    region_end = t_end[j]
                j += 1
        if i > i0 and j > j0:
            pairs.extend(_lcs_pairs([w.form.lower() for w in gold[i0:i]],
                                    [w.form.lower() for w in test[j0:j]], i0, j0))
    return pairs


# Masks of run forms kept between columns, at most this many bytes (a gold region's frequent
# words, "de", "le", come back in every column; a rare one is rebuilt from its positions).
MASK_CACHE_BYTES = 8 * 1024 * 1024


def alignment_ceiling(gold_words: int, run_words: int) -> int:
    """Bytes :func:`align_words` may hold at once, beyond the words it is given.

    ``gold_words``/``run_words``: the words of the largest multiword region
    (at most the two files' words). Columns: at most ``2(√m + 4)`` integers
    of ``n`` bits (CPython stores 30 bits in 4 bytes, plus a 32-byte head);
    the mask cache; and 200 bytes per word for what grows with the words
    (lower-cased forms, positions, pairs). The memory test measures the
    alignment against this figure, and docs/governance.md quotes it.
    """
    n, m = gold_words, run_words
    column = 32 + 4 * (n // 30 + 1)
    return (2 * isqrt(m) + 8) * column + MASK_CACHE_BYTES + 200 * (n + m)


def _lcs_pairs(a: list[str], b: list[str], a0: int, b0: int) -> list[tuple[int, int]]:
    """Pairs of a longest common subsequence of ``a`` and ``b``, read from the front (see align_words).

    The shared task fills the whole table ``best[x][y]`` = LCS length of
    ``a[x:]`` and ``b[y:]`` and walks it from ``(0, 0)``: equal forms pair,
    else ``x`` moves on when ``best[x + 1][y] == best[x][y]``, else ``y``.
    A run can make one multiword region as long as the document (multiword
    tokens cut across the gold ones chain regions), and that table then
    grows with gold words × run words: a 205 KB run took a worker from 0.5
    to 1.4 GB. This walk is the same, decision for decision, in bounded
    memory:

    * **Columns as bits.** For a fixed ``y``, ``best[x][y] - best[x + 1][y]``
      is 0 or 1, so column ``y`` is an ``n``-bit integer, and the walk's
      only question, "does ``x`` move on", is one bit of it. Columns are
      computed from ``y = m`` down to ``0`` with the bit-parallel LCS
      recurrence (Allison and Dix 1986, Hyyrö 2004) on the reversed
      sequences, which gives exactly the table's differences: no value is
      approximated, so the pairs are the table walk's pairs.
    * **Checkpoints.** The walk needs the columns from ``y = 0`` up, the
      recurrence makes them from ``m`` down. One pass keeps every ``s``-th
      column (``s = ⌊√m⌋ + 1``); the walk then recomputes the ``s``
      columns of one block at a time from its checkpoint. Two passes, and
      at most ``2(√m + 2)`` columns of ``n / 8`` bytes held at once,
      plus the mask cache (:data:`MASK_CACHE_BYTES`).

    ``n`` is the gold side, bounded by the organiser's corpus; the run's
    length ``m`` only enters under a square root. docs/governance.md
    gives the ceiling this puts on a worker.
    """
    n, m = len(a), len(b)
    if not n or not m:
        return []
    # bit i of a column stands for a[n - 1 - i]: the recurrence runs on the reversed sequences
    where: dict[str, list[int]] = {}
    for i in range(n):
        where.setdefault(a[n - 1 - i], []).append(i)
    full = (1 << n) - 1
    cache: dict[str, int] = {}
    room = [MASK_CACHE_BYTES]

    def mask(form: str) -> int:
        found = cache.get(form)
        if found is not None:
            return found
        positions = where.get(form)
        if not positions:
            return 0
        buf = bytearray((n + 7) // 8)
        for i in positions:
            buf[i >> 3] |= 1 << (i & 7)
        bits = int.from_bytes(buf, "little")
        if room[0] >= len(buf):
            room[0] -= len(buf)
            cache[form] = bits
        return bits

    def column(v: int, form: str) -> int:
        # bit-parallel LCS step: a set bit is a row where the next column's value does not grow
        u = v & mask(form)
        return ((v + u) | (v - u)) & full if u else v

    s = isqrt(m) + 1
    marks = [full]  # marks[k]: the column after k * s forms of reversed b, i.e. y = m - k * s
    v = full
    for j in range(1, m + 1):
        v = column(v, b[m - j])
        if j % s == 0:
            marks.append(v)
    pairs = []
    block: list[int] = []
    block_lo = 0
    x = y = 0
    while x < n and y < m:
        j = m - y  # column y is the one after j forms of reversed b
        if not block or j < block_lo:
            block_lo = (j // s) * s
            v = marks[j // s]
            block = [v]
            for jj in range(block_lo + 1, min(block_lo + s, m) + 1):
                v = column(v, b[m - jj])
                block.append(v)
        col = block[j - block_lo]
        while x < n:
            if a[x] == b[y]:
                pairs.append((a0 + x, b0 + y))
                x += 1
                break
            if not (col >> (n - 1 - x)) & 1:
                break  # best[x + 1][y] < best[x][y]: y moves on
            x += 1
        y += 1
    return pairs
