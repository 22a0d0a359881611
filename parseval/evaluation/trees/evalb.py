"""The ``evalb`` preset: PARSEVAL exactly as Sekine & Collins' evalb computes it.

Parameters come from an evalb ``.prm`` file (:func:`parse_prm`,
:func:`load_prm`); :data:`COLLINS` holds COLLINS.prm. The behaviour follows
evalb.c (version of 2003 with Mark Johnson's QUOTE_LABEL fix) bullet by bullet,
down to its reading of bytes, C-space and malformed lines; the differences are
documented in ``docs/metrics/constituency.md``: no size limits, one error
counted per bad sentence, and ``MAX_ERROR`` stops *after* printing the summary
of the sentences scored so far. :class:`EvalbRun` is evalb's main loop one pair
at a time (``parseval/evaluation/trees/evalb_files.py`` streams two files through it).

All ratios in the returned documents are fractions in [0, 1]; the text report
(:func:`format_evalb`) prints them as evalb does, in percent with two decimals.
"""
from __future__ import annotations

import operator
import os
import re
from dataclasses import dataclass, field

from parseval.annotations.errors import InputError, Problem
from parseval.annotations.trees.penn import C_SPACE, BadSentence, Forest
from parseval.annotations.trees.tree import Tree
from parseval.evaluation.signature import make_signature

STATUS_OK, STATUS_ERROR, STATUS_SKIP = 0, 1, 2
# evalb reads a line with fgets(buff, 5000, fd): at most 4,999 bytes, newline included
EVALB_LINE_BYTES = 4999
STATUS_NAMES = {STATUS_OK: "ok", STATUS_ERROR: "error", STATUS_SKIP: "skip"}
QUOTE_WORDS = frozenset({"'", '"', "/"})


@dataclass
class EvalbParams:
    """evalb's parameters. Defaults are evalb's built-in defaults (no .prm)."""

    labeled: bool = True
    delete_labels: tuple[str, ...] = ()
    delete_labels_for_length: tuple[str, ...] = ()
    quote_labels: tuple[str, ...] = ()
    eq_labels: tuple[tuple[str, str], ...] = ()
    eq_words: tuple[tuple[str, str], ...] = ()
    cutoff_len: int = 40
    max_error: int = 10
    debug: int = 0
    warnings: list[Problem] = field(default_factory=list, compare=False, repr=False)

    def signature_params(self) -> dict:
        return {
            "labeled": self.labeled,
            # space-separated: labels such as "," would clash with the list separator
            "delete": " ".join(self.delete_labels) or None,
            "delete_len": " ".join(self.delete_labels_for_length) or None,
            "quote": " ".join(self.quote_labels) or None,
            "eq_label": " ".join("=".join(p) for p in self.eq_labels) or None,
            "eq_word": " ".join("=".join(p) for p in self.eq_words) or None,
            "cutoff": self.cutoff_len,
            "max_error": self.max_error,
        }

    def as_dict(self) -> dict:
        return {
            "LABELED": int(self.labeled),
            "DELETE_LABEL": list(self.delete_labels),
            "DELETE_LABEL_FOR_LENGTH": list(self.delete_labels_for_length),
            "QUOTE_LABEL": list(self.quote_labels),
            "EQ_LABEL": [list(p) for p in self.eq_labels],
            "EQ_WORD": [list(p) for p in self.eq_words],
            "CUTOFF_LEN": self.cutoff_len,
            "MAX_ERROR": self.max_error,
        }


_NUMERIC = ("DEBUG", "MAX_ERROR", "CUTOFF_LEN", "LABELED")
_KEYWORDS = ("DEBUG", "MAX_ERROR", "CUTOFF_LEN", "LABELED", "DELETE_LABEL", "DELETE_LABEL_FOR_LENGTH",
             "QUOTE_LABEL", "EQ_LABEL", "EQ_WORD")
# what this project reads for a keyword with no value (evalb's own reading is undefined, see parse_prm)
_EMPTY_READING = {
    "DEBUG": "0", "MAX_ERROR": "0", "CUTOFF_LEN": "0", "LABELED": "0 (unlabelled)",
    "DELETE_LABEL": "an empty label (the unlabelled brackets are deleted)",
    "EQ_LABEL": "no pair (the line is skipped)", "EQ_WORD": "no pair (the line is skipped)",
}
_ATOI = re.compile(r"[ \t\n\r\f\v]*([+-]?[0-9]+)")


def _atoi(value: str) -> int:
    m = _ATOI.match(value)
    return int(m.group(1)) if m else 0


