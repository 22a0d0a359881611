"""The EASY reader and writer: shapes, encodings, security, and every validation error with its place."""
from __future__ import annotations

import io
import json
import resource

import pytest

from parseval.annotations.easy import DEFAULT_SCHEMA, Document, EasySchema, document_to_bytes, iter_sentences, read_document, validate_run
from parseval.annotations.errors import InputError

from .conftest import XLINK, easy_xml, load, sentence

S1 = sentence("E1", ["Le", "chat", "dort", "."], {(1, 2): ("G1", "GN"), (3, 3): ("G2", "NV")},
              [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"})])


def only_problem(exc: InputError):
    assert len(exc.problems) == 1, exc.problems
    return exc.problems[0]


# -- shapes ---------------------------------------------------------------------------------------

def test_plain_shape_is_read():
    doc = load(S1, gold=True)
    (s,) = doc.sentences
    assert [f.text for f in s.forms] == ["Le", "chat", "dort", "."]
    assert [(g.id, g.type, g.start, g.end) for g in s.groups] == [("E1G1", "GN", 0, 2), ("E1G2", "NV", 2, 3)]
    assert s.relations[0].args == {"sujet": "E1G1", "verbe": "E1G2"}
    assert doc.has_constituents and doc.has_relations


def test_constituants_wrapper_bare_href_and_no_relations_element():
    body = ('<E id="E1"><constituants><Groupe type="GN" id="E1G1"><F id="E1F1">Il</F></Groupe>'
            '<F id="E1F2">dort</F></constituants>'
            '<relations><relation type="SUJ-V" id="E1R1"><sujet href="E1G1"/><verbe href="E1F2"/></relation>'
            '</relations></E>\n<E id="E2"><F id="E2F1">Oui</F></E>\n')
    doc = load(body)
    s1, s2 = doc.sentences
    assert [g.range for g in s1.groups] == [(0, 1)]
    assert s1.relations[0].args == {"sujet": "E1G1", "verbe": "E1F2"}
    assert s2.relations == [] and [f.text for f in s2.forms] == ["Oui"]


def test_roles_in_another_order_and_extra_children_are_kept():
    body = ('<E id="E1"><Groupe type="GN" id="E1G1"><F id="E1F1">chat</F></Groupe>'
            '<Groupe type="GA" id="E1G2"><F id="E1F2">noir</F></Groupe><relations>'
            '<relation xlink:type="extended" type="MOD-N" id="E1R1"><a-propager booleen="faux"/>'
            '<nom xlink:href="E1G1"/><modifieur xlink:href="E1G2"/></relation></relations></E>\n')
    (s,) = load(body).sentences
    r = s.relations[0]
    assert list(r.args) == ["modifieur", "nom"]  # schema order
    assert r.extras == {"a-propager": {"booleen": "faux"}}


def test_null_argument_f0_is_accepted_in_runs():
    body = sentence("E1", ["Et", "il", "dort"], {(2, 2): ("G1", "GN"), (3, 3): ("G2", "NV")},
                    [("R1", "COORD", {"coordonnant": "F1", "coord-g": "F0", "coord-d": "G2"})])
    (s,) = load(body, gold=False).sentences
    assert s.relations[0].args["coord-g"] == "E1F0"


@pytest.mark.parametrize("encoding", ["UTF-8", "ISO-8859-1"])
def test_encodings_and_writer_round_trip(encoding):
    body = sentence("E1", ["Utilité", "et", "bénéfices"], {(1, 1): ("G1", "GN"), (3, 3): ("G2", "GN")},
                    [("R1", "COORD", {"coordonnant": "F2", "coord-g": "G1", "coord-d": "G2"})])
    doc = load(body, encoding=encoding)
    assert doc.sentences[0].forms[0].text == "Utilité"
    data = document_to_bytes(doc, encoding=encoding)
    assert f'encoding="{encoding}"'.encode() in data
    if encoding == "ISO-8859-1":
        assert "é".encode("latin-1") in data
    again = read_document(io.BytesIO(data), name="doc.xml")
    assert [(f.id, f.text) for f in again.sentences[0].forms] == [(f.id, f.text) for f in doc.sentences[0].forms]
    assert again.sentences[0].relations[0].args == doc.sentences[0].relations[0].args
    wrapped = document_to_bytes(doc, wrapper=True)
    assert b"<constituants>" in wrapped
    assert read_document(io.BytesIO(wrapped), name="w.xml").sentences[0].groups == doc.sentences[0].groups


def test_doctype_with_external_dtd_is_ignored():
    data = easy_xml(S1, doctype='<!DOCTYPE DOCUMENT SYSTEM "http://example.invalid/easy.dtd">\n')
    assert len(read_document(io.BytesIO(data), name="d.xml").sentences) == 1


def test_reader_streams_and_clears(tmp_path):
    path = tmp_path / "big.xml"
    body = "".join(sentence(f"E{k}", ["a", "b"], {(1, 2): ("G1", "GN")}) for k in range(1, 2001))
    path.write_bytes(easy_xml(body))
    seen = 0
    for s in iter_sentences(path):
        seen += 1
        assert len(s.forms) == 2
    assert seen == 2000


# -- security -------------------------------------------------------------------------------------

def test_external_entity_is_never_resolved(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    data = (f'<?xml version="1.0"?>\n<!DOCTYPE DOCUMENT [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
            f'<DOCUMENT {XLINK}><E id="E1"><F id="E1F1">&xxe;</F></E></DOCUMENT>\n').encode()
    with pytest.raises(InputError) as err:
        read_document(io.BytesIO(data), name="xxe.xml")
    assert "TOP-SECRET" not in str(err.value)
    p = err.value.problems[0]
    assert "entity" in p.message and p.file == "xxe.xml" and p.sentence == "E1" and p.line == 3


def test_billion_laughs_is_refused_without_expansion():
    lol = ['<!ENTITY lol0 "lol">']
    for k in range(1, 10):
        lol.append(f'<!ENTITY lol{k} "' + f"&lol{k - 1};" * 10 + '">')
    data = ('<?xml version="1.0"?>\n<!DOCTYPE DOCUMENT [' + "".join(lol) + ']>\n'
            f'<DOCUMENT {XLINK}><E id="E1"><F id="E1F1">&lol9;</F></E></DOCUMENT>\n').encode()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputError) as err:
        read_document(io.BytesIO(data), name="lol.xml")
    assert "entity" in str(err.value)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KB: nothing was expanded


# -- errors, each with its place ------------------------------------------------------------------

def where(p, *, line=None, sentence="E1", element=None, file="doc.xml"):
    assert p.file == file
    assert p.sentence == sentence
    if line is not None:
        assert p.line == line
    if element is not None:
        assert p.element == element
    text = str(p)
    assert file in text and (sentence is None or f"sentence {sentence}" in text)


def test_malformed_xml():
    with pytest.raises(InputError) as err:
        load('<E id="E1"><F id="E1F1">a</F>\n<F id="E1F2">b</E>\n')
    p = only_problem(err.value)
    assert p.message.startswith("malformed XML") and p.line == 4 and p.file == "doc.xml"
    assert p.sentence == "E1"


def test_unknown_group_type():
    with pytest.raises(InputError) as err:
        load(sentence("E1", ["a", "b"], {(1, 2): ("G1", "XX")}))
    p = only_problem(err.value)
    assert "unknown group type 'XX'" in p.message
    where(p, element="E1G1", line=4)  # line 3 is <E>, the group is on line 4


def test_unknown_relation_type():
    body = sentence("E1", ["a", "b"], None, [("R1", "FOO-V", {"sujet": "F1", "verbe": "F2"})])
    with pytest.raises(InputError) as err:
        load(body)
    p = only_problem(err.value)
    assert "unknown relation type 'FOO-V'" in p.message
    where(p, element="E1R1")


def test_wrong_role_and_missing_role():
    body = sentence("E1", ["a", "b"], None, [("R1", "SUJ-V", {"cod": "F1", "verbe": "F2"})])
    with pytest.raises(InputError) as err:
        load(body)
    messages = [p.message for p in err.value.problems]
    assert any("wrong role <cod> for relation type SUJ-V" in m for m in messages)
    assert any("missing role sujet" in m for m in messages)
    for p in err.value.problems:
        where(p, element="E1R1")


def test_nested_group():
    body = ('<E id="E1"><Groupe type="GN" id="E1G1"><F id="E1F1">a</F>'
            '<Groupe type="GA" id="E1G2"><F id="E1F2">b</F></Groupe></Groupe></E>\n')
    with pytest.raises(InputError) as err:
        load(body)
    p = only_problem(err.value)
    assert "nested group" in p.message and "E1G2" in p.message
    where(p, element="E1G2", line=3)


def test_overlapping_groups():
    body = ('<E id="E1"><Groupe type="GN" id="E1G1"><F id="E1F1">a</F></Groupe>\n'
            '<Groupe type="GA" id="E1G2"><F id="E1F1">a</F></Groupe></E>\n')
    with pytest.raises(InputError) as err:
        load(body)
    p = err.value.problems[0]
    assert "overlapping groups: form E1F1 is already in group E1G1" in p.message
    where(p, element="E1F1", line=4)


def test_duplicate_ids():
    body = ('<E id="E1"><Groupe type="GN" id="E1G1"><F id="E1F1">a</F></Groupe>\n'
            '<Groupe type="GA" id="E1G1"><F id="E1F2">b</F></Groupe></E>\n')
    with pytest.raises(InputError) as err:
        load(body)
    p = only_problem(err.value)
    assert p.message == "duplicate id E1G1"
    where(p, element="E1G1", line=4)
    with pytest.raises(InputError) as err:
        load(S1 + S1)
    assert "duplicate sentence id E1" in str(err.value)


@pytest.mark.parametrize("gold", [False, True])
def test_pointer_to_no_element_is_a_null_argument_with_a_warning_in_a_run_as_in_gold(gold):
    body = sentence("E1", ["a", "b"], None, [("R1", "SUJ-V", {"sujet": "F1", "verbe": "F7"})])
    doc = load(body, gold=gold)
    [w] = doc.warnings
    assert w.message == "role verbe points to E1F7, which is not in the sentence: read as a null argument"
    assert (w.line, w.sentence, w.element) == (7, "E1", "E1R1")  # the <relation> start tag
    [sent] = doc.sentences
    assert sent.resolve("E1F1") == 0 and sent.resolve("E1F7") is None  # form position 0; null argument


@pytest.mark.parametrize("gold", [False, True])
def test_repeated_relation_id_is_a_warning_but_form_and_group_ids_stay_unique(gold):
    body = sentence("E1", ["a", "b"], None, [("R1", "SUJ-V", {"sujet": "F1", "verbe": "F2"}),
                                             ("R1", "COD-V", {"cod": "F1", "verbe": "F2"})])
    doc = load(body, gold=gold)
    assert [w.message for w in doc.warnings] == ["duplicate relation id E1R1"]
    assert [r.type for r in doc.sentences[0].relations] == ["SUJ-V", "COD-V"]
    # a relation reusing a form's id is still refused: that id could be pointed at
    clash = sentence("E1", ["a", "b"], None, [("F1", "SUJ-V", {"sujet": "F1", "verbe": "F2"})])
    with pytest.raises(InputError) as err:
        load(clash, gold=gold)
    assert only_problem(err.value).message == "duplicate id E1F1"


def test_exact_duplicate_relation_is_a_warning():
    body = sentence("E1", ["a", "b"], None, [("R1", "SUJ-V", {"sujet": "F1", "verbe": "F2"}),
                                             ("R2", "SUJ-V", {"sujet": "F1", "verbe": "F2"})])
    doc = load(body)
    assert [w.message for w in doc.warnings] == ["relation E1R2 repeats relation E1R1 exactly (counted once)"]


def test_form_numbering_is_checked():
    body = '<E id="E1"><F id="E1F1">a</F><F id="E1F3">b</F></E>\n'
    with pytest.raises(InputError) as err:
        load(body)
    assert "form id E1F3 out of order: expected E1F2" in str(err.value)


# -- run-versus-corpus validation -----------------------------------------------------------------

CORPUS = (sentence("E1", ["Le", "chat", "dort"]) + sentence("E2", ["Il", "pleut"])
          + sentence("E3", ["Oui", "."]))


def test_validate_run_collects_every_problem_against_the_corpus_text(tmp_path):
    corpus = load(CORPUS, name="c.xml")  # forms only, no annotation
    run = (sentence("E1", ["Le", "chien", "dort"], {(1, 2): ("G1", "GN")})
           + sentence("E2", ["Il", "pleut", "fort"])
           + sentence("E3", ["Oui", "."], {(1, 1): ("G1", "XX")})
           + sentence("E9", ["x"]))
    path = tmp_path / "c.xml"
    path.write_bytes(easy_xml(run, name="c.xml"))
    warnings = []
    problems = validate_run(path, corpus, warnings=warnings)
    text = [str(p) for p in problems]
    assert len(problems) == 4, text
    assert problems[0].sentence == "E1" and problems[0].element == "E1F2"
    assert "form E1F2 is 'chien', expected 'chat'" in problems[0].message and problems[0].line is not None
    assert problems[1].sentence == "E2" and "3 forms, expected 2" in problems[1].message
    assert problems[2].sentence == "E3" and "unknown group type 'XX'" in problems[2].message
    assert problems[3].sentence == "E9" and "unknown sentence id E9" in problems[3].message
    assert all(p.file == "c.xml" and p.line for p in problems)
    assert warnings == []
    # the same run as a Document gives the same form problems
    doc = read_document(path, gold=False, strict=False)
    assert sorted(p.message for p in validate_run(doc, corpus)) == sorted(p.message for p in problems)


def test_validate_run_is_empty_for_a_valid_run_and_warns_on_missing_sentences(tmp_path):
    corpus = load(CORPUS, name="c.xml")
    path = tmp_path / "c.xml"
    path.write_bytes(easy_xml(sentence("E1", ["Le", "chat", "dort"], {(1, 2): ("G1", "GN")})
                              + sentence("E3", ["Oui", "."])))
    warnings = []
    assert validate_run(path, corpus, warnings=warnings) == []
    assert len(warnings) == 1 and "E2" in warnings[0].message


def test_fast_and_detailed_paths_accept_the_same(tmp_path):
    """validate_run takes the fast path first; an unusual but valid shape must still pass, an
    invalid one must still fail with the detailed message."""
    good = ('<E id="E1"><F id="E1F1">a</F><Groupe id="E1G1" type="NV"><F id="E1F2">b</F></Groupe>'
            '<relations><relation type="SUJ-V" id="E1R1"><verbe href="E1G1"/>'
            '<sujet xlink:href=" E1F1 "/></relation></relations></E>\n')
    bad = ('<E id="E1"><F id="E1F1">a</F><Groupe id="E1G1" type="NV"><F id="E1F2">b</F></Groupe>'
           '<relations><relation type="SUJ-V" id="E1R1"><sujet xlink:href="E1G1"/>'
           '<verbe xlink:href="E1R1"/></relation></relations></E>\n')
    corpus = load(sentence("E1", ["a", "b"]))
    for body, ok in ((good, True), (bad, False)):
        path = tmp_path / "doc.xml"
        path.write_bytes(easy_xml(body))
        problems = validate_run(path, corpus)
        assert (problems == []) is ok, problems
    assert "role verbe points to relation E1R1: an argument is a form or a group" in problems[0].message


# -- schema ---------------------------------------------------------------------------------------

def test_schema_round_trips_through_json_and_can_be_replaced():
    data = json.loads(json.dumps(DEFAULT_SCHEMA.to_dict()))
    assert EasySchema.from_dict(data) == DEFAULT_SCHEMA
    assert len(DEFAULT_SCHEMA.group_types) == 6 and len(DEFAULT_SCHEMA.relation_types) == 14
    data["group_types"].append("GX")
    data["relation_types"].append({"type": "OBJ", "roles": ["objet", "verbe"]})
    custom = EasySchema.from_dict(data)
    body = sentence("E1", ["a", "b"], {(1, 1): ("G1", "GX")}, [("R1", "OBJ", {"objet": "G1", "verbe": "F2"})])
    doc = read_document(io.BytesIO(easy_xml(body)), name="doc.xml", schema=custom)
    assert doc.sentences[0].groups[0].type == "GX"
    with pytest.raises(InputError):
        load(body)  # not in the default schema
    with pytest.raises(ValueError):
        EasySchema.from_dict({"group_types": ["GN"], "relation_types": [{"type": "X", "roles": []}]})


def test_read_document_lenient_keeps_problems():
    doc = read_document(io.BytesIO(easy_xml(sentence("E1", ["a"], {(1, 1): ("G1", "XX")}))), name="d.xml",
                        strict=False)
    assert isinstance(doc, Document) and len(doc.problems) == 1
