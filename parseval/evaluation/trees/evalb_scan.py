"""The block reader of the evalb preset as one walk over the bytes, for its compiled form.

``parseval.evaluation.trees.evalb_batch`` reads a block of lines with some
sixty array operations, each a pass over the block's bytes or separators: that
was half of the preset's time. This module reads the same block byte by byte,
once, and gives the same arrays (same values, same types, same order for the
words; the brackets, which are only counted, in the order of their opening).
It is one of the modules that ``scripts/build_compiled.py`` compiles (see
``parseval/annotations/compiled.py``); the ``cython`` names only declare C
types for the compiler and do nothing in Python. Run as Python, one byte at a
time, it would be slower than the array operations: ``evalb_batch`` uses it
only when it is compiled, and the tests run it either way against the array
reader on damaged treebank lines.

A line is refused (left to evalb's own reading, one line at a time) exactly
where the array reader refuses it; see that module's doc for the shape.
"""
from __future__ import annotations

import cython

KEY_BYTES = cython.declare(cython.long, 8)  # as evalb_batch: longer labels and words go the exact way
MAX_WORD = cython.declare(cython.long, 64)
SPAN = cython.declare(cython.long, 4096)
# what evalb's read_line sees in a byte: a word byte, C-space, "(", ")", the line end
WORD = cython.declare(cython.uchar, 0)  # C constants when compiled: compared for every byte
SPACE = cython.declare(cython.uchar, 1)
OPEN = cython.declare(cython.uchar, 2)
CLOSE = cython.declare(cython.uchar, 3)
END = cython.declare(cython.uchar, 4)
KINDS = bytes(SPACE if b in b" \t\r\f\v" else OPEN if b == 40 else CLOSE if b == 41 else END if b == 10 else WORD
              for b in range(256))


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(buf=cython.uchar[:], kinds=cython.uchar[:], n=cython.long, special=cython.ulong[:], special_delete=cython.uchar[:],
               special_len=cython.uchar[:], length=cython.long[:], words=cython.long[:], indented=cython.uchar[:],
               blank=cython.uchar[:], bad=cython.uchar[:], w_line=cython.int[:], w_tag=cython.ulong[:],
               w_start=cython.long[:], w_len=cython.long[:], b_line=cython.int[:], b_key=cython.ulong[:],
               b_start=cython.long[:], b_end=cython.long[:], stack=cython.long[:],
               i=cython.long, j=cython.long, c=cython.uchar, line=cython.int, nw=cython.long, nb=cython.long,
               sp=cython.long, terms=cython.long, kept_words=cython.long, counted=cython.long,
               refused=cython.bint, content=cython.bint, label_start=cython.long, label_len=cython.long,
               word_start=cython.long, word_len=cython.long, key=cython.ulong, v=cython.ulong, cut=cython.long,
               lo=cython.long, hi=cython.long, mid=cython.long, nspecial=cython.long, keep=cython.bint,
               count=cython.bint, any_bad=cython.bint, k=cython.long, first_word=cython.long,
               first_bracket=cython.long)
def scan(buf, kinds, n, special, special_delete, special_len, length, words, indented, blank, bad, w_line, w_tag, w_start,
         w_len, b_line, b_key, b_start, b_end, stack):
    """Read ``buf[:n]`` (lines ending with ``\\n``, 16 zero bytes after ``n``; ``kinds``: :data:`KINDS`, the
    kind of every byte) into the arrays given: per line ``length``, ``words``, ``indented``, ``blank``
    and ``bad`` (1: refused); per kept word ``w_line``, ``w_tag``, ``w_start``, ``w_len``; per bracket
    ``b_line``, ``b_key`` (its label's key after the cut), ``b_start``, ``b_end``. ``special``: the sorted
    keys of DELETE_LABEL and DELETE_LABEL_FOR_LENGTH tags, ``special_delete``/``special_len`` which.
    Returns (words, brackets, any line refused); a refused line's words and brackets are left out."""
    nspecial = special.shape[0]
    nw = 0
    nb = 0
    line = 0
    i = 0
    any_bad = False
    while i < n:  # one line
        indented[line] = kinds[buf[i]] == SPACE
        sp = 0
        terms = 0
        kept_words = 0
        counted = 0
        refused = False
        content = False
        first_word = nw
        first_bracket = nb
        while True:
            c = kinds[buf[i]]
            if c == END:
                break
            if c == SPACE:
                i += 1
                continue
            content = True
            if c == OPEN:  # a terminal "(TAG word)" or a bracket's opening
                label_start = i + 1
                j = label_start
                while kinds[buf[j]] == WORD:
                    if buf[j] == 0:
                        refused = True
                    j += 1
                label_len = j - label_start
                if label_len > 0 and kinds[buf[j]] == SPACE:
                    word_start = j + 1
                    j = word_start
                    while kinds[buf[j]] == WORD:
                        if buf[j] == 0:
                            refused = True
                        j += 1
                    word_len = j - word_start
                    if word_len > 0 and kinds[buf[j]] == CLOSE:  # a terminal
                        if label_len > KEY_BYTES or word_len > MAX_WORD:
                            refused = True
                        key = 0
                        for k in range(min(label_len, KEY_BYTES)):
                            v = buf[label_start + k]
                            key |= v << (8 * k)
                        keep = True
                        count = True
                        lo = 0
                        hi = nspecial
                        while lo < hi:
                            mid = (lo + hi) // 2
                            if special[mid] < key:
                                lo = mid + 1
                            else:
                                hi = mid
                        if lo < nspecial and special[lo] == key:
                            keep = not special_delete[lo]
                            count = not special_len[lo]
                        terms += 1
                        if count:
                            counted += 1
                        if keep:
                            w_line[nw] = line
                            w_tag[nw] = key
                            w_start[nw] = word_start
                            w_len[nw] = word_len
                            nw += 1
                            kept_words += 1
                        i = j + 1
                        continue
                # a bracket: after its label and spaces comes "(" and nothing else
                j = label_start + label_len
                while kinds[buf[j]] == SPACE:
                    j += 1
                if kinds[buf[j]] != OPEN:
                    refused = True
                    break
                cut = label_len
                for k in range(min(label_len, KEY_BYTES)):
                    if buf[label_start + k] == 45 or buf[label_start + k] == 61:  # "-" or "="
                        cut = k
                        break
                else:
                    if label_len > KEY_BYTES and (buf[label_start + KEY_BYTES] == 45
                                                  or buf[label_start + KEY_BYTES] == 61):
                        cut = KEY_BYTES
                if cut > KEY_BYTES:
                    refused = True
                    break
                key = 0
                for k in range(cut):
                    v = buf[label_start + k]
                    key |= v << (8 * k)
                b_line[nb] = line
                b_key[nb] = key
                b_start[nb] = kept_words
                stack[sp] = nb
                sp += 1
                nb += 1
                i = j
                continue
            if c == CLOSE:  # a bracket's closing
                if sp == 0:
                    refused = True
                    break
                sp -= 1
                b_end[stack[sp]] = kept_words
                i += 1
                continue
            refused = True  # word bytes anywhere else
            break
        if sp != 0 or kept_words >= SPAN or (terms == 0 and content):
            refused = True
        if refused:
            while kinds[buf[i]] != END:
                i += 1
            bad[line] = 1
            any_bad = True
            nw = first_word
            nb = first_bracket
        length[line] = counted
        words[line] = kept_words
        blank[line] = terms == 0
        i += 1
        line += 1
    return nw, nb, any_bad
