"""CoNLL-U and CoNLL-X dependency files.

Both formats have one word per line in ten tab-separated columns and a blank
line after each sentence; ``#`` lines are comments (CoNLL-U). The columns are
read by position, so the two formats share one reader:

=====  =========  ==========
col    CoNLL-U    CoNLL-X
=====  =========  ==========
1      ID         ID
2      FORM       FORM
3      LEMMA      LEMMA
4      UPOS       CPOSTAG
5      XPOS       POSTAG
6      FEATS      FEATS
7      HEAD       HEAD
8      DEPREL     DEPREL
9      DEPS       PHEAD
10     MISC       PDEPREL
=====  =========  ==========

What counts as a *word* (the unit scored by the dependency metrics): a line
whose ID is a single integer. Multiword-token lines (``1-2``, the surface
form of a contraction such as French *du* = *de le*) and empty nodes
(``1.1``, enhanced-UD ellipsis) are kept for writing back but are not words.

Word IDs must run 1, 2, ... n in each sentence. HEAD must be an integer in
0..n (0 = root) or ``_`` (the word is *unattached*: it contributes no
dependency; parsers that give up on a word write this). Cycles (a word that
is its own ancestor) are an error unless ``check_cycles=False``. Every error
names the file, the line and the sentence (``sent_id`` when there is one,
otherwise its 1-based number).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError, Problem, N_

_RANGE = re.compile(r"^(\d+)-(\d+)$")
_EMPTY = re.compile(r"^(\d+)\.(\d+)$")
_INT = re.compile(r"^\d+$")


@dataclass
class Word:
    id: int
    form: str
    lemma: str = "_"
    upos: str = "_"
    xpos: str = "_"
    feats: str = "_"
    head: int | None = None  # None: unattached ("_")
    deprel: str = "_"
    deps: str = "_"
    misc: str = "_"
    line: int | None = None

    def columns(self) -> list[str]:
        return [
            str(self.id), self.form, self.lemma, self.upos, self.xpos, self.feats,
            "_" if self.head is None else str(self.head), self.deprel, self.deps, self.misc,
        ]


@dataclass
class DepSentence:
    words: list[Word] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)  # without the leading "# "
    # multiword-token and empty-node lines, kept verbatim with the position
    # (number of words before them) where they appeared, for writing back
    extra: list[tuple[int, str]] = field(default_factory=list)
    file: str | None = None
    line: int | None = None  # line of the first row of the sentence
    index: int = 0  # 1-based position in its file

    @property
    def sent_id(self) -> str | None:
        for c in self.comments:
            key, sep, value = c.partition("=")
            if sep and key.strip() == "sent_id":
                return value.strip()
        return None

    @property
    def name(self) -> str:
        return self.sent_id or str(self.index)

    def heads(self) -> list[int | None]:
        return [w.head for w in self.words]

    def __len__(self) -> int:
        return len(self.words)


def parse_conllu(text: str, *, file: str | None = None, check_cycles: bool = True) -> list[DepSentence]:
    """Parse CoNLL-U or CoNLL-X text into sentences. Raises :class:`InputError`."""
    sentences: list[DepSentence] = []
    problems: list[Problem] = []
    current = DepSentence(file=file)

    def finish() -> None:
        nonlocal current
        if current.words or current.extra:
            current.index = len(sentences) + 1
            problems.extend(_check_sentence(current, check_cycles))
            sentences.append(current)
        current = DepSentence(file=file)

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            finish()
            continue
        if line.startswith("#") and not current.words and not current.extra:
            current.comments.append(line[1:].strip())
            continue
        if current.line is None:
            current.line = lineno
        cols = line.split("\t")
        where = dict(file=file, line=lineno, sentence=current.sent_id or str(len(sentences) + 1))
        if len(cols) != 10:
            problems.append(Problem(N_('expected 10 tab-separated columns, found %(n_cols)s') % {"n_cols": len(cols)}, **where))
            continue
        ident = cols[0].strip()
        if _RANGE.match(ident) or _EMPTY.match(ident):
            current.extra.append((len(current.words), line))
            continue
        if not _INT.match(ident):
            problems.append(Problem(N_('word ID %(ident)r is not an integer, a range (1-2) or an empty node (1.1)') % {"ident": ident}, **where))
            continue
        wid = int(ident)
        if wid != len(current.words) + 1:
            problems.append(Problem(N_('word ID %(wid)s out of sequence (expected %(value)s)') % {"wid": wid, "value": len(current.words) + 1}, **where))
            continue
        head_s = cols[6].strip()
        if head_s == "_":
            head = None
        elif _INT.match(head_s):
            head = int(head_s)
        else:
            problems.append(Problem(N_('HEAD %(head_s)r of word %(wid)s is not an integer') % {"head_s": head_s, "wid": wid}, **where))
            head = None
        current.words.append(
            Word(wid, cols[1], cols[2], cols[3], cols[4], cols[5], head, cols[7], cols[8], cols[9], line=lineno)
        )
    finish()
    if problems:
        raise InputError(problems)
    return sentences


def _check_sentence(sent: DepSentence, check_cycles: bool) -> list[Problem]:
    out: list[Problem] = []
    n = len(sent.words)
    if n == 0:
        out.append(Problem(N_("sentence has no words (only multiword tokens or empty nodes)"),
                           file=sent.file, line=sent.line, sentence=sent.name))
        return out
    bad_range = False
    for w in sent.words:
        if w.head is not None and w.head > n:
            out.append(Problem(N_('HEAD %(head)s of word %(id)s is out of range (sentence has %(n)s words)') % {"head": w.head, "id": w.id, "n": n},
                               file=sent.file, line=w.line, sentence=sent.name))
            bad_range = True
        elif w.head == w.id:
            out.append(Problem(N_('word %(id)s is its own head') % {"id": w.id}, file=sent.file, line=w.line, sentence=sent.name))
            bad_range = True
    if check_cycles and not bad_range:
        reported: set[int] = set()
        for w in sent.words:
            seen = {w.id}
            h = w.head
            while h:
                if h in seen:
                    if h == w.id and w.id not in reported:
                        cyc = _cycle(sent, w.id)
                        reported.update(cyc)
                        out.append(Problem(
                            "cycle in the dependencies: " + " -> ".join(str(i) for i in cyc),
                            file=sent.file, line=w.line, sentence=sent.name))
                    break
                seen.add(h)
                h = sent.words[h - 1].head
    return out


def _cycle(sent: DepSentence, start: int) -> list[int]:
    path = [start]
    h = sent.words[start - 1].head
    while h and h != start:
        path.append(h)
        h = sent.words[h - 1].head
    path.append(start)
    return path


def read_conllu(path: str | Path, *, check_cycles: bool = True) -> list[DepSentence]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is not part of the first line
    except UnicodeDecodeError as exc:
        raise InputError(N_('not UTF-8 text (%(reason)s at byte %(start)s)') % {"reason": exc.reason, "start": exc.start}, file=str(path)) from None
    return parse_conllu(text, file=str(path), check_cycles=check_cycles)


def write_conllu(sentences: list[DepSentence]) -> str:
    """CoNLL-U text; multiword-token and empty-node lines are written back in place."""
    out: list[str] = []
    for sent in sentences:
        for c in sent.comments:
            out.append(f"# {c}")
        extra = list(sent.extra)
        for i, w in enumerate(sent.words):
            while extra and extra[0][0] == i:
                out.append(extra.pop(0)[1])
            out.append("\t".join(w.columns()))
        for _, line in extra:
            out.append(line)
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
