"""The team-facing corpus text of the tree and dependency kinds: words only.

One format for every sentence, whatever its gold holds (no tree, no head, no
null element, nothing telling which sentences have gold)::

    # sent_id = 3
    1<TAB>Pierre
    2<TAB>Vinken

A blank line ends a sentence. Teams parse these words and send one tree (or
one CoNLL-U sentence) per sentence, in this order.
"""
from __future__ import annotations

from dataclasses import dataclass

from parseval.annotations.errors import InputError, Problem, N_

SUFFIX = ".tok"


@dataclass(frozen=True)
class TextSentence:
    sid: str
    words: tuple[str, ...]


def write_tokens(sentences: list[TextSentence]) -> bytes:
    out: list[str] = []
    for s in sentences:
        out.append(f"# sent_id = {s.sid}")
        out.extend(f"{i}\t{w}" for i, w in enumerate(s.words, 1))
        out.append("")
    return "\n".join(out).encode("utf-8") + b"\n"


def read_tokens(data: bytes, *, file: str) -> list[TextSentence]:
    """The sentences of a corpus text file (written by :func:`write_tokens`)."""
    sentences: list[TextSentence] = []
    sid, words = None, []
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if line.startswith("# sent_id = "):
            sid = line[len("# sent_id = "):]
        elif not line.strip():
            if sid is not None:
                sentences.append(TextSentence(sid, tuple(words)))
            sid, words = None, []
        else:
            parts = line.split("\t", 1)
            if sid is None or len(parts) != 2:
                raise InputError(N_("not a corpus text line (expected 'number<TAB>word')"), file=file, line=number)
            words.append(parts[1])
    if sid is not None:
        sentences.append(TextSentence(sid, tuple(words)))
    return sentences


def word_mismatch(expected: tuple[str, ...], found: list[str]) -> str | None:
    """Why a run sentence's words differ from the corpus text's, or None."""
    if len(expected) != len(found):
        return N_("%(found)s words where the corpus text has %(expected)s") % {
            "found": len(found), "expected": len(expected)}
    for i, (e, f) in enumerate(zip(expected, found), 1):
        if e != f:
            return N_("word %(i)s is %(found)r where the corpus text has %(expected)r") % {
                "i": i, "found": f, "expected": e}
    return None


__all__ = ["SUFFIX", "TextSentence", "write_tokens", "read_tokens", "word_mismatch", "Problem"]