def parse_prm(text: str, *, file: str | None = None) -> EvalbParams:
    """Read an evalb parameter file the way evalb.c's ``read_parameter_file`` does.

    Lines end at ``\\n`` only; trailing C-space is cut; lines starting with
    ``#`` or shorter than 3 characters are ignored. The keyword is the line's
    first characters up to a C-space, so a line that starts with a space or a
    tab names no keyword: evalb warns "Unknown keyword" and ignores it, and so
    do we. The value is the rest of the line after the spaces. Numbers are read
    like C ``atoi`` (``MAX_ERROR 5 # five`` is 5, a non-numeric value is 0),
    with a warning when the value is not a plain integer. A keyword with no
    value is *not* something evalb defines: its keyword scan
    (``for(i=0;!isspace(buff[i]);i++)``) runs past the line's end into what
    the buffer held before (an earlier, longer line, or uninitialised memory
    on the first line), so its outcome varies by build and by file. We read
    it our own way (an empty label, 0 for a number: an empty ``DELETE_LABEL``
    deletes the unlabelled brackets) and warn, located. ``DEBUG`` is read, but
    evalb's debug tables are not printed: a non-zero ``DEBUG`` gets a warning
    saying so.
    """
    p = EvalbParams()
    delete, delete_len, quote, eq_l, eq_w = [], [], [], [], []
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw[:1] + raw[1:].rstrip(C_SPACE)  # evalb never cuts the first character
        if line.startswith("#") or len(line) < 3:
            continue
        i = 0
        while i < len(line) and line[i] not in C_SPACE:
            i += 1
        key = line[:i]
        value = line[i:].lstrip(C_SPACE)
        if not value and key in _KEYWORDS:
            p.warnings.append(Problem(f"Empty value in parameter file: evalb reads past the end of this line "
                                      f"here (what it gets depends on the build and the lines before); read "
                                      f"as {_EMPTY_READING.get(key, 'an empty label')}, this project's choice",
                                      file=file, line=lineno))
        elif not value:
            p.warnings.append(Problem("Empty value in parameter file", file=file, line=lineno))
        if key not in _KEYWORDS:
            p.warnings.append(Problem(f"Unknown keyword ({line}) in parameter file", file=file, line=lineno))
            continue
        if key in _NUMERIC:
            number = _atoi(value)
            if value and not re.fullmatch(r"[+-]?[0-9]+", value):
                p.warnings.append(Problem(f"{key} value {value!r} read as {number}, as evalb's atoi does",
                                          file=file, line=lineno))
            if key == "DEBUG":
                p.debug = number
                if number:
                    p.warnings.append(Problem(f"DEBUG {number}: evalb's debug tables are not supported; "
                                              "the report is printed without them", file=file, line=lineno))
            elif key == "MAX_ERROR":
                p.max_error = number
            elif key == "CUTOFF_LEN":
                p.cutoff_len = number
            else:
                p.labeled = number != 0
        elif key == "DELETE_LABEL":
            delete.append(value)
        elif key == "DELETE_LABEL_FOR_LENGTH":
            delete_len.append(value)
        elif key == "QUOTE_LABEL":
            quote.append(value)
        else:
            parts = _c_split(value)
            if len(parts) != 2:
                p.warnings.append(Problem(f"{key} requires two values", file=file, line=lineno))
                continue
            (eq_l if key == "EQ_LABEL" else eq_w).append((parts[0], parts[1]))
    p.delete_labels = tuple(delete)
    p.delete_labels_for_length = tuple(delete_len)
    p.quote_labels = tuple(quote)
    p.eq_labels = tuple(eq_l)
    p.eq_words = tuple(eq_w)
    return p


_C_SPLIT = re.compile(r"[ \t\n\r\f\v]+")


def _c_split(text: str) -> list[str]:
    """``str.split()`` on C-space only."""
    return [part for part in _C_SPLIT.split(text) if part]


def read_bytes_text(path) -> str:
    """A file's text the way evalb sees it: bytes, whatever the encoding.

    UTF-8 is decoded; any other byte (Latin-1 input) becomes a lone surrogate
    (``surrogateescape``), so that words compare byte for byte and write back
    unchanged. Only ASCII separators are involved, so the split into words is
    the same as on the raw bytes.
    """
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "surrogateescape")


def load_prm(path) -> EvalbParams:
    return parse_prm(read_bytes_text(path), file=os.fspath(path))


COLLINS = EvalbParams(
    labeled=True,
    delete_labels=("TOP", "-NONE-", ",", ":", "``", "''", "."),
    delete_labels_for_length=("-NONE-",),
    eq_labels=(("ADVP", "PRT"),),
    cutoff_len=40,
    max_error=10,
)


def evalb_params(value=None) -> EvalbParams:
    """The :class:`EvalbParams` for a ``params`` value of :func:`parseval.evaluation.trees.score_trees`
    (None: COLLINS.prm)."""
    if value is None:
        return COLLINS
    return value if isinstance(value, EvalbParams) else load_prm(value)


# -- one sentence ---------------------------------------------------------
class _Side:
    """One file's view of a sentence after evalb's reading (terminals, brackets, quote terms).

    ``error`` is the reading problem, if any; ``scored`` says whether evalb
    still scores the sentence (unbalanced brackets: flagged, then scored as
    read) or dies on it (a word outside a preterminal: we make it an error
    sentence with zero figures).
    """

    __slots__ = ("words", "tags", "brackets", "quotes", "length", "error", "scored", "kept", "kept_by")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.tags: list[str] = []
        self.brackets: list[list] = []  # [label, start, end], in opening order (evalb's bid)
        self.quotes: list[list] = []  # [word, tag, index, bid, open bracket ids]
        self.length = 0  # evalb's r_wn1
        self.error: str | None = None
        self.scored = True
        # the scorer's kept brackets [(label compared, start, end)] when the reader built them
        # (in closing order, with brackets left None), and the label table they were built with
        self.kept: list[tuple[str, int, int]] | None = None
        self.kept_by: _LabelCache | None = None


