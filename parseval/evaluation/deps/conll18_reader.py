"""Reading CoNLL-U the way the CoNLL 2018 shared task's scorer reads it.

The shared task scored a file only if its scorer could load it, and its
loader is stricter in some places and looser in others than the project's
own reader (:mod:`parseval.annotations.conllu`). To give the same figures and refuse
the same files, this reader follows the scorer's observed rules:

* Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (Python's universal
  newlines), and nothing else; the file is UTF-8 and a byte-order mark is an
  ordinary character (so a file that starts with one is refused).
* Outside a sentence, lines starting with ``#`` are comments and skipped.
  Any other line opens a sentence; an empty line closes it. So two empty
  lines in a row, or an empty line right after comments, make an empty
  sentence, which is refused (it has no root). Inside a sentence a ``#``
  line is an ordinary line, refused for its column count.
* Every other line has exactly ten tab-separated columns. An ID containing
  ``.`` is an empty node, skipped. Spaces (Unicode Zs) are removed from
  FORM; an empty FORM is refused. The FORM becomes a token on the character
  string.
* An ID containing ``-`` is a multiword token ``A-B`` (two integers); the
  next ``B - A + 1`` lines are its words, whatever their ID column says, each
  with ten columns. Their forms are kept as written, spaces included, while
  a plain word's form loses its spaces like its token (this matters where
  the word alignment compares forms: ``190 500`` written as one word in one
  file and as the first word of a multiword token in the other do not pair).
* Any other ID is a word: an integer equal to the number of words read in
  the sentence plus one, with an integer HEAD that is not negative.
* When the sentence closes, every HEAD (multiword tokens' words included)
  must be an integer between 0 and the number of words, the heads must not
  form a cycle, and exactly one word must have HEAD 0.
* The file must end with an empty line after its last sentence.
* FEATS keep only the universal features of the shared task (sorted,
  ``|``-joined, ``_`` becomes empty); DEPREL loses its subtype (``nmod:poss``
  -> ``nmod``).

Differences from the scorer: its refusals are exceptions without a place;
here every refusal is an :class:`~parseval.annotations.errors.InputError` naming file,
line and sentence (``sent_id`` or number). Where the scorer crashes instead
of refusing (a multiword token's word with a non-integer HEAD, a file that
is not UTF-8) this reader refuses with a message. The scorer also crashes on
a chain of heads deeper than Python's recursion limit (about 1,000 words);
this reader scores it.
"""
from __future__ import annotations

import gc
from bisect import bisect_right
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from parseval.annotations.errors import InputError, Problem, N_

from .alignment import Span, strip_spaces

# The shared task's lists (overview paper, section 5; the scorer's CONTENT/FUNCTIONAL sets)
CONTENT_DEPRELS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative",
    "expl", "dislocated", "advcl", "advmod", "discourse", "nmod", "appos",
    "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list",
    "parataxis", "orphan", "goeswith", "reparandum", "root", "dep",
})
FUNCTION_DEPRELS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})
UNIVERSAL_FEATURES = frozenset({
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender",
    "Animacy", "Number", "Case", "Definite", "Degree", "VerbForm", "Mood",
    "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person", "Polite",
})


class Word:
    """One syntactic word. ``start``/``end``: its token's range on the character string."""

    __slots__ = ("start", "end", "form", "lemma", "upos", "xpos", "feats", "head", "deprel",
                 "multiword", "line", "sentence", "parent", "function_children", "content", "function")

    def __init__(self, start, end, cols, multiword, line, sentence):
        self.start = start
        self.end = end
        self.form = cols[1]
        self.lemma = cols[2]
        self.upos = cols[3]
        self.xpos = cols[4]
        self.feats = universal_feats(cols[5])
        self.head = cols[6]  # the column's text until the sentence closes, then an int
        self.deprel = cols[7].split(":", 1)[0]
        self.multiword = multiword
        self.line = line
        self.sentence = sentence  # index into Treebank.sentence_names
        self.parent = -1  # index of the head word in Treebank.words, -1 for the root
        self.function_children: list[int] = []
        self.content = self.deprel in CONTENT_DEPRELS
        self.function = self.deprel in FUNCTION_DEPRELS


def universal_feats(feats: str) -> str:
    """``Gender=Fem|Number=Sing|Typo=Yes`` -> ``Gender=Fem|Number=Sing`` (``_`` -> empty)."""
    done = _FEATS.get(feats)
    if done is None:
        done = "|".join(sorted(f for f in feats.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))
        if len(_FEATS) < 100_000:  # a treebank has a few thousand distinct FEATS values
            _FEATS[feats] = done
    return done


_FEATS: dict[str, str] = {}


