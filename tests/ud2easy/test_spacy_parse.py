"""An EASY corpus parsed by spaCy (one sentence per EASY sentence), and real parses through the converter."""
from __future__ import annotations

import pytest

from parseval.annotations.conllu import parse_conllu, write_conllu
from parseval.annotations.easy.reader import read_document
from parseval.annotations.easy.validate import validate_run
from parseval.annotations.spacy_conllu import load_pipeline
from parseval.evaluation.ud2easy import spacy_parse
from parseval.evaluation.ud2easy.convert import convert_document


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline("fr_core_news_sm")


def test_text_of_forms():
    forms = ["En", "quelle", "année", "a", "-t-on", "construit", "l'", "automobile", ",", "enfin", "?"]
    assert spacy_parse.text_of_forms(forms) == "En quelle année a-t-on construit l'automobile, enfin ?"


def test_forms_in_one_sentence_out_with_its_id(nlp):
    # two full stops: spaCy alone would cut this in two, the pre-set boundaries keep one sentence
    forms = ["Il", "dort", ".", "Elle", "lit", "."]
    (s,) = spacy_parse.parse_forms(nlp, [("E7", forms)])
    assert s.sent_id == "E7" and [w.form for w in s.words] == forms
    assert [w.head for w in s.words].count(0) == 1
    assert "parser = fr_core_news_sm-3.8.0" in s.comments
    # what is written reads back identically
    (back,) = parse_conllu(write_conllu([s]))
    assert [(w.form, w.head, w.deprel) for w in back.words] == [(w.form, w.head, w.deprel) for w in s.words]


def test_raw_text_several_sentences_become_one_tree(nlp):
    (s,) = spacy_parse.parse_text(nlp, [("E1", "Il dort. Elle lit. Nous écrivons.")])
    roots = [w for w in s.words if w.head == 0]
    assert s.sent_id == "E1" and len(roots) == 1 and roots[0].deprel == "root"
    # spaCy's other sentence roots hang from the first
    assert sum(w.deprel == "dep" and w.head == roots[0].id for w in s.words) >= 1
    assert "".join(w.form for w in s.words) == "Ildort.Ellelit.Nousécrivons."


@pytest.mark.parametrize("how", ["forms", "raw"])
def test_real_parses_of_a_guide_file_convert_into_a_valid_run(nlp, shared_data, how):
    gold = read_document(shared_data / "easy-guide" / "ref" / "Guide.1.easyref.xml")
    if how == "forms":
        parses = spacy_parse.parse_forms(nlp, [(s.id, s.words) for s in gold.sentences])
    else:
        parses = spacy_parse.parse_text(nlp, [(s.id, spacy_parse.text_of_forms(s.words)) for s in gold.sentences])
    run = convert_document(gold, parse_conllu(write_conllu(parses), file="Guide.1.conllu"),
                           parse_file="Guide.1.conllu")
    assert len(run.sentences) == len(gold.sentences) == 10
    assert validate_run(run, gold) == []
    # every sentence gets groups, and all but the verbless fourth (Le journal , Simon Tivolle .) relations
    assert all(s.groups for s in run.sentences)
    assert sum(bool(s.relations) for s in run.sentences) >= 9