def _read(tree: Tree, delete: frozenset, delete_len: frozenset, quote_labels: frozenset) -> _Side:
    side = _Side()
    words, tags, brackets = side.words, side.tags, side.brackets
    stack: list[int] = []

    def walk(node: Tree) -> None:
        if node.word is not None:  # a bare word under a phrasal node (square brackets): tag ''
            if "" not in delete_len:
                side.length += 1
            words.append(node.word)
            tags.append("")
            return
        children = node.children
        if len(children) == 1 and children[0].word is not None:  # preterminal
            tag = node.label
            word = children[0].word
            if tag not in delete_len:
                side.length += 1
            if quote_labels and tag in quote_labels and word in QUOTE_WORDS:
                side.quotes.append([word, tag, len(words), len(brackets), list(stack)])
            if tag in delete:
                return
            words.append(word)
            tags.append(tag)
            return
        if type(node) is Forest:
            for child in children:
                walk(child)
            return
        bracket = [node.label, len(words), 0]
        stack.append(len(brackets))
        brackets.append(bracket)
        for child in children:
            walk(child)
        stack.pop()
        bracket[2] = len(words)

    walk(tree)
    return side


# evalb's read_line as one pattern: a terminal is "(" label, C-space, a word (possibly empty:
# "( )" is an empty word), ")" with nothing between; else "(" label opens a bracket.
# Groups: tag, separator, word | label | ")" | a word outside a terminal.
_NW = r"[^ \t\n\r\f\v()]"
_LINE_TOKEN = re.compile(rf"\(({_NW}*)([ \t\n\r\f\v]+)({_NW}*)\)|\(({_NW}*)|(\))|({_NW}+)")


def _read_line(line: str, delete: frozenset, delete_len: frozenset, quote_labels: frozenset) -> _Side:
    """evalb's own reading of one line, straight from the text (no Tree objects); never raises."""
    side = _Side()
    words: list[str] = []
    tags: list[str] = []
    brackets: list[list] = []
    stack: list[list] = []
    n = 0  # words kept so far
    length = 0
    add_word = words.append
    add_tag = tags.append
    for tag, sep, word, label, close, bare in _LINE_TOKEN.findall(line):
        if sep:
            if tag not in delete_len:
                length += 1
            if quote_labels and tag in quote_labels and word in QUOTE_WORDS:
                side.quotes.append([word, tag, n, len(brackets), _open_ids(brackets, stack)])
            if tag not in delete:
                add_word(word)
                add_tag(tag)
                n += 1
        elif close:
            if stack:
                stack.pop()[2] = n
            else:
                # evalb pops an empty stack (reading just before its array: bracket 0 in the usual
                # build), closes bracket 0 here, and later reports the line as unbalanced
                if brackets:
                    brackets[0][2] = n
                side.error = "Bracketing is unbalanced (too many close bracket)"
        elif bare:
            # evalb stops on such a line ("More than two elements in a bracket" / "Reading
            # sentence"); here the word counts with an empty tag and the sentence is an error
            if "" not in delete_len:
                length += 1
            add_word(bare)
            add_tag("")
            n += 1
            side.error = f"word {bare!r} outside a terminal bracket"
            side.scored = False
        else:
            bracket = [label, n, -1]  # an unclosed bracket keeps evalb's end -1
            brackets.append(bracket)
            stack.append(bracket)
    if stack and side.error is None:
        side.error = "Bracketing is unbalanced (too many open bracket)"
    side.words = words
    side.tags = tags
    side.brackets = brackets
    side.length = length
    return side


def _open_ids(brackets: list, stack: list) -> list[int]:
    open_now = {id(b) for b in stack}
    return [k for k, b in enumerate(brackets) if id(b) in open_now]


def long_line_problem(file: str | None, line: int) -> Problem:
    """The warning for a line evalb's fgets would cut in two (the rest read as the next sentence)."""
    return Problem(
        f"line longer than {EVALB_LINE_BYTES:,} bytes with its newline: evalb's fgets reads it in pieces, the rest "
        "as the next sentence, so that every later pair shifts; scored here as one sentence",
        file=file, line=line, sentence=str(line),
    )


class EvalbLines(list):
    """The sentences of a text read by :func:`read_evalb_text`, and the numbers of its lines longer than
    evalb's buffer (:data:`EVALB_LINE_BYTES`), which :func:`score_evalb` warns about."""

    long_lines: tuple[int, ...] = ()


def _long_lines(lines: list[str], last_has_newline: bool) -> tuple[int, ...]:
    out = []
    for number, line in enumerate(lines, 1):
        # a line of fewer characters than a quarter of the buffer cannot reach it: no need to encode it
        if len(line) * 4 + 1 > EVALB_LINE_BYTES:
            size = len(line.encode("utf-8", "surrogateescape")) + (number < len(lines) or last_has_newline)
            if size > EVALB_LINE_BYTES:
                out.append(number)
    return tuple(out)