@dataclass
class Treebank:
    """A file on its character string: tokens, words and sentences as ranges."""

    file: str | None
    characters: str = ""
    tokens: list[Span] = field(default_factory=list)
    token_lines: list[int] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    sentences: list[Span] = field(default_factory=list)
    sentence_names: list[str] = field(default_factory=list)
    sentence_lines: list[int] = field(default_factory=list)

    def token_at(self, offset: int) -> int:
        """Index of the token holding character ``offset`` (the last token past the end)."""
        return _last_starting_at_or_before(self.tokens, offset)

    def sentence_at(self, offset: int) -> int:
        """Index of the sentence holding character ``offset``."""
        return _last_starting_at_or_before(self.sentences, offset)


def _last_starting_at_or_before(spans: list[Span], offset: int) -> int:
    return max(0, bisect_right(spans, offset, key=lambda span: span.start) - 1)


def _split_lines(text: str) -> list[str]:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text after the last line end is not a line
    return lines


def _int(text: str) -> int | None:
    """``int(text)`` as the scorer reads IDs and heads (``" 3"``, ``"+3"``, ``"03"`` are 3), or None."""
    if text.isdecimal():
        return int(text)
    try:
        return int(text)
    except ValueError:
        return None


@contextmanager
def collector_paused():
    """The cyclic garbage collector off for a while (restored as it was on the way out).

    Reading keeps two or three new container objects for every word (the word, its list of function
    children, its token's range) and nothing of it is cyclic garbage; but each of the collector's
    older-generation passes walks every object alive, so on a file of a million words the collector took
    three fifths of the reading time and a fifth of the counting's. Nested uses are harmless."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_conll18(text: str, *, file: str | None = None) -> Treebank:
    """Read CoNLL-U text with the shared task's rules (module docstring). Raises :class:`InputError`."""
    with collector_paused():
        return _parse_conll18(text, file)


def _parse_conll18(text: str, file: str | None) -> Treebank:
    tb = Treebank(file)
    lines = _split_lines(text)
    chars: list[str] = []
    pos = 0
    words = tb.words
    tokens = tb.tokens
    token_lines = tb.token_lines
    in_sentence = False
    first_word = 0  # index in words of the open sentence's first word
    sent_id = None
    name = ""
    k = 0
    n_lines = len(lines)

    def fail(message: str, line: int | None) -> InputError:
        return InputError(Problem(message, file=file, line=line, sentence=name or None))

    while k < n_lines:
        line = lines[k]
        k += 1
        if not in_sentence:
            if line.startswith("#"):
                key, sep, value = line[1:].partition("=")
                if sep and key.strip() == "sent_id":
                    sent_id = value.strip()
                continue
            in_sentence = True
            first_word = len(words)
            name = sent_id or str(len(tb.sentences) + 1)
            sent_id = None
            tb.sentences.append(Span(pos, pos))
            tb.sentence_names.append(name)
            tb.sentence_lines.append(k)
        if not line:
            _close_sentence(tb, first_word, file, name, k)
            tb.sentences[-1] = Span(tb.sentences[-1].start, pos)
            in_sentence = False
            name = ""
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            hint = " (it starts with a byte-order mark)" if k == 1 and line.startswith("\ufeff") else ""
            raise fail(f"expected 10 tab-separated columns, found {len(cols)}{hint}", k)
        ident = cols[0]
        if "." in ident:
            continue  # empty node
        form = strip_spaces(cols[1])
        if not form:
            raise fail("empty FORM (spaces only)", k)
        chars.append(form)
        start = pos
        pos += len(form)
        tokens.append(Span(start, pos))
        token_lines.append(k)
        sentence = len(tb.sentences) - 1
        if "-" in ident:
            bounds = ident.split("-")
            first = _int(bounds[0]) if len(bounds) == 2 else None
            last = _int(bounds[1]) if len(bounds) == 2 else None
            if first is None or last is None:
                raise fail(f"multiword token ID {ident!r} is not two integers A-B", k)
            for number in range(1, last - first + 2):
                word_line = lines[k] if k < n_lines else ""
                k += 1
                word_cols = word_line.split("\t")
                if len(word_cols) != 10:
                    where = "the end of the file" if k > n_lines else f"{len(word_cols)} column(s)"
                    raise fail(f"word {number} of multiword token {ident} ({cols[1]!r}) should follow "
                               f"with 10 tab-separated columns, found {where}", min(k, n_lines))
                words.append(Word(start, pos, word_cols, True, k, sentence))
        else:
            wid = _int(ident)
            if wid is None:
                raise fail(f"word ID {ident!r} is not an integer", k)
            expected = len(words) - first_word + 1
            if wid != expected:
                raise fail(f"word ID {ident!r} of {form!r} out of sequence (expected {expected})", k)
            head = _int(cols[6])
            if head is None:
                raise fail(f"HEAD {cols[6]!r} of word {ident} is not an integer", k)
            if head < 0:
                raise fail(f"HEAD {cols[6]!r} of word {ident} is negative", k)
            word = Word(start, pos, cols, False, k, sentence)
            word.form = form  # without its spaces; a multiword token's words keep theirs
            word.head = head
            words.append(word)
    if in_sentence:
        raise InputError(Problem(N_("the file does not end with an empty line after its last sentence"),
                                 file=file, line=n_lines, sentence=name))
    tb.characters = "".join(chars)
    return tb


