"""An EASY corpus parsed by spaCy: one CoNLL-U sentence per EASY sentence, with its ``# sent_id``.

The ud2easy converter needs each corpus sentence's parse under its EASY id,
so the parser never decides where a sentence ends. Two ways in:

* :func:`parse_forms`: the corpus forms as the parser's tokens (a
  pre-split sentence; :func:`parseval.annotations.spacy_conllu.parse_gold_words`);
* :func:`parse_text`: running text rebuilt from the forms
  (:func:`text_of_forms`), cut by spaCy's own tokeniser; the converter
  aligns it back by characters. If spaCy finds several sentences in it,
  the roots after the first hang from the first as ``dep``
  (:func:`parseval.annotations.spacy_conllu.sentence_rows` over the whole text).

Every sentence also gets ``# parser = <model>-<version>``.
"""
from __future__ import annotations

from typing import Iterable

from parseval.annotations.conllu import DepSentence, Word, parse_conllu
from parseval.annotations.spacy_conllu import parse_gold_words, sentence_rows

BATCH_SIZE = 64


def parser_name(nlp) -> str:
    return f"{nlp.meta.get('lang', 'xx')}_{nlp.meta.get('name', 'model')}-{nlp.meta.get('version', '?')}"


def text_of_forms(forms: Iterable[str]) -> str:
    """Running text from tokenised forms, the way it was most likely written.

    No space after an elided form (*l'*, *qu'*), before an enclitic (*-t-il*)
    or before a comma or a full stop; one space elsewhere.
    """
    out: list[str] = []
    for form in forms:
        if out and not (out[-1].endswith(("'", "’")) or form.startswith("-") or form in (",", ".", "...")):
            out.append(" ")
        out.append(form)
    return "".join(out)


def parse_forms(nlp, sentences: Iterable[tuple[str, list[str]]]) -> list[DepSentence]:
    """Parse ``(sent_id, forms)`` pairs, one token per form."""
    name = parser_name(nlp)
    shells = [DepSentence(words=[Word(k, f) for k, f in enumerate(forms, 1)],
                          comments=[f"sent_id = {sid}", f"text = {text_of_forms(forms)}", f"parser = {name}"])
              for sid, forms in sentences]
    return parse_conllu(parse_gold_words(nlp, shells, batch_size=BATCH_SIZE), check_cycles=False)


def parse_text(nlp, sentences: Iterable[tuple[str, str]]) -> list[DepSentence]:
    """Parse ``(sent_id, text)`` pairs with spaCy's own tokenisation, one sentence each."""
    name = parser_name(nlp)
    items = list(sentences)
    out: list[str] = []
    for (sid, _), doc in zip(items, nlp.pipe((t for _, t in items), batch_size=BATCH_SIZE)):
        out += [f"# sent_id = {sid}", f"# text = {doc.text.strip()}", f"# parser = {name}"]
        out += ["\t".join(row) for row in sentence_rows(doc[:])]
        out.append("")
    return parse_conllu("\n".join(out) + "\n", check_cycles=False)
