"""evalb on a block of line pairs at once, with array operations: the streamed preset's fast path.

Reading a line one bracket at a time costs the interpreter about a microsecond
per bracket, and a Penn Treebank line has forty-odd: reading was four fifths
of the preset's time, against a C evalb that spends ten microseconds on a whole
pair. Here a block of lines (a few thousand) is read as one byte array and every
step is an operation over all of its brackets at once:

* bytes are classed as evalb's ``read_line`` sees them (C-space, ``(``, ``)``,
  anything else a word byte) and cut into tokens: ``(``, ``)``, a run of word
  bytes glued to a ``(`` (a label) or not (a word);
* a word is a terminal when a label (or a bare ``(``) and spaces come before it
  and ``)`` right after it: ``(TAG word)``; every other ``(``/``)`` opens/closes
  a bracket; a bracket's span is the number of kept words before its two ends;
* the two ends of a bracket pair up without a stack: inside one line, the opens
  sorted by their depth (stable) and the closes sorted by theirs come in the
  same order;
* labels are compared as integers: the first eight bytes of the label, or of its
  part before ``-``/``=`` for a phrasal label, are the number, exactly;
* the matched brackets of a pair are a multiset intersection of integer keys
  (line, label class, start, end, copy number); crossing brackets are counted
  on the test brackets whose span is not a gold span, against every gold
  bracket of the same line.

Only lines of the common shape take this path: every word inside ``(TAG word)``,
balanced, labels and tags the array can hold (eight bytes after the cut, words
of at most 64 bytes), no NUL byte, no ``(X)`` or ``(X )``; words and lengths
equal on both sides. Any other pair gets ``None`` and is read and scored one
line at a time by ``parseval.evaluation.trees.evalb`` (the exact reading of every odd
case, with its messages), so the report is the same byte for byte; the tests
compare the two paths on damaged treebank lines. Parameters whose matching
depends on bracket order (overlapping EQ_LABEL pairs) or that repair quotes
(QUOTE_LABEL) do not use this path at all (:func:`usable`).

Where ``make install`` compiled it, ``parseval.evaluation.trees.evalb_scan``
reads the block instead, in one walk over its bytes (the same arrays, the same
lines refused): the sixty-odd array passes below were half of the command's
time (0.56 of 1.1 s on the 43,054-pair benchmark); the walk and its set-up
take 0.22 s.
"""
from __future__ import annotations

import numpy as np

from parseval.annotations.compiled import is_compiled

from .evalb import STATUS_OK, STATUS_SKIP, EvalbParams, _label_table

KEY_BYTES = 8  # a label (after the cut for a phrasal one) of more bytes goes the exact way
MAX_WORD = 64  # so does a line with a longer word
_SPAN = 4096  # word positions are packed in 12 bits: a line of more kept words goes the exact way
_COPIES = 64  # copies of one bracket (a unary chain of one label) in one line, packed in 6 bits


def usable(params: EvalbParams) -> bool:
    """True when these parameters can be scored here (otherwise the caller scores every pair its way)."""
    return not params.quote_labels and _label_table(params).canon is not None