def read_evalb_text(text: str, params: EvalbParams | None = None, *, file: str | None = None,
                    lenient: bool = True) -> list:
    """evalb's reading of a whole text, one pre-read sentence per line (see :func:`read_evalb_lines`).

    The result goes to :func:`score_evalb` like trees read by ``parse_penn_lines``.
    An empty text gives no sentence (refusing an empty gold file is the caller's choice).
    A malformed line is read as evalb reads it and scored as evalb scores it
    (an error sentence); with ``lenient=False`` it raises :class:`InputError`.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # no line at all (a 0-byte test file) is no sentence, as evalb's fgets reads it
    out = EvalbLines(read_evalb_lines(lines, params))
    out.long_lines = _long_lines(lines, text.endswith("\n"))
    if not lenient:
        for lineno, side in enumerate(out, 1):
            if side.error:
                raise InputError(side.error, file=file, line=lineno, sentence=str(lineno))
    return out


def read_evalb_lines(lines, params: EvalbParams | None = None, layout=None):
    """Lazily read lines (an iterable of str, e.g. an open file) into evalb's sentences.

    ``layout``, an :class:`parseval.annotations.trees.detect.LayoutCounter`, counts the
    lines as they go by, so that the caller can confirm at the end that the
    file was in line layout without a pass of its own over every character.
    """
    p = params or EvalbParams()
    delete = frozenset(p.delete_labels)
    delete_len = frozenset(p.delete_labels_for_length)
    quote = frozenset(p.quote_labels)
    if quote:
        for line in lines:
            if layout is not None:
                layout.add(line)
            yield _read_line(line, delete, delete_len, quote)
        return
    special = delete | delete_len
    table = _label_table(p)
    kept = table if table.canon is not None else None  # else evalb's matching order needs the brackets
    if layout is None:
        for line in lines:
            yield _read_plain(line, delete, delete_len, special, kept) or _read_line(line, delete, delete_len, quote)
        return
    for line in lines:
        side = _read_plain(line, delete, delete_len, special, kept)
        if side is not None:  # one well-formed tree: balanced, never closing more than it opened
            layout.add_balanced(line)
            yield side
        else:
            layout.add(line)
            yield _read_line(line, delete, delete_len, quote)


def line_reader(params: EvalbParams | None = None):
    """A function reading one line as :func:`read_evalb_lines` reads each of its lines."""
    p = params or EvalbParams()
    delete = frozenset(p.delete_labels)
    delete_len = frozenset(p.delete_labels_for_length)
    quote = frozenset(p.quote_labels)
    special = delete | delete_len
    table = _label_table(p)
    kept = table if table.canon is not None else None

    def read(line: str) -> _Side:
        if not quote:
            side = _read_plain(line, delete, delete_len, special, kept)
            if side is not None:
                return side
        return _read_line(line, delete, delete_len, quote)

    return read


_TO_SPACE = str.maketrans("\t\n\r\f\v", "     ")


def _read_plain(line: str, delete: frozenset, delete_len: frozenset, special: frozenset | None = None,
                kept: _LabelCache | None = None) -> _Side | None:
    """:func:`_read_line` for a well-formed line without QUOTE_LABEL, with str methods only.

    Cut before every "(": each piece is a bracket's label (``S`` or ``S ``) or a terminal, label,
    space, word and closing brackets (``NN cat)) ``), so one piece is one step. The checks that
    make the line plain are counts over the whole line, made once at the end rather than per
    piece: as many ")" as "(" (so no ")" hides in a label), a space before every "(" but the
    first and one more per terminal and no other (so no space inside a word, "(X a b)", none
    before a ")", "(X a )"). Anything unusual, a word outside a terminal, "(X)", unbalanced
    brackets, returns None and the line goes to :func:`_read_line`. Both give the same sentence
    for every line they both read (tested on the PTB sample and Sequoia, damaged or not).
    ``special`` is ``delete | delete_len`` (computed once by the caller). With ``kept``, a label
    table whose matching ignores bracket order (:func:`_label_table`, disjoint EQ_LABEL pairs), the
    scorer's kept brackets are built here as each bracket closes and ``brackets`` is left None.
    """
    if "\t" in line or "\r" in line or "\f" in line or "\v" in line or "\n" in line:
        line = line.translate(_TO_SPACE)
    if line[:1] != "(":
        line = line.lstrip(" ")
    # a space after the last piece too, so that every terminal piece ends with its ")"s and one space
    pieces = (line + " ").split("(")
    if pieces[0] or len(pieces) < 2:
        return None  # a word before the first bracket, or no bracket
    if special is None:
        special = delete | delete_len
    words: list[str] = []
    tags: list[str] = []
    brackets: list[tuple] = []
    stack: list[tuple] = []  # open brackets: (label, start, index in brackets)
    add_word, add_tag, add_bracket, push, pop = words.append, tags.append, brackets.append, stack.append, stack.pop
    n = 0  # words kept so far
    uncounted = 0  # terminals left out of the length
    opened = 0
    try:
        for piece in pieces[1:]:
            label, _, rest = piece.partition(" ")
            if not rest:  # a bracket's label
                push((label, n, opened))
                opened += 1
                continue
            word = rest.rstrip(" )")
            if ")" in word:
                return None  # "(X a)b)"
            if label in special:
                if label in delete_len:
                    uncounted += 1
                if label not in delete:
                    add_word(word)
                    add_tag(label)
                    n += 1
            else:
                add_word(word)
                add_tag(label)
                n += 1
            closes = len(rest) - len(word) - 1  # the ")"s (a space too many is caught below)
            if closes != 1:
                if closes < 1:
                    return None  # "(NP  (DT a))"
                if kept is None:
                    for _ in range(closes - 1):
                        add_bracket(pop() + (n,))
                else:
                    for _ in range(closes - 1):
                        label, start, _ = pop()
                        if start != n:
                            cut = kept[label]
                            if cut is not None:
                                add_bracket((cut, start, n))
    except IndexError:  # a ")" with no bracket open
        return None
    count = len(pieces) - 1
    terminals = count - opened
    if stack or line.count(")") != count or line.count(" ") != count - 1 + terminals or line.count(" (") != count - 1:
        return None
    side = _Side()
    side.words = words
    side.tags = tags
    side.length = terminals - uncounted
    if kept is None:
        # closing order -> opening order (evalb's bracket ids), as [label, start, end]
        side.brackets = [[label, start, end] for label, start, _, end in sorted(brackets, key=_third)]
    else:
        side.brackets = None
        side.kept = brackets
        side.kept_by = kept
    return side


def _third(item: tuple) -> int:
    return item[2]


def _reinsert(side: _Side, quote: list) -> None:
    word, tag, index, bid, open_ids = quote
    side.words.insert(index, word)
    side.tags.insert(index, tag)
    for k in range(bid, len(side.brackets)):
        side.brackets[k][1] += 1
        side.brackets[k][2] += 1
    for k in open_ids:
        side.brackets[k][2] += 1


def _fix_quote(gold: _Side, test: _Side, delete: frozenset) -> None:
    """evalb's fix_quote: re-insert a quote-like word deleted on one side only.

    As in evalb.c, the test quote's index is saved before the inner loop and
    every gold quote is compared with that saved index, although re-inserting
    the test quote moves its live index.
    """
    for i, tq in enumerate(test.quotes):
        index = tq[2]
        for j, gq in enumerate(gold.quotes):
            if gq[2] == index and gq[1] != tq[1]:
                if gq[1] in delete and tq[1] not in delete:
                    _reinsert(gold, gq)
                    for later in gold.quotes[j:]:
                        later[2] += 1
                elif tq[1] in delete and gq[1] not in delete:
                    _reinsert(test, tq)
                    for later in test.quotes[i:]:
                        later[2] += 1


def _cut(label: str) -> str:
    for i, ch in enumerate(label):
        if ch == "-" or ch == "=":
            return label[:i]
    return label


def _canonical_classes(pairs) -> dict[str, str] | None:
    """label -> one representative when EQ_LABEL pairs are disjoint (then equality is an
    equivalence and brackets can be matched as a multiset); None when a label is in two pairs."""
    partner: dict[str, str] = {}
    for a, b in pairs:
        if a == b:
            continue
        for x, y in ((a, b), (b, a)):
            if partner.get(x, y) != y:
                return None
            partner[x] = y
    return {a: min(a, b) for a, b in partner.items()}


class _LabelCache(dict):
    """label -> the label a kept bracket is compared under (function tags cut), or None when the
    bracket is deleted; computed on first use. One table per (LABELED, DELETE_LABEL, EQ_LABEL),
    shared by the reader and the scorer through :func:`_label_table`."""

    def __init__(self, labeled: bool, delete: tuple, eq_labels: tuple) -> None:
        super().__init__()
        pairs = set(eq_labels) | {(b, a) for a, b in eq_labels}
        # a phrasal label is deleted when label_comp(label, D) holds for some DELETE_LABEL D
        self.delete_phrasal = frozenset(delete) | {a for a, b in pairs if b in delete}
        self.labeled = labeled
        # label -> representative when EQ_LABEL pairs are disjoint; None when bracket order matters
        self.canon = _canonical_classes(eq_labels) if labeled else {}

    def __missing__(self, label: str):
        cut = _cut(label)
        if cut in self.delete_phrasal:
            value = None
        elif not self.labeled:
            value = ""
        elif self.canon is not None:
            value = self.canon.get(cut, cut)
        else:
            value = cut
        self[label] = value
        return value


_LABEL_TABLES: dict[tuple, _LabelCache] = {}


def _label_table(p: EvalbParams) -> _LabelCache:
    key = (p.labeled, tuple(p.delete_labels), tuple(tuple(pair) for pair in p.eq_labels))
    table = _LABEL_TABLES.get(key)
    if table is None:
        table = _LABEL_TABLES[key] = _LabelCache(*key)
    return table


# a row: (status, length, matched, gold brackets, test brackets, crossing, words, correct tags, message)
_ZERO = (0, 0, 0, 0, 0, 0)


class EvalbScorer:
    """Scores sentence pairs with fixed parameters (tables precomputed once)."""

    def __init__(self, params: EvalbParams | None = None) -> None:
        self.params = p = params or EvalbParams()
        self.delete = frozenset(p.delete_labels)
        self.delete_len = frozenset(p.delete_labels_for_length)
        self.quote_labels = frozenset(p.quote_labels)
        self.eq_labels = frozenset(p.eq_labels) | frozenset((b, a) for a, b in p.eq_labels)
        self.eq_words = frozenset(p.eq_words) | frozenset((b, a) for a, b in p.eq_words)
        self._kept_cache = table = _label_table(p)
        self.delete_phrasal = table.delete_phrasal
        self._canon = table.canon
        self._tag_eq = frozenset((a, b) for a, b in self.eq_labels if a != b)
        self._tag_eq_firsts = frozenset(a for a, _ in self._tag_eq)  # skip the pair test when no tag is one

    def label_eq(self, a: str, b: str) -> bool:
        return a == b or (a, b) in self.eq_labels

    def side(self, item) -> _Side | None:
        """A tree, a pre-read sentence or a ``BadSentence`` as evalb's structures (None for the last)."""
        if item is None or isinstance(item, BadSentence):
            return None
        if type(item) is _Side:
            return item
        return _read(item, self.delete, self.delete_len, self.quote_labels)

    def sentence(self, gold, test) -> dict:
        """One sentence pair -> evalb's per-sentence figures (ratios as fractions)."""
        return row_dict(self.pair(gold, test))

    def pair(self, gold, test) -> tuple:
        """One sentence pair -> a row tuple (see :func:`row_dict`)."""
        g = gold if type(gold) is _Side else self.side(gold)
        if g is None:
            message = gold.problem.message if gold is not None else "missing gold sentence"
            return (STATUS_ERROR, 0, *_ZERO, message)
        t = test if type(test) is _Side else self.side(test)
        if t is None:
            message = test.problem.message if test is not None else "missing test sentence"
            return (STATUS_ERROR, g.length, *_ZERO, message)
        # evalb.c calc_result: reading problems flag the sentence; an empty test line is a skip all the same
        if not t.words:
            return (STATUS_SKIP, g.length, *_ZERO, None)
        if not (g.scored and t.scored):
            return (STATUS_ERROR, g.length, *_ZERO, g.error if not g.scored else t.error)
        if len(g.words) != len(t.words):
            if self.quote_labels and (g.quotes or t.quotes):
                _fix_quote(g, t, self.delete)
            if len(g.words) != len(t.words):
                return (STATUS_ERROR, g.length, *_ZERO, f"Length unmatch ({len(g.words)}|{len(t.words)})")
        if g.words != t.words:
            eq_words = self.eq_words
            for a, b in zip(g.words, t.words):
                if a != b and (a, b) not in eq_words:
                    return (STATUS_ERROR, g.length, *_ZERO, f"Words unmatch ({a}|{b})")
        status, message = STATUS_OK, None
        if g.error or t.error:
            status, message = STATUS_ERROR, g.error or t.error
        return (status, g.length, *self._score(g, t), message)

    def _kept(self, side: _Side) -> list[tuple[str, int, int]]:
        cache = self._kept_cache
        if side.kept_by is cache:  # built by the reader, in closing order (the order does not matter here)
            return side.kept
        return [(cut, s, e) for label, s, e in side.brackets if s != e and (cut := cache[label]) is not None]

    def _score(self, g: _Side, t: _Side) -> tuple:
        gold = self._kept(g)
        test = self._kept(t)
        if gold == test:
            match = len(gold)
        elif self._canon is not None:  # labels compared by equality: a multiset intersection
            gold_set, test_set = set(gold), set(test)
            if len(gold_set) == len(gold) and len(test_set) == len(test):
                match = len(gold_set & test_set)
            else:  # a unary chain repeats a bracket: count copies
                counts: dict = {}
                for b in test:
                    counts[b] = counts.get(b, 0) + 1
                match = 0
                for b in gold:
                    k = counts.get(b)
                    if k:
                        counts[b] = k - 1
                        match += 1
        else:  # evalb's order: each gold bracket takes the first free test bracket that fits
            eq = self.eq_labels
            by_span: dict[tuple[int, int], list[str]] = {}
            for label, s, e in test:
                by_span.setdefault((s, e), []).append(label)
            match = 0
            for label, s, e in gold:
                cands = by_span.get((s, e))
                if cands:
                    for k, other in enumerate(cands):
                        if other == label or (other, label) in eq:
                            del cands[k]
                            match += 1
                            break
        # crossing: test brackets crossing at least one gold bracket. Closed gold brackets come from
        # one tree and never cross each other (an unclosed one, end -1, crosses nothing), so a test
        # span equal to a gold span crosses nothing.
        crossing = 0
        if gold != test:
            gold_spans = {(s, e) for _, s, e in gold}
            for _, s, e in test:
                if (s, e) in gold_spans:
                    continue
                for _, a, b in gold:
                    if (a < s < b < e) or (s < a < e < b):
                        crossing += 1
                        break
        gt, tt = g.tags, t.tags
        if gt == tt:
            correct = len(gt)
        else:
            correct = sum(map(operator.eq, gt, tt))
            if self._tag_eq and not self._tag_eq_firsts.isdisjoint(gt):
                correct += sum(map(self._tag_eq.__contains__, zip(gt, tt)))
        return match, len(gold), len(test), crossing, len(g.words), correct


