"""The corpus teams download says nothing about which sentences have gold or form the test set.

Two campaigns built from the same data with different test subsets, and one whose gold is gone,
must serve byte-identical document files; within a corpus, every sentence has the same shape
(texts and ids aside), whether it is test, dev, unused or without gold, and ids follow one pattern.
"""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from django.test import Client
from lxml import etree

from parseval.annotations.easy import Document, Form, Sentence, document_to_bytes, read_document
from annotations.models import GoldDocument, GoldSentence
from campaign.subsets import mark_subset, sample_test_subset
from campaign.models import Campaign
from campaign.services.corpus import import_corpus
from tests.factories import SMALL_EASY_FILES, easy_gold_paths

from .conftest import user

pytestmark = pytest.mark.django_db

EXTRA = 7  # sentences without gold appended to each document's text


def fuller_texts(tmp: Path) -> dict[str, Path]:
    """Each gold document's text with sentences that have no gold after it (ids continue E<n+1>...)."""
    out = {}
    for path in easy_gold_paths(SMALL_EASY_FILES):
        doc = read_document(path, gold=True, strict=True)
        n = len(doc.sentences)
        last = max(int(s.id[1:]) for s in doc.sentences)
        extra = []
        for k in range(EXTRA):
            model = doc.sentences[k % n]
            sid = f"E{last + k + 1}"
            extra.append(Sentence(id=sid, forms=[Form(f"{sid}F{i}", f.text) for i, f in enumerate(model.forms, 1)]))
        text = Document(name=path.name, sentences=[Sentence(id=s.id, forms=list(s.forms)) for s in doc.sentences] + extra)
        target = tmp / path.name
        target.write_bytes(document_to_bytes(text))
        out[path.stem] = target
    return out


def make_campaign(slug: str, tmp: Path, organiser) -> Campaign:
    c = Campaign.objects.create(name=slug, slug=slug, corpus_public=True)
    c.organisers.add(organiser)
    import_corpus(c, easy_gold_paths(SMALL_EASY_FILES), text_paths=fuller_texts(tmp))
    return c


def download(c: Campaign) -> dict[str, bytes]:
    c.state = "open"
    c.save()
    response = Client().get(f"/campaigns/{c.slug}/corpus.zip")
    assert response.status_code == 200, response
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def sentence_shapes(data: bytes) -> set[bytes]:
    """Each sentence serialised with its forms' texts and all ids replaced, and its forms folded to one."""
    root = etree.fromstring(data)
    shapes = set()
    for e in root.iter("E"):
        e = etree.fromstring(etree.tostring(e))
        e.tail = None
        forms = list(e)
        for extra in forms[1:]:
            e.remove(extra)
        for el in e.iter():
            if "id" in el.attrib:
                el.attrib["id"] = "ID"
            if el.tag == "F":
                el.text = "TEXT"
        shapes.add(etree.tostring(e))
    return shapes


def normalised(data: bytes) -> bytes:
    text = re.sub(rb'id="[^"]*"', b'id="ID"', data)
    return re.sub(rb">[^<]+</F>", b">TEXT</F>", text)


def test_corpus_is_identical_whatever_the_subsets(tmp_path):
    organiser = user("corpus-org")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir(), (tmp_path / "c").mkdir()
    first = make_campaign("subset-one", tmp_path / "a", organiser)
    second = make_campaign("subset-two", tmp_path / "b", organiser)
    sample_test_subset(first, ratio=0.5, dev_ratio=0.2)
    sample_test_subset(second, ratio=0.3, dev_ratio=0.1)
    mark_subset(second, "dev", documents=[second.documents.first()])
    no_gold = make_campaign("no-gold", tmp_path / "c", organiser)
    GoldSentence.objects.filter(sentence__document__campaign=no_gold).delete()
    for gold in GoldDocument.objects.filter(document__campaign=no_gold):
        gold.file.delete(save=False)
        gold.delete()

    def members(c):
        return set(GoldSentence.objects.filter(sentence__document__campaign=c, subset="test")
                   .values_list("sentence__document__name", "sentence__sid"))

    assert members(first) != members(second) and members(first) and members(second)
    assert not GoldSentence.objects.filter(sentence__document__campaign=no_gold).exists()

    one, two, none = download(first), download(second), download(no_gold)
    assert list(one) == list(two) == list(none) == [f"{Path(n).stem}.xml" for n in SMALL_EASY_FILES]
    for name in one:
        # Same data, other subsets, no gold at all: the very same bytes.
        assert one[name] == two[name] == none[name], name
        assert normalised(one[name]) == normalised(none[name])


def test_every_sentence_has_the_same_shape_and_id_pattern(tmp_path):
    c = make_campaign("shapes", tmp_path, user("shape-org"))
    sample_test_subset(c, ratio=0.5, dev_ratio=0.2)
    subsets = set(GoldSentence.objects.filter(sentence__document__campaign=c).values_list("subset", flat=True))
    assert subsets == {"test", "dev", "unused"}
    assert c.documents.first().sentences.filter(gold_membership__isnull=True).count() == EXTRA
    for name, data in download(c).items():
        assert len(sentence_shapes(data)) == 1, f"{name}: sentences of different shapes"
        root = etree.fromstring(data)
        ids = [e.get("id") for e in root.iter("E")]
        assert all(re.fullmatch(r"E[1-9]\d*", i) for i in ids), f"{name}: ids of more than one pattern"
        numbers = [int(i[1:]) for i in ids]
        assert numbers == sorted(set(numbers)), f"{name}: ids are not one increasing sequence"
        assert set(root.attrib) == {"fichier"}, "no attribute of the gold's source (paths, dates) in the corpus"
        for e in root.iter("E"):
            assert [child.tag for child in e] == ["F"] * len(e), "only forms: no group, relation or marker"
            assert all(re.fullmatch(rf"{e.get('id')}F\d+", f.get("id")) for f in e)
        assert b"<!--" not in data and b"Groupe" not in data and b"relation" not in data
