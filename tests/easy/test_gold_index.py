"""The stored gold index scores exactly as the gold XML it was built from, and refuses what it was not built for."""
from __future__ import annotations

import io
import random

import numpy as np
import pytest

from parseval.annotations.easy.model import Document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.easy.writer import document_to_bytes
from benchmarks.easy_corpus import perturb
from parseval.evaluation.easy.gold_index import IndexedDocument, IndexUnreadable, index_key
from parseval.evaluation.easy.ranges import ReferenceView
from parseval.evaluation.easy.scoring import count_sentences, score_corpus

from .conftest import load, sentence

KEY = index_key("0" * 64, DEFAULT_SCHEMA, "test")


@pytest.fixture(scope="module")
def runs(gold_docs):
    rnd = random.Random(11)
    return {d.name[:-4]: document_to_bytes(Document(name=d.name, sentences=[perturb(s, rnd) for s in d.sentences]))
            for d in gold_docs}


def _stored(doc):
    return IndexedDocument.from_bytes(IndexedDocument.from_document(doc, DEFAULT_SCHEMA, KEY).to_bytes(), KEY)


def test_reference_views_are_the_same_sets(gold_docs):
    for doc in gold_docs:
        index = _stored(doc)
        assert index.sentence_ids == [s.id for s in doc.sentences]
        for s, (sid, ref, forms, groups_read, relations_read) in zip(doc.sentences, index.scoring_sentences()):
            direct = ReferenceView(s, DEFAULT_SCHEMA.relation_roles)
            assert sid == s.id and (ref.n, ref.cover, ref.cons, ref.rels) == (direct.n, direct.cover, direct.cons,
                                                                              direct.rels)
            assert forms == tuple((f.id, f.text) for f in s.forms)
            assert (groups_read, relations_read) == (len(s.groups), len(s.relations))
        assert [w.as_dict() for w in index.warnings] == [w.as_dict() for w in doc.warnings]


def test_scoring_from_the_index_gives_the_same_document(gold_docs, runs):
    from_xml = score_corpus(gold_docs, {k: io.BytesIO(v) for k, v in runs.items()}, bootstrap=30, seed=3)
    indexed = {d.name[:-4]: _stored(d) for d in gold_docs}
    from_index = score_corpus(indexed, {k: io.BytesIO(v) for k, v in runs.items()}, bootstrap=30, seed=3)
    assert from_xml["warnings"] and from_xml["counts"]["gold_relations_read"] > 0
    assert from_index == from_xml
    # a loader is called only when its document's run comes, and its index is used the same way
    calls = []
    lazy = {k: (lambda k=k: calls.append(k) or indexed[k]) for k in indexed}
    assert score_corpus(lazy, {k: io.BytesIO(v) for k, v in runs.items()}, bootstrap=30, seed=3) == from_xml
    assert sorted(calls) == sorted(indexed)


def test_a_restricted_index_keeps_only_the_wanted_sentences(gold_docs, runs):
    doc = gold_docs[0]
    keep = {s.id for s in doc.sentences[::3]}
    cut = Document(name=doc.name, sentences=[s for s in doc.sentences if s.id in keep], warnings=doc.warnings)
    key = doc.name[:-4]
    index = _stored(doc).restricted(keep)
    assert not index.whole and index.sentence_ids == [s.id for s in cut.sentences]
    _, gold_a, counting_a = count_sentences({key: cut}, {key: io.BytesIO(runs[key])})
    _, gold_b, counting_b = count_sentences({key: index}, {key: io.BytesIO(runs[key])})
    assert gold_a.row_ids == gold_b.row_ids and gold_a.dedup == gold_b.dedup
    assert np.array_equal(counting_a.rows.fc, counting_b.rows.fc)
    assert np.array_equal(counting_a.rows.cr_compact, counting_b.rows.cr_compact)


def test_odd_sentences_survive_the_round_trip():
    """No relation, no group, a null argument, a dangling gold pointer, entities in texts, empty sentence."""
    doc = load(sentence("E1", ["a", "b&amp;c", "d"], {(1, 2): ("G1", "GN")},
                        [("R1", "SUJ-V", {"sujet": "G1", "verbe": "F3"}),
                         ("R2", "MOD-N", {"modifieur": "F0", "nom": "F9"})])
               + sentence("E2", ["x"]) + '<E id="E3"></E>\n', gold=True)
    index = _stored(doc)
    for s, (sid, ref, forms, _, _) in zip(doc.sentences, index.scoring_sentences()):
        direct = ReferenceView(s, DEFAULT_SCHEMA.relation_roles)
        assert (ref.cover, ref.cons, ref.rels, forms) == (direct.cover, direct.cons, direct.rels,
                                                          tuple((f.id, f.text) for f in s.forms))
    assert len(index.sentence_ids) == 3


def test_an_index_for_another_key_or_damaged_is_refused(gold_docs):
    data = IndexedDocument.from_document(gold_docs[0], DEFAULT_SCHEMA, KEY).to_bytes()
    with pytest.raises(IndexUnreadable):
        IndexedDocument.from_bytes(data, index_key("1" * 64, DEFAULT_SCHEMA, "test"))
    with pytest.raises(IndexUnreadable):
        IndexedDocument.from_bytes(data[:len(data) // 2], KEY)  # half written
    with pytest.raises(IndexUnreadable):
        IndexedDocument.from_bytes(b"not an index", KEY)
    damaged = bytearray(data)
    damaged[len(data) // 3] ^= 0xFF
    with pytest.raises(IndexUnreadable):
        IndexedDocument.from_bytes(bytes(damaged), KEY)


def test_the_sentence_ids_alone_are_the_whole_index_ids_and_refused_alike(gold_docs):
    for doc in gold_docs:
        data = IndexedDocument.from_document(doc, DEFAULT_SCHEMA, KEY).to_bytes()
        ids = IndexedDocument.sentence_ids_from_bytes(data, KEY)
        assert ids == IndexedDocument.from_bytes(data, KEY).sentence_ids == [s.id for s in doc.sentences] and ids
    with pytest.raises(IndexUnreadable):
        IndexedDocument.sentence_ids_from_bytes(data, index_key("1" * 64, DEFAULT_SCHEMA, "test"))
    with pytest.raises(IndexUnreadable):
        IndexedDocument.sentence_ids_from_bytes(data[:len(data) // 2], KEY)  # half written
    with pytest.raises(IndexUnreadable):
        IndexedDocument.sentence_ids_from_bytes(b"not an index", KEY)


def test_the_key_follows_gold_schema_and_scorer():
    other = EasySchema.from_dict({**DEFAULT_SCHEMA.to_dict(), "name": "other"})
    keys = {index_key("0" * 64, DEFAULT_SCHEMA, "v1"), index_key("1" * 64, DEFAULT_SCHEMA, "v1"),
            index_key("0" * 64, other, "v1"), index_key("0" * 64, DEFAULT_SCHEMA, "v2")}
    assert len(keys) == 4