def row_dict(row: tuple, index: int | None = None) -> dict:
    """A row tuple as the JSON document's sentence entry (ratios as fractions)."""
    status, length, match, gb, tb, crossing, words, correct, message = row
    out = {} if index is None else {"index": index}
    out.update(
        length=length, status=STATUS_NAMES[status],
        recall=match / gb if gb else 0.0, precision=match / tb if tb else 0.0,
        matched=match, gold_brackets=gb, test_brackets=tb, crossing=crossing,
        words=words, correct_tags=correct, tagging_accuracy=correct / words if words else 0.0,
    )
    if message is not None:
        out["message"] = message
    return out


# -- a corpus ---------------------------------------------------------------
_BLOCK_KEYS = ("sentences", "errors", "skipped", "valid", "matched", "gold_brackets", "test_brackets",
               "crossing", "words", "correct_tags", "complete", "no_crossing_count", "two_or_less_count")


def _block() -> list[int]:
    return [0] * len(_BLOCK_KEYS)


def _add(block: list[int], row: tuple, also: list[int] | None = None) -> None:
    """Add a row to a block of counts (and to a second block, the cutoff one, when given)."""
    status, _, match, gb, tb, crossing, words, correct, _ = row
    if status == STATUS_OK:
        delta = (1, 0, 0, 1, match, gb, tb, crossing, words, correct, gb == tb == match, crossing == 0, crossing <= 2)
    elif status == STATUS_ERROR:
        delta = _ERROR_DELTA
    else:
        delta = _SKIP_DELTA
    block[:] = map(operator.add, block, delta)
    if also is not None:
        also[:] = map(operator.add, also, delta)