class Tables:
    """What the parameters say, as integer keys, for one run."""

    def __init__(self, params: EvalbParams) -> None:
        self.table = _label_table(params)
        delete, delete_len = _keys(params.delete_labels), _keys(params.delete_labels_for_length)
        # one sorted table of both (a sentinel key that no tag has keeps it non-empty)
        self.special = np.union1d(np.union1d(delete, delete_len), np.array([(1 << 64) - 1], np.uint64))
        self.special_delete = np.isin(self.special, delete)
        self.special_len = np.isin(self.special, delete_len)
        pairs = {(a, b) for a, b in params.eq_labels if a != b} | {(b, a) for a, b in params.eq_labels if a != b}
        # tags equal under EQ_LABEL (tagging accuracy compares tags with evalb's label_comp)
        self.tag_eq = [(_key(a), _key(b)) for a, b in sorted(pairs) if _fits(a) and _fits(b)]
        self.canon: dict[int, int] = {}  # label key (cut) -> class number, -1 for a deleted bracket
        self.names: dict[str, int] = {}  # label the scorer compares -> class number
        self.known = np.zeros(0, np.uint64)  # the keys of canon, sorted, and their classes
        self.known_class = np.zeros(0, np.int64)

    def terminals(self, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For tag keys: kept (not in DELETE_LABEL) and counted for the length (not in
        DELETE_LABEL_FOR_LENGTH)."""
        special = self.special
        at = np.minimum(np.searchsorted(special, tags), len(special) - 1)
        hit = special[at] == tags
        return ~(hit & self.special_delete[at]), ~(hit & self.special_len[at])

    def classes(self, keys: np.ndarray) -> np.ndarray:
        """Class numbers of phrasal label keys (after the cut); -1: the bracket is deleted."""
        if len(self.known):
            at = np.minimum(np.searchsorted(self.known, keys), len(self.known) - 1)
            if (self.known[at] == keys).all():
                return self.known_class[at]
        for key in np.unique(keys).tolist():
            if key not in self.canon:
                label = key.to_bytes(KEY_BYTES, "little").rstrip(b"\0").decode("utf-8", "surrogateescape")
                compared = self.table[label]
                self.canon[key] = -1 if compared is None else self.names.setdefault(compared, len(self.names))
        self.known = np.array(sorted(self.canon), np.uint64)
        self.known_class = np.array([self.canon[key] for key in self.known.tolist()], np.int64)
        return self.known_class[np.searchsorted(self.known, keys)]


def _fits(label: str) -> bool:
    data = label.encode("utf-8", "surrogateescape")
    return len(data) <= KEY_BYTES and b"\0" not in data


def _key(label: str) -> int:
    return int.from_bytes(label.encode("utf-8", "surrogateescape").ljust(KEY_BYTES, b"\0"), "little")


def _keys(labels) -> np.ndarray:
    return np.array(sorted({_key(x) for x in labels if _fits(x)}), np.uint64)


class Block:
    """One file's lines read: per line ``good`` (this path's shape), ``length`` (evalb's r_wn1),
    ``words`` (kept words), ``indented``, ``blank`` (spaces only); per kept word its line, tag key, byte start and length; per kept
    bracket (not deleted, not empty) its line, label class, start and end; ``u64``: the eight bytes
    at every offset of the text (as little-endian integers), for comparing words."""

    __slots__ = ("good", "length", "words", "indented", "blank", "w_line", "w_tag", "w_start", "w_len", "b_line",
                 "b_class", "b_start", "b_end", "u64")


_WS = bytes.maketrans(b"\t\r\f\v", b"    ")  # evalb's C-space other than the line end: one kind of space here
_LOW = np.array([(1 << (8 * i)) - 1 for i in range(KEY_BYTES)] + [(1 << 64) - 1], np.uint64)


def read_block(lines: list[bytes], tables: Tables) -> Block:
    """Read raw lines (each with or without its ``\\n``) as evalb does; see the module doc.

    The lines are read together on the assumption that all have the common shape; the checks
    are made over the whole block, and when some line fails them, those lines are marked and
    the others read again without them (each check is about one line only)."""
    k = len(lines)
    good = np.ones(k, bool)
    while True:
        keep = np.flatnonzero(good)
        part = lines if len(keep) == k else [lines[i] for i in keep.tolist()]
        block, bad = _read(part, tables)
        if bad is None:
            break
        good[keep[bad]] = False
    if len(keep) != k:  # back to the block's line numbers
        block.w_line = keep[block.w_line]
        block.b_line = keep[block.b_line]
        for name in ("length", "words", "indented", "blank"):
            full = np.zeros(k, getattr(block, name).dtype)
            full[keep] = getattr(block, name)
            setattr(block, name, full)
    block.good = good
    return block


def _read(lines: list[bytes], tables: Tables):
    """(block, None) when every line has the common shape, else (None, numbers of the lines that do not)."""
    if SCAN:
        return _scan(lines, tables)
    return _read_arrays(lines, tables)


try:
    from . import evalb_scan
except ImportError:  # its source declares C types through Cython's pure-Python names: without Cython, no walk
    evalb_scan = None
_KINDS = bytearray(evalb_scan.KINDS) if evalb_scan is not None else None
# The one-walk reader when it runs compiled; as Python it would be slower than the array operations.
SCAN = evalb_scan is not None and is_compiled(evalb_scan)


def _scan(lines: list[bytes], tables: Tables):
    """:func:`_read_arrays` in one walk over the bytes (``parseval.evaluation.trees.evalb_scan``)."""
    k = len(lines)
    data = b"".join(lines)
    if not data.endswith(b"\n"):
        data += b"\n"
    n = len(data)
    padded = data + bytes(16)  # other C-space than the line end is not made spaces: the walk knows it
    buf = bytearray(padded)  # writable, as the compiled walk's typed view wants
    length, words = np.zeros(k, np.int64), np.zeros(k, np.int64)
    indented, blank, bad = np.zeros(k, np.uint8), np.zeros(k, np.uint8), np.zeros(k, np.uint8)
    # the walk writes without bounds checks: room for the most a block can hold, a word taking 5 bytes at
    # least ("(T w)") and a bracket one (a line of "(" is refused only at its end); counting the block's
    # brackets first would cost more than the untouched room
    most_words, most_brackets = n // 5 + 1, n + 1
    w_line, w_tag = np.empty(most_words, np.int32), np.empty(most_words, np.uint64)
    w_start, w_len = np.empty(most_words, np.int64), np.empty(most_words, np.int64)
    b_line, b_key = np.empty(most_brackets, np.int32), np.empty(most_brackets, np.uint64)
    b_start, b_end = np.empty(most_brackets, np.int64), np.empty(most_brackets, np.int64)
    nw, nb, refused = evalb_scan.scan(
        buf, _KINDS, n, tables.special, tables.special_delete.view(np.uint8), tables.special_len.view(np.uint8),
        length, words, indented, blank, bad, w_line, w_tag, w_start, w_len, b_line, b_key, b_start, b_end,
        np.empty(most_brackets, np.int64))
    if refused:
        return None, np.flatnonzero(bad)
    block = Block()
    block.u64 = np.ndarray((n + 1,), "<u8", buffer=padded, strides=(1,))  # the same bytes where words are
    block.length, block.words = length, words
    block.indented, block.blank = indented.view(bool), blank.view(bool)
    b_class = tables.classes(b_key[:nb])
    b_start, b_end = b_start[:nb], b_end[:nb]
    kept_b = (b_class >= 0) & (b_start != b_end)
    block.b_line, block.b_class = b_line[:nb][kept_b], b_class[kept_b]
    block.b_start, block.b_end = b_start[kept_b], b_end[kept_b]
    block.w_line, block.w_tag, block.w_start, block.w_len = w_line[:nw], w_tag[:nw], w_start[:nw], w_len[:nw]
    return block, None


def _read_arrays(lines: list[bytes], tables: Tables):
    """The block read with array operations (the module doc)."""
    k = len(lines)
    data = b"".join(lines)
    if not data.endswith(b"\n"):
        data += b"\n"  # the last line of a file may have no line end
    data = data.translate(_WS)
    n = len(data)
    padded = data + bytes(16)
    arr = np.frombuffer(padded, np.uint8)
    u64 = np.ndarray((n + 1,), "<u8", buffer=padded, strides=(1,))
    a = arr[:n]
    # every byte that is not a word byte, in order: the runs of word bytes are the gaps between them
    sep = np.flatnonzero((a == 32) | (a == 40) | (a == 41) | (a == 10))
    kind = a[sep]
    gap = np.diff(sep) - 1  # gap[j]: the run between sep[j] and sep[j + 1]
    is_nl = kind == 10
    lid = np.cumsum(is_nl, dtype=np.int32) - is_nl  # line of every separator
    before, after = kind[:-1], kind[1:]
    run = gap > 0
    label = run & (before == 40)
    # a word: "(" tag, one space, word, ")"
    word = np.zeros(len(gap), bool)
    word[1:] = run[1:] & (before[1:] == 32) & (after[1:] == 41) & label[:-1]
    bad_lines = [lid[1:][run & ~label & ~word]]
    if n and sep[0] != 0:
        bad_lines.append(lid[:1])  # a word before anything else
    if (a == 0).any():
        bad_lines.append(np.searchsorted(sep[is_nl], np.flatnonzero(a == 0)))

    term = np.flatnonzero(word)  # gap index of each word; its "(" is separator term - 1, its ")" term + 1
    tag_len = gap[term - 1]
    w_len = gap[term]
    t_line = lid[term]
    bad_lines.append(t_line[(tag_len > KEY_BYTES) | (w_len > MAX_WORD)])
    tag_key = u64[sep[term - 1] + 1] & _LOW[np.minimum(tag_len, KEY_BYTES)]
    kept, counted = tables.terminals(tag_key)
    terminals = np.bincount(t_line, minlength=k)
    words = np.bincount(t_line[kept], minlength=k)
    bad_lines.append(np.flatnonzero(words >= _SPAN))
    blank = terminals == 0
    if blank.any():  # a line of spaces only (a parser's failure) is read here; anything else without a word is not
        marks = np.bincount(lid[kind != 32], minlength=k) - 1 + np.bincount(lid[1:][run], minlength=k)
        bad_lines.append(np.flatnonzero(blank & (marks > 0)))

    # brackets: every "(" and ")" that is not a terminal's
    step = _STEP.take(kind)
    depth = np.cumsum(step, dtype=np.int32)
    bracket = step != 0
    bracket[term - 1] = False
    bracket[term + 1] = False
    b_open = np.flatnonzero(bracket & (step > 0))
    b_close = np.flatnonzero(bracket & (step < 0))
    # a bracket's "(" is followed, after its label and spaces, by "(": never by ")" ("(X)", "(X )") or
    # the line end; nor is it the last thing of a line: then the depth is not zero at the line end
    parens = np.flatnonzero(kind != 32)
    pk = kind[parens]
    follows = np.empty(len(sep), np.uint8)
    follows[parens[:-1]] = pk[1:]
    follows[parens[-1:]] = 0
    bad_lines.append(lid[b_open[follows[b_open] != 40]])
    if len(depth) and (depth.min() < 0 or depth[is_nl].any()):
        ends = depth[is_nl]
        start = np.concatenate(([0], ends[:-1]))
        bad_lines.append(lid[depth - start[lid] < 0])
        bad_lines.append(np.flatnonzero(ends != start))

    # phrasal labels: compared up to the first "-" or "=", eight bytes at most
    b_label = np.where(label[np.minimum(b_open, len(gap) - 1)], gap[np.minimum(b_open, len(gap) - 1)], 0)
    head = u64[sep[b_open] + 1] & _LOW[np.minimum(b_label, KEY_BYTES)]
    marks = _zero_bytes(head ^ _DASHES) | _zero_bytes(head ^ _EQUALS)
    lowest = marks & (~marks + np.uint64(1))
    first = np.frexp(lowest.astype(np.float64))[1] // 8 - 1  # byte index of the lowest mark; -1: none
    ninth = arr[sep[b_open] + 1 + KEY_BYTES]
    cut = np.where(first >= 0, first,
                   np.where((b_label > KEY_BYTES) & ((ninth == 45) | (ninth == 61)), KEY_BYTES, b_label))
    bad_lines.append(lid[b_open[cut > KEY_BYTES]])
    bad = np.concatenate(bad_lines)
    if len(bad):
        return None, np.unique(bad)

    block = Block()
    block.u64 = u64
    block.length = np.bincount(t_line[counted], minlength=k)
    block.words = words
    block.indented = arr[np.concatenate(([0], sep[is_nl][:-1] + 1))] == 32
    block.blank = blank

    # spans: kept words before each end of a bracket, in its line
    kflag = np.zeros(len(sep), np.int32)
    kflag[term[kept]] = 1
    cumk = np.cumsum(kflag, dtype=np.int32)
    base = np.concatenate(([0], cumk[is_nl][:-1]))
    # inside a level, opens and closes alternate through the whole block (every line is balanced):
    # sorting both by level (stable) pairs them
    dt = np.int16 if depth.max(initial=0) < 32000 else np.int64
    order_o = np.argsort(depth[b_open].astype(dt), kind="stable")
    o_sorted = b_open[order_o]
    c_sorted = b_close[np.argsort((depth[b_close] + 1).astype(dt), kind="stable")]
    b_line = lid[o_sorted]
    b_start = cumk[o_sorted] - base[b_line]
    b_end = cumk[c_sorted] - base[b_line]
    b_key = head[order_o] & _LOW[cut[order_o]]
    b_class = tables.classes(b_key)
    kept_b = (b_class >= 0) & (b_start != b_end)
    block.b_line, block.b_class = b_line[kept_b], b_class[kept_b]
    block.b_start, block.b_end = b_start[kept_b], b_end[kept_b]

    block.w_line = t_line[kept]
    block.w_tag = tag_key[kept]
    block.w_start = sep[term[kept]] + 1
    block.w_len = w_len[kept]
    return block, None


_STEP = np.zeros(256, np.int8)
_STEP[ord("(")], _STEP[ord(")")] = 1, -1
_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_DASHES = np.uint64(0x2D2D2D2D2D2D2D2D)
_EQUALS = np.uint64(0x3D3D3D3D3D3D3D3D)


def _zero_bytes(x: np.ndarray) -> np.ndarray:
    """The high bit of every zero byte of each integer (exact for the lowest one, which is all we use)."""
    return (x - _ONES) & ~x & _HIGHS


def score_blocks(gold: Block, test: Block, tables: Tables, pairs: int) -> list:
    """Row tuples (see ``parseval.evaluation.trees.evalb.row_dict``) of the first ``pairs`` line pairs; ``None``
    for a pair this path does not score (the caller reads and scores it the exact way)."""
    p = pairs
    if not p:
        return []
    eligible = gold.good[:p] & test.good[:p]
    g_words, t_words = gold.words[:p], test.words[:p]
    skip = eligible & (t_words == 0)
    cand = eligible & ~skip & (g_words == t_words)

    # words and tags of the candidate pairs, position by position
    gw = cand[np.minimum(gold.w_line, p - 1)] & (gold.w_line < p)
    tw = cand[np.minimum(test.w_line, p - 1)] & (test.w_line < p)
    line = gold.w_line[gw]
    g_start, g_len, g_tag = gold.w_start[gw], gold.w_len[gw], gold.w_tag[gw]
    t_start, t_len, t_tag = test.w_start[tw], test.w_len[tw], test.w_tag[tw]
    differ = g_len != t_len
    longest = int(g_len.max(initial=0))
    for offset in range(0, longest, KEY_BYTES):
        some = ~differ & (g_len > offset)
        if not some.any():
            break
        low = _LOW[np.minimum(g_len[some] - offset, KEY_BYTES)]
        differ[some] = (gold.u64[g_start[some] + offset] & low) != (test.u64[t_start[some] + offset] & low)
    mismatch = np.bincount(line[differ], minlength=p) > 0
    ok = cand & ~mismatch
    good_tag = g_tag == t_tag
    for ka, kb in tables.tag_eq:
        good_tag |= (g_tag == ka) & (t_tag == kb)
    correct = np.bincount(line[good_tag], minlength=p)

    # brackets of the scored pairs
    gb = ok[np.minimum(gold.b_line, p - 1)] & (gold.b_line < p)
    tb = ok[np.minimum(test.b_line, p - 1)] & (test.b_line < p)
    g_line, g_cls, g_s, g_e = gold.b_line[gb], gold.b_class[gb], gold.b_start[gb], gold.b_end[gb]
    t_line, t_cls, t_s, t_e = test.b_line[tb], test.b_class[tb], test.b_start[tb], test.b_end[tb]
    n_gold = np.bincount(g_line, minlength=p)
    n_test = np.bincount(t_line, minlength=p)
    classes = max(len(tables.names), 1)
    g_key = _copies(((g_line * classes + g_cls) * _SPAN + g_s) * _SPAN + g_e)
    t_key = _copies(((t_line * classes + t_cls) * _SPAN + t_s) * _SPAN + t_e)
    if g_key is None or t_key is None:  # 64 copies of one bracket: let the exact path count them
        return [None] * p
    common = t_key[_member(t_key, g_key)]
    match = np.bincount(common // (_COPIES * classes * _SPAN * _SPAN), minlength=p)

    # crossing: a test bracket whose span is no gold span, crossing some gold bracket of its line
    g_span = (g_line * _SPAN + g_s) * _SPAN + g_e
    t_span = (t_line * _SPAN + t_s) * _SPAN + t_e
    rest = ~_member(t_span, np.sort(g_span))
    r_line, r_s, r_e = t_line[rest], t_s[rest], t_e[rest]
    by_line = np.argsort(g_line, kind="stable")  # the block reader gives them in order of depth
    g_s, g_e = g_s[by_line], g_e[by_line]
    g_first = np.cumsum(n_gold) - n_gold
    reps = n_gold[r_line]
    total = int(reps.sum())
    crossing = np.zeros(p, np.int64)
    if total:
        r_of = np.repeat(np.arange(len(r_line)), reps)
        block_start = np.repeat(np.cumsum(reps) - reps, reps)
        g_of = np.repeat(g_first[r_line], reps) + (np.arange(total) - block_start)
        a, b = g_s[g_of], g_e[g_of]
        s, e = r_s[r_of], r_e[r_of]
        crosses = ((a < s) & (s < b) & (b < e)) | ((s < a) & (a < e) & (e < b))
        crossed = np.bincount(r_of[crosses], minlength=len(r_line)) > 0
        crossing = np.bincount(r_line[crossed], minlength=p)

    rows: list = [None] * p
    length = gold.length[:p].tolist()
    for i in np.flatnonzero(skip).tolist():
        rows[i] = (STATUS_SKIP, length[i], 0, 0, 0, 0, 0, 0, None)
    idx = np.flatnonzero(ok)
    for i, m, ng, nt_, c, w, t in zip(idx.tolist(), match[idx].tolist(), n_gold[idx].tolist(),
                                       n_test[idx].tolist(), crossing[idx].tolist(), g_words[idx].tolist(),
                                       correct[idx].tolist()):
        rows[i] = (STATUS_OK, length[i], m, ng, nt_, c, w, t, None)
    return rows


def _member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """For each key, whether it is in ``sorted_keys``."""
    if not len(sorted_keys):
        return np.zeros(len(keys), bool)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys


def _copies(keys: np.ndarray) -> np.ndarray | None:
    """Keys made unique by a copy number (the k-th equal bracket of a line), for a multiset intersection."""
    keys = np.sort(keys)
    if not len(keys):
        return keys
    new = np.empty(len(keys), bool)
    new[0] = True
    new[1:] = keys[1:] != keys[:-1]
    index = np.arange(len(keys))
    copy = index - np.maximum.accumulate(np.where(new, index, 0))
    if copy.max() >= _COPIES:
        return None
    return keys * _COPIES + copy
