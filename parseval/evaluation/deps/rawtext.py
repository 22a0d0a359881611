"""What the raw-text track gives teams: each corpus document's raw text and its gold tokenisation.

As in the CoNLL 2018 shared task, whose participants received the raw text
of each test file (and, for those who did not want to tokenise, the same text
already cut into tokens and sentences):

* the **raw text** (``NAME.txt``): the document's sentences as running text.
  A sentence's text is its ``# text`` comment when that spells the
  sentence's tokens (spaces aside), else its tokens joined by a space except
  where MISC says ``SpaceAfter=No``. Sentences of one paragraph follow each
  other on one line, separated by a space; a ``# newpar`` comment (or
  ``# newdoc``) starts a new paragraph, after an empty line. Nothing marks a
  sentence boundary: finding them is the parser's work.
* the **gold tokenisation** (``NAME.tokens.conllu``): CoNLL-U with only ID
  and FORM filled (every other column ``_``), multiword tokens included
  (``1-2 du`` then ``1 de``, ``2 le``), with ``# sent_id`` and ``# text``.

Every sentence is written the same way, whatever its gold or subset: these
files tell nothing of which sentences are scored.

Pure: no Django.
"""
from __future__ import annotations

import re

from parseval.annotations.conllu import DepSentence

from .alignment import strip_spaces

_RANGE = re.compile(r"^(\d+)-(\d+)$")


def surface_tokens(sentence: DepSentence) -> list[tuple[str, str, list[tuple[int, str]]]]:
    """``(form, misc, [(word id, word form)...])`` per token: a multiword token and its words, or one word."""
    ranges = {}
    for _, line in sentence.extra:
        cols = line.split("\t")
        m = _RANGE.match(cols[0].strip())
        if m and len(cols) == 10:
            ranges[int(m.group(1))] = (int(m.group(2)), cols[1], cols[9])
    out = []
    i = 1
    n = len(sentence.words)
    while i <= n:
        if i in ranges and ranges[i][0] >= i:
            last, form, misc = ranges[i]
            last = min(last, n)
            out.append((form, misc, [(w.id, w.form) for w in sentence.words[i - 1:last]]))
            i = last + 1
        else:
            w = sentence.words[i - 1]
            out.append((w.form, w.misc, [(w.id, w.form)]))
            i += 1
    return out


def _space_after(misc: str) -> bool:
    return "SpaceAfter=No" not in misc.split("|")


def _comment(sentence: DepSentence, key: str) -> str | None:
    for c in sentence.comments:
        k, sep, value = c.partition("=")
        if sep and k.strip() == key:
            return value.strip()
    return None


def sentence_text(sentence: DepSentence) -> str:
    """The sentence's text: ``# text`` when it spells the tokens, else the tokens with their spacing."""
    tokens = surface_tokens(sentence)
    text = _comment(sentence, "text")
    spelled = "".join(strip_spaces(form) for form, _, _ in tokens)
    if text is not None and strip_spaces(text).replace("\t", "") == spelled and "\t" not in text:
        return text
    out = []
    for k, (form, misc, _) in enumerate(tokens):
        out.append(form)
        if k < len(tokens) - 1 and _space_after(misc):
            out.append(" ")
    return "".join(out)


def _new_paragraph(sentence: DepSentence) -> bool:
    return any(c.strip().startswith(("newpar", "newdoc")) for c in sentence.comments)


def raw_text(sentences: list[DepSentence]) -> bytes:
    """The document's raw text (module docstring)."""
    paragraphs: list[list[str]] = []
    for s in sentences:
        if not paragraphs or _new_paragraph(s):
            paragraphs.append([])
        paragraphs[-1].append(sentence_text(s))
    return ("\n\n".join(" ".join(p) for p in paragraphs) + "\n").encode("utf-8")


def tokenisation(sentences: list[DepSentence], sids: list[str]) -> bytes:
    """The gold tokenisation (module docstring): ``sids`` are the corpus's sentence ids, in order."""
    out: list[str] = []
    blank = ["_"] * 8
    for s, sid in zip(sentences, sids):
        out.append(f"# sent_id = {sid}")
        out.append(f"# text = {sentence_text(s)}")
        for form, _, words in surface_tokens(s):
            if len(words) > 1:
                out.append("\t".join([f"{words[0][0]}-{words[-1][0]}", form, *blank]))
            out.extend("\t".join([str(wid), wform, *blank]) for wid, wform in words)
        out.append("")
    return ("\n".join(out) + "\n").encode("utf-8")


def tokenisation_characters(data: bytes) -> tuple[str, list[tuple[int, str]]]:
    """The non-whitespace characters a gold tokenisation file spells, and ``(offset, sentence id)`` where
    each sentence starts: what a raw-text run must spell, and how to say where it does not."""
    chars: list[str] = []
    starts: list[tuple[int, str]] = []
    pos = 0
    sid = None
    skip = 0
    opened = False
    for line in data.decode("utf-8").splitlines():
        if line.startswith("# sent_id = "):
            sid = line[len("# sent_id = "):]
            continue
        if not line.strip() or line.startswith("#"):
            opened = opened and bool(line.strip())
            continue
        if not opened:
            starts.append((pos, sid or str(len(starts) + 1)))
            opened = True
        cols = line.split("\t")
        m = _RANGE.match(cols[0])
        if skip:
            skip -= 1
            continue
        if m:
            skip = int(m.group(2)) - int(m.group(1)) + 1
        form = strip_spaces(cols[1]) if len(cols) > 1 else ""
        chars.append(form)
        pos += len(form)
    return "".join(chars), starts