_ERROR_DELTA = (1, 1) + (0,) * 11
_SKIP_DELTA = (1, 0, 1) + (0,) * 10


def _finish(counts: list[int]) -> dict:
    block = dict(zip(_BLOCK_KEYS, counts))
    valid = block["valid"]
    r = block["matched"] / block["gold_brackets"] if block["gold_brackets"] else 0.0
    p = block["matched"] / block["test_brackets"] if block["test_brackets"] else 0.0
    block.update(
        recall=r,
        precision=p,
        f=2 * p * r / (p + r) if p + r else 0.0,
        exact_match=block["complete"] / valid if valid else 0.0,
        avg_crossing=block["crossing"] / valid if valid else 0.0,
        no_crossing=block["no_crossing_count"] / valid if valid else 0.0,
        two_or_less_crossing=block["two_or_less_count"] / valid if valid else 0.0,
        tagging_accuracy=block["correct_tags"] / block["words"] if block["words"] else 0.0,
    )
    return block


class EvalbRun:
    """evalb's main loop, one pair at a time: totals, MAX_ERROR, the line-count check.

    Feed pairs with :meth:`add` (returns the row tuple), then call
    :meth:`finish` with what is left of either file. Nothing is kept per
    sentence, so memory stays flat however long the files are.
    """

    def __init__(self, params: EvalbParams | None = None, *, on_error: str = "skip",
                 gold_file: str | None = None, test_file: str | None = None, metric: str = "evalb") -> None:
        if on_error not in ("skip", "raise"):
            raise ValueError("on_error must be 'skip' or 'raise'")
        self.scorer = EvalbScorer(params)
        self.params = self.scorer.params
        self.on_error = on_error
        self.metric = metric  # the registry's name the document answers to (evalb-unlabelled is evalb's run)
        self.gold_file, self.test_file = gold_file, test_file
        self.all, self.cut = _block(), _block()
        self.errors = 0
        self.count = 0
        self.stopped: dict | None = None
        self.problems: list[dict] = [w.as_dict() for w in self.params.warnings]

    def add(self, gold, test, *, gold_line: int | None = None, test_line: int | None = None) -> tuple:
        row = self.scorer.pair(gold, test)
        self.count += 1
        index = self.count
        if row[0] == STATUS_ERROR:
            if self.on_error == "raise":
                message = row[8]
                bad_gold = isinstance(gold, BadSentence) or (type(gold) is _Side and gold.error == message)
                raise InputError(
                    message, file=self.gold_file if bad_gold else self.test_file,
                    line=(gold_line if bad_gold else test_line) or index, sentence=str(index),
                )
            self.errors += 1
        _add(self.all, row, self.cut if row[1] <= self.params.cutoff_len else None)
        if row[0] == STATUS_ERROR:
            self._check_max_error(f"stopped at sentence {index}")
        return row

    def add_scored(self, rows: list[tuple]) -> None:
        """Count pairs scored elsewhere (``parseval.evaluation.trees.evalb_batch``: status ok or skip only)."""
        self.count += len(rows)
        cutoff = self.params.cutoff_len
        for block, chosen in ((self.all, rows), (self.cut, [r for r in rows if r[1] <= cutoff])):
            ok = [r for r in chosen if r[0] == STATUS_OK]
            if not ok:
                block[:] = map(operator.add, block, (len(chosen), 0, len(chosen)) + (0,) * 10)
                continue
            _, _, match, gold, test, crossing, words, correct, _ = zip(*ok)
            complete = sum(m == g == t for m, g, t in zip(match, gold, test))
            delta = (len(chosen), 0, len(chosen) - len(ok), len(ok), sum(match), sum(gold), sum(test), sum(crossing),
                     sum(words), sum(correct), complete, crossing.count(0), sum(c <= 2 for c in crossing))
            block[:] = map(operator.add, block, delta)

    def _check_max_error(self, where: str) -> None:
        # evalb.c Error(): exit when Error_count++ > Max_error, i.e. at error number MAX_ERROR + 2:
        # MAX_ERROR 10 tolerates 11 errors
        if self.errors > self.params.max_error + 1 and self.stopped is None:
            self.stopped = {
                "index": self.count,
                "message": (
                    f"{where}: {self.errors} errors, more than MAX_ERROR={self.params.max_error} + 1 "
                    f"(evalb stops there); the summary covers sentences 1-{self.count}"
                ),
            }

    def finish(self, *, extra: str | None = None, n_gold: int | None = None, n_test: int | None = None,
               line: int | None = None) -> dict:
        """The summary; ``extra`` = ``"gold"`` or ``"test"`` when that file has lines left over."""
        if extra and self.stopped is None:
            shorter = self.count
            more_gold = extra == "gold"
            counts = f"{n_gold} in gold, {n_test} in test" if n_gold is not None and n_test is not None else None
            message = "different numbers of sentences" + (f": {counts}" if counts else "") + (
                f" (too many lines in {extra} file)")
            # the file that has the extra lines, at its first extra line (where evalb reports it)
            problem = Problem(
                message, file=self.gold_file if more_gold else self.test_file,
                line=line if line is not None else shorter + 1, sentence=str(shorter + 1),
            )
            if self.on_error == "raise":
                raise InputError(problem)
            self.problems.append(problem.as_dict())
            self.errors += 1  # evalb counts it as an error too
            self._check_max_error("after the last pair")
        summary = {"all": _finish(self.all), "cutoff": _finish(self.cut), "cutoff_len": self.params.cutoff_len}
        if self.stopped:
            summary["stopped"] = self.stopped
        if self.problems:
            summary["problems"] = self.problems
        return summary

    def head(self) -> dict:
        p = self.params
        return {
            "metric": self.metric,
            "signature": make_signature("evalb", **p.signature_params(), errors=self.on_error),
            "params": p.as_dict(),
        }


