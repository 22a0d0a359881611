"""Importing a corpus from real EASY gold: genres, documents, text files, gold stored apart."""
from __future__ import annotations

import pytest
from lxml import etree

from parseval.annotations.easy import read_document
from parseval.annotations.errors import InputError
from annotations.models import GoldDocument, GoldSentence
from campaign.models import AuditEntry, CorpusDocument, Genre, Sentence
from campaign.services.corpus import import_corpus
from tests import factories


def test_import_builds_genres_documents_sentences_and_gold(campaign, storage):
    assert sorted(Genre.objects.filter(campaign=campaign).values_list("code", flat=True)) == ["general", "mail", "oral"]
    docs = {d.name: d for d in campaign.documents.all()}
    assert set(docs) == {"general_elda", "mail_10", "oral_delic_2"}
    for name, doc in docs.items():
        gold = read_document(factories.EASY_REF / f"{name}.xml", gold=True)
        assert doc.sentence_count == len(gold.sentences) == doc.sentences.count()
        assert doc.word_count == sum(len(s.forms) for s in gold.sentences)
        assert doc.genre.code == name.split("_")[0]
        # The text file has every sentence with its forms and ids, and no annotation.
        text = read_document(doc.text_file.path, gold=True)
        assert [s.id for s in text.sentences] == [s.id for s in gold.sentences]
        assert [[(f.id, f.text) for f in s.forms] for s in text.sentences] == \
               [[(f.id, f.text) for f in s.forms] for s in gold.sentences]
        raw = open(doc.text_file.path, "rb").read()
        assert b"<Groupe" not in raw and b"<relation" not in raw and b'id="reference"' not in raw
        # Gold stored apart, outside the media folder.
        g = GoldDocument.objects.get(document=doc)
        assert str(storage / "gold") in g.file.path and open(g.file.path, "rb").read() == (factories.EASY_REF / f"{name}.xml").read_bytes()
    assert GoldSentence.objects.filter(sentence__document__campaign=campaign, subset="test").count() == \
        Sentence.objects.filter(document__campaign=campaign).count()
    assert not any("gold" in str(p) for p in factories.files_under(storage / "media"))


def test_every_sentence_is_written_the_same_way(campaign):
    doc = campaign.documents.get(name="mail_10")
    root = etree.parse(doc.text_file.path).getroot()
    shapes = {tuple(child.tag for child in e) and tuple(sorted(set(child.tag for child in e))) for e in root}
    assert shapes == {("F",)}
    assert set(root.attrib) == {"fichier"}


def test_text_with_more_sentences_than_gold(db, storage, tmp_path):
    """Sentences without gold: in the corpus text and Sentence rows, without GoldSentence."""
    full = factories.EASY_REF / "mail_9.xml"
    gold_doc = read_document(full, gold=True)
    keep = {s.id for s in gold_doc.sentences[::3]}
    from parseval.annotations.easy import write_document
    from parseval.annotations.easy.model import Document

    partial = tmp_path / "gold" / "mail_9.xml"
    partial.parent.mkdir()
    write_document(Document(name="mail_9.xml", sentences=[s for s in gold_doc.sentences if s.id in keep]), partial)
    c = factories.make_campaign(slug="partial")
    summary = import_corpus(c, [partial], text_paths={"mail_9": full})
    assert summary.sentences == len(gold_doc.sentences)
    assert summary.gold_sentences == len(keep) < summary.sentences
    assert set(GoldSentence.objects.filter(sentence__document__campaign=c).values_list("sentence__sid", flat=True)) == keep
    assert Sentence.objects.filter(document__campaign=c).count() == len(gold_doc.sentences)


def test_bad_gold_is_refused_with_its_place_and_nothing_kept(db, storage, tmp_path):
    good = factories.EASY_REF / "mail_9.xml"
    bad = tmp_path / "oral_bad.xml"
    bad.write_text('<?xml version="1.0"?>\n<DOCUMENT>\n<E id="E1"><F id="E1F1">a</F>\n</DOCUMENT>\n')
    c = factories.make_campaign(slug="broken")
    with pytest.raises(InputError) as info:
        import_corpus(c, [good, bad])
    problem = info.value.problems[0]
    assert problem.file == "oral_bad.xml" and problem.line is not None and "malformed" in problem.message
    assert not CorpusDocument.objects.filter(campaign=c).exists()
    assert not Genre.objects.filter(campaign=c).exists()
    assert factories.files_under(storage / "media") == factories.files_under(storage / "gold") == []
    assert not AuditEntry.objects.filter(campaign=c).exists()


def test_text_that_lacks_a_gold_sentence_is_refused(db, storage, tmp_path):
    gold = factories.EASY_REF / "mail_9.xml"
    doc = read_document(gold, gold=True)
    from parseval.annotations.easy import write_document
    from parseval.annotations.easy.model import Document

    text = tmp_path / "mail_9.xml"
    write_document(Document(name="mail_9.xml", sentences=doc.sentences[1:]), text)
    c = factories.make_campaign(slug="lacking")
    with pytest.raises(InputError) as info:
        import_corpus(c, [gold], text_paths={"mail_9": text})
    assert any(p.sentence == doc.sentences[0].id for p in info.value.problems)
    assert factories.files_under(storage / "media") == factories.files_under(storage / "gold") == []


def test_importing_a_document_twice_is_refused(campaign):
    with pytest.raises(InputError, match="already in the campaign"):
        import_corpus(campaign, factories.easy_gold_paths(["mail_10.xml"]))
