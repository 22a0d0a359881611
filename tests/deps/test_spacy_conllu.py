"""spaCy analyses written as CoNLL-U (parseval/annotations/spacy_conllu.py), with a real French pipeline."""
from __future__ import annotations

from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc

from parseval.annotations.conllu import parse_conllu, read_conllu
from parseval.annotations.spacy_conllu import doc_to_conllu, load_pipeline, parse_gold_words, parse_raw_text
from parseval.evaluation.deps.conll18 import score_conll18
from parseval.evaluation.deps.conll18_reader import parse_conll18, read_conll18

GOLD = Path(__file__).parent / "data" / "sequoia-2.gold.conllu"


def test_doc_to_conllu_by_hand():
    nlp = spacy.blank("fr")
    # "Il dort  . Fin" : a double space makes a whitespace token (index 2); two sentences
    doc = Doc(nlp.vocab, words=["Il", "dort", " ", ".", "Fin"], spaces=[True, True, False, True, False],
              heads=[1, 1, 1, 1, 4], deps=["nsubj", "ROOT", "dep", "punct", "ROOT"],
              pos=["PRON", "VERB", "SPACE", "PUNCT", "NOUN"], lemmas=["il", "dormir", " ", ".", "fin"],
              morphs=["Person=3", "", "", "", "Gender=Fem"],
              sent_starts=[True, False, False, False, True])
    text = doc_to_conllu(doc, sent_id_prefix="d")
    sentences = parse_conllu(text)
    assert [s.sent_id for s in sentences] == ["d-1", "d-2"]
    first = sentences[0]
    # the whitespace token is not written: Il (1) -> dort (2, root), "." (3) -> dort
    assert [(w.form, w.head, w.deprel) for w in first.words] == [("Il", 2, "nsubj"), ("dort", 0, "root"),
                                                                 (".", 2, "punct")]
    assert [w.feats for w in first.words] == ["Person=3", "_", "_"]
    # "." is followed by a space in the Doc; the last word of a sentence gets no SpaceAfter mark
    assert [w.misc for w in first.words] == ["_", "_", "_"]
    assert sentences[1].words[0].lemma == "fin" and sentences[1].words[0].head == 0


@pytest.fixture(scope="module")
def small():
    return load_pipeline("fr_core_news_sm")


def test_gold_words_are_parsed_inside_the_gold_tokens(small):
    gold_sentences = read_conllu(GOLD)
    text = parse_gold_words(small, gold_sentences)
    # the gold multiword-token lines and comments come back around spaCy's analysis
    assert "1-2\tAux\t" in text and "15-16\tau\t" in text and "18-19\tdu\t" in text
    assert "# sent_id = Europar.550_00508" in text
    result = score_conll18(read_conll18(GOLD), parse_conll18(text, file="spacy"))
    for row in ("Tokens", "Sentences", "Words"):
        assert result["rows"][row]["f1"] == 1.0
    # spaCy, not the gold file, filled the analysis: it writes an XPOS where Sequoia has none
    assert result["rows"]["XPOS"]["correct"] == 0


def test_raw_text_is_tokenised_by_the_parser(small):
    text = parse_raw_text(small, read_conllu(GOLD))
    system = parse_conll18(text, file="spacy")
    gold = read_conll18(GOLD)
    assert system.characters == gold.characters
    # spaCy keeps the contractions whole: no multiword token, fewer words than gold (49)
    assert not any(w.multiword for w in system.words) and len(system.words) < 49
    result = score_conll18(gold, system)
    assert result["rows"]["Tokens"]["f1"] < 1.0  # "12h30" is one token for spaCy, three in gold