def score_evalb(
    gold_trees: list,
    test_trees: list,
    params: EvalbParams | None = None,
    *,
    on_error: str = "skip",
    gold_file: str | None = None,
    test_file: str | None = None,
    gold_lines: list[int] | None = None,
    test_lines: list[int] | None = None,
    metric: str = "evalb",
) -> dict:
    """Score paired sentences; returns the JSON document (see the module doc).

    ``on_error="skip"`` is evalb's behaviour: a pair whose words differ, or a
    malformed sentence, is listed with status ``error`` and left out of the
    totals; more than ``MAX_ERROR`` + 1 of them stop the run
    (``summary["stopped"]`` says where). ``on_error="raise"`` raises
    :class:`InputError` (file, line, sentence) at the first such pair, and
    also when the two sides have different numbers of sentences.
    """
    run = EvalbRun(params, on_error=on_error, gold_file=gold_file, test_file=test_file, metric=metric)
    for sentences, name in ((gold_trees, gold_file), (test_trees, test_file)):
        run.problems.extend(long_line_problem(name, n).as_dict() for n in getattr(sentences, "long_lines", ()))
    n = min(len(gold_trees), len(test_trees))
    if len(gold_trees) != len(test_trees) and on_error == "raise":
        _count_mismatch(run, gold_trees, test_trees, gold_lines, test_lines)
    rows = []
    for i in range(n):
        row = run.add(gold_trees[i], test_trees[i], gold_line=gold_lines[i] if gold_lines else None,
                      test_line=test_lines[i] if test_lines else None)
        rows.append(row_dict(row, i + 1))
        if run.stopped:
            break
    summary = _count_mismatch(run, gold_trees, test_trees, gold_lines, test_lines)
    return {**run.head(), "sentences": rows, "summary": summary}