def _close_sentence(tb: Treebank, first: int, file, name: str, line: int) -> None:
    """Resolve heads of the sentence's words (``words[first:]``); refuse range errors, cycles, not one root."""
    words = tb.words
    n = len(words) - first

    def fail(message, at):
        return InputError(Problem(message, file=file, line=at, sentence=name))

    if n == 0:
        raise fail("empty sentence (two empty lines in a row, or an empty line after comments): "
                   "it has no root", line)
    roots = 0
    for w in words[first:]:
        head = w.head
        if isinstance(head, str):
            value = _int(head)
            if value is None:
                raise fail(f"HEAD {head!r} of {w.form!r} (in a multiword token) is not an integer", w.line)
            head = w.head = value
        if head < 0 or head > n:
            raise fail(f"HEAD {head} of {w.form!r} points outside the sentence ({n} words)", w.line)
        if head == 0:
            roots += 1
        else:
            w.parent = first + head - 1
    # cycles: follow each chain until the root or a word already known to reach it
    state = [0] * n  # 0 unknown, 1 on the current chain, 2 reaches the root
    for i in range(n):
        chain = []
        j = i
        while j >= 0 and state[j] == 0:
            state[j] = 1
            chain.append(j)
            parent = words[first + j].parent
            j = parent - first if parent >= 0 else -1
        if j >= 0 and state[j] == 1:
            cycle = chain[chain.index(j):]
            ids = " -> ".join(str(c + 1) for c in cycle + cycle[:1])
            raise fail(f"cycle in the dependencies (word positions): {ids}", words[first + cycle[0]].line)
        for c in chain:
            state[c] = 2
    if roots != 1:
        raise fail(f"{roots} words have HEAD 0: a sentence must have exactly one root", line)
    for i in range(first, len(words)):
        w = words[i]
        if w.function and w.parent >= 0:
            words[w.parent].function_children.append(i)


def read_conll18(path: str | Path) -> Treebank:
    """Read a file with :func:`parse_conll18`; a file that is not UTF-8 is refused, located."""
    path = Path(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(N_('not UTF-8 text (%(reason)s at byte %(start)s)') % {"reason": exc.reason, "start": exc.start},
                         file=str(path), line=line) from None
    return parse_conll18(text, file=str(path))


def treebank_of_words(sentences, *, file: str | None = None) -> Treebank:
    """A treebank of already-read sentences (:class:`parseval.annotations.conllu.DepSentence`), word by word.

    For runs on the gold words: each syntactic word is its own token (multiword-token lines are left out
    on both sides, so a run need not repeat the gold's contractions), and nothing is refused: a HEAD
    ``_`` becomes a head no system word can match, and the reader's checks of roots and cycles do not
    apply (the project's reader has checked the file).
    """
    tb = Treebank(file)
    chars: list[str] = []
    pos = 0
    for sentence in sentences:
        first = len(tb.words)
        index = len(tb.sentences)
        tb.sentence_names.append(getattr(sentence, "name", None) or str(index + 1))
        tb.sentence_lines.append(getattr(sentence, "line", None) or 0)
        start = pos
        for w in sentence.words:
            form = strip_spaces(w.form) or "_"
            chars.append(form)
            tb.tokens.append(Span(pos, pos + len(form)))
            tb.token_lines.append(w.line or 0)
            cols = ["", w.form, w.lemma, w.upos, w.xpos, w.feats, "", w.deprel, "", ""]
            word = Word(pos, pos + len(form), cols, False, w.line or 0, index)
            word.form = form
            n = len(sentence.words)
            word.head = w.head
            word.parent = first + w.head - 1 if w.head and w.head <= n else (-1 if w.head == 0 else -3)
            tb.words.append(word)
            pos += len(form)
        tb.sentences.append(Span(start, pos))
        for i in range(first, len(tb.words)):
            w = tb.words[i]
            if w.function and w.parent >= 0:
                tb.words[w.parent].function_children.append(i)
    tb.characters = "".join(chars)
    return tb