def _count_mismatch(run: EvalbRun, gold: list, test: list, gold_lines, test_lines) -> dict:
    if len(gold) == len(test):
        return run.finish()
    extra = "gold" if len(gold) > len(test) else "test"
    lines = gold_lines if extra == "gold" else test_lines
    n = min(len(gold), len(test))
    return run.finish(extra=extra, n_gold=len(gold), n_test=len(test), line=lines[n] if lines else n + 1)


_CODES = {"ok": STATUS_OK, "error": STATUS_ERROR, "skip": STATUS_SKIP}
HEADER = (
    "  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
    " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
    "============================================================================\n"
)


def _pct(num: int, den: int) -> float:  # evalb's expression, so that rounding is identical
    return 100.0 * num / den if den else 0.0


def format_row(index: int, row: tuple) -> str:
    """evalb's per-sentence line for a row tuple (percentages computed as in _pct, inlined)."""
    status, length, match, gb, tb, crossing, words, correct, _ = row
    return "%4d  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f\n" % (
        index, length, status, 100.0 * match / gb if gb else 0.0, 100.0 * match / tb if tb else 0.0,
        match, gb, tb, crossing, words, correct, 100.0 * correct / words if words else 0.0)


def format_summary(summary: dict) -> str:
    """evalb's totals line and summary blocks."""
    out = ["============================================================================\n"]
    a = summary["all"]
    if a["gold_brackets"] > 0 and a["test_brackets"] > 0:
        out.append(
            "                %6.2f %6.2f %6d %5d %5d  %5d"
            % (_pct(a["matched"], a["gold_brackets"]), _pct(a["matched"], a["test_brackets"]), a["matched"],
               a["gold_brackets"], a["test_brackets"], a["crossing"])
        )
    out.append("  %5d %5d   %6.2f" % (a["words"], a["correct_tags"], _pct(a["correct_tags"], a["words"])))
    out.append("\n=== Summary ===\n")
    for title, block in (("All", a), ("len<=%d" % summary["cutoff_len"], summary["cutoff"])):
        valid = block["valid"]
        r = _pct(block["matched"], block["gold_brackets"])
        p = _pct(block["matched"], block["test_brackets"])
        f = 2 * p * r / (p + r) if p + r else 0.0  # evalb prints nan here; we print 0.00
        out.append("\n-- %s --\n" % title)
        out.append("Number of sentence        = %6d\n" % block["sentences"])
        out.append("Number of Error sentence  = %6d\n" % block["errors"])
        out.append("Number of Skip  sentence  = %6d\n" % block["skipped"])
        out.append("Number of Valid sentence  = %6d\n" % valid)
        out.append("Bracketing Recall         = %6.2f\n" % r)
        out.append("Bracketing Precision      = %6.2f\n" % p)
        out.append("Bracketing FMeasure       = %6.2f\n" % f)
        out.append("Complete match            = %6.2f\n" % _pct(block["complete"], valid))
        out.append("Average crossing          = %6.2f\n" % (1.0 * block["crossing"] / valid if valid else 0.0))
        out.append("No crossing               = %6.2f\n" % _pct(block["no_crossing_count"], valid))
        out.append("2 or less crossing        = %6.2f\n" % _pct(block["two_or_less_count"], valid))
        out.append("Tagging accuracy          = %6.2f\n" % _pct(block["correct_tags"], block["words"]))
    return "".join(out)


def format_evalb(doc: dict) -> str:
    """evalb's text report (per-sentence table, totals line, summary blocks)."""
    out = [HEADER]
    for r in doc["sentences"]:
        row = (_CODES[r["status"]], r["length"], r["matched"], r["gold_brackets"], r["test_brackets"],
               r["crossing"], r["words"], r["correct_tags"], None)
        out.append(format_row(r["index"], row))
    out.append(format_summary(doc["summary"]))
    return "".join(out)
