"""The one-walk reading of a canonical sentence (parseval/annotations/easy/bytescan.py) reads as the regular way.

``bytescan.sentence_parts`` answers either ``None`` (the regular-expression
path of ``TextPath.check`` then decides) or exactly what that path gives for
the sentence's parts. Checked sentence by sentence on the real files, on a
realistic run written by lxml in both quote styles, and on damaged sentences;
the module as it runs here (compiled where it was built) and its Python
source give the same answers. Counts check that the walk really reads the
common shape rather than quietly leaving everything to the regular path.
"""
from __future__ import annotations

import importlib.util
import io
import random
import re
from pathlib import Path

import pytest

from parseval.annotations.easy import canonical
from parseval.annotations.easy.canonical import CanonicalScanner, SentenceParts, TextPath
from parseval.annotations.easy.reader import read_document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA
from benchmarks.easy_corpus import other_writer, perturb

from .conftest import easy_xml, sentence

bytescan = pytest.importorskip("parseval.annotations.easy.bytescan")


def _as_python():
    """The module run from its source, whatever was compiled beside it."""
    spec = importlib.util.spec_from_file_location("bytescan_as_python", Path(bytescan.__file__).with_name("bytescan.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PYTHON = _as_python()


def _regular(path: TextPath, buf, start, end, codec, sid, line):
    """``TextPath.check``'s parts without the walk: ``(fids, texts, groups?, relations?, parts)``, or None."""
    layout, path.layout = path.layout, None
    try:
        ok = path.check(buf, start, end, codec, sid, True, True, line, True)
    finally:
        path.layout = layout
    if ok is None or not isinstance(ok[4], SentenceParts):
        return None  # refused, or built as a Sentence (a repeated relation): the walk must answer None
    p = ok[4]
    return list(ok[0]), list(ok[1]), ok[2], ok[3], p.id, p.forms, p.groups, p.relations


def _walked(module, buf, start, end, sid, dialect):
    found = module.sentence_parts(buf, start, end, (sid + "F").encode("utf-8"),
                                  module.Layout(DEFAULT_SCHEMA, dialect))
    if found is None:
        return None
    texts, stripped, groups, relations = found
    fids = canonical._form_ids(sid, len(texts))
    return fids, texts, bool(groups), bool(relations), sid, tuple(zip(fids, stripped)), groups, relations


def compare(data: bytes, modules=(bytescan, PYTHON)) -> dict:
    """Every sentence of a document: the walk (each module) against the regular way. Counts of the answers."""
    counts = {"read": 0, "left": 0, "refused": 0}
    scanner = CanonicalScanner(io.BytesIO(data), owned=False)
    assert scanner.open() is not None
    path = TextPath(DEFAULT_SCHEMA, scanner.dialect)
    for sid, start, end, line in scanner.spans():
        buf = scanner.buf
        expected = _regular(path, buf, start, end, scanner.codec, sid, line)
        answers = [_walked(m, buf, start, end, sid, scanner.dialect) for m in modules]
        assert all(a == answers[0] for a in answers), (sid, bytes(buf[start:end]))
        if answers[0] is not None:
            assert answers[0] == expected, (sid, bytes(buf[start:end]))
            counts["read"] += 1
        else:
            counts["left" if expected is not None else "refused"] += 1
    return counts


def _run_of(path, single_quotes: bool, seed: int) -> bytes:
    rnd = random.Random(seed)
    doc = read_document(path, gold=True)
    return other_writer([perturb(s, rnd) for s in doc.sentences], path.name, single_quotes=single_quotes)


def test_the_real_gold_and_a_realistic_run_are_read_as_the_regular_way_reads_them(easy_ref):
    total = {"read": 0, "left": 0, "refused": 0}
    for k, path in enumerate(sorted(easy_ref.glob("*.xml"))):
        runs = [path.read_bytes(), _run_of(path, k % 2 == 1, k)]
        for data in runs:
            # the Python source only on a few files: byte by byte in Python, it is slow
            counts = compare(data, (bytescan, PYTHON) if k < 3 else (bytescan,))
            for key in total:
                total[key] += counts[key]
    # the walk reads nearly every sentence; it leaves to the regular way those with an entity (&amp;, &gt;)
    assert total["read"] > 0.98 * (total["read"] + total["left"])
    assert total["left"] > 0  # and there are some


def _damaged(body: bytes, rnd: random.Random) -> bytes:
    """One sentence damaged at a random place, in one of the ways a file goes wrong or only looks unusual."""
    pieces = [b"<", b">", b"&", b"&amp;", b'"', b"'", b"\r", b"\r\n", b"\x01", b"\x7f", b" ", b"\t", b"]]>",
              b"\xef\xbf\xbe", b"\xc3", b"\xe9", b"/", b"=", b"F", b"F0", b"F99", b"0", b"G1", b":", b"xml",
              b"</F>", b"<F id=\"E1F3\">x</F>", b"<!-- c -->", b"<constituants>", b"</constituants>",
              b"<relations>", b"</relations>", b"<a-propager booleen=\"vrai\"/>", b"<s-o valeur=\"x\"/>", b"\n"]
    at = rnd.randrange(len(body) - 6) + 6  # not in "<E id=" (a span that is not one sentence: not here)
    kind = rnd.randrange(6)
    if kind >= 3:  # an id or a pointer changed: perhaps still valid, perhaps a repeated id or a dangling pointer
        values = [m.span(1) for m in re.finditer(rb'(?:id|href)="([^"]*)"', body)]
        if values:
            a, b = rnd.choice(values)
            sid = re.match(rb'<E\s+id\s*=\s*"([^"]*)"', body)
            sid = sid.group(1) if sid else b"E1"
            new = sid + rnd.choice([b"F", b"G", b"R"]) + str(rnd.randrange(0, 9)).encode() + rnd.choice([b"", b"", b"0", b"x"])
            return body[:a] + rnd.choice([new, new, b"", sid, sid + b"F01", b"E1F1"]) + body[b:]
    if kind == 0:
        return body[:at] + rnd.choice(pieces) + body[at:]
    if kind == 1:
        return body[:at] + body[at + rnd.randrange(1, 4):]
    return body[:at] + rnd.choice(pieces) + body[at + rnd.randrange(1, 4):]


SHAPES = [
    # relations before the forms, a group after them, pointers to groups further on
    '<E id="E1">\n<relations><relation xlink:type="extended" type="SUJ-V" id="E1R1">'
    '<sujet xlink:type="locator" xlink:href="E1G1"/><verbe xlink:type="locator" xlink:href="E1F2"/>'
    '</relation></relations>\n<Groupe type="GN" id="E1G1"><F id="E1F1">il</F></Groupe><F id="E1F2">dort</F>\n</E>\n',
    # the wrapper, then two <relations>, extras with and without an attribute, the null argument
    '<E id="E1"><constituants>\n <Groupe type="GN" id="E1G1"><F id="E1F1"> il </F></Groupe>\n'
    ' <F id="E1F2">\tdort\n</F></constituants>\n<relations>\n<relation xlink:type="extended" type="MOD-N" id="E1R1">'
    '<modifieur xlink:type="locator" xlink:href="E1F2"/><nom xlink:type="locator" xlink:href="E1G1"/>'
    '<a-propager booleen="faux"/></relation></relations><relations>'
    '<relation type="SUJ-V" id="E1R2"><sujet xlink:href="E1F0"/><verbe xlink:type="locator" xlink:href="E1F2"/>'
    '</relation>\n</relations></E>\n',
    # two relations alike; two groups of one range pointed to by two relations
    '<E id="E1"><Groupe type="GN" id="E1G1"><F id="E1F1">il</F></Groupe><F id="E1F2">dort</F><relations>'
    '<relation xlink:type="extended" type="SUJ-V" id="E1R1"><sujet xlink:href="E1G1"/><verbe xlink:href="E1F2"/>'
    '</relation><relation xlink:type="extended" type="SUJ-V" id="E1R2"><sujet xlink:href="E1G1"/>'
    '<verbe xlink:href="E1F2"/></relation></relations></E>\n',
    # white space inside tags, attributes spaced around "=", a text that is only white space
    '<E  id = "E1" ><Groupe  type= "GN"\n id ="E1G1" ><F\tid="E1F1" > </F ></Groupe\n><F id="E1F2">dort</F  ></E>\n',
]


@pytest.mark.parametrize("shape", range(len(SHAPES)))
def test_unusual_valid_shapes_are_read_as_the_regular_way_reads_them(shape):
    counts = compare(easy_xml(SHAPES[shape]))
    assert counts["read"] + counts["left"] + counts["refused"] == 1


def test_damaged_sentences_are_refused_or_read_as_the_regular_way_reads_them(easy_ref):
    """Six thousand sentences damaged at random (the real ones, and the unusual shapes above): whatever the walk
    answers is what the regular way gives, and what it refuses the regular way still decides."""
    rnd = random.Random(5)
    data = (easy_ref / "general_elda.xml").read_bytes()
    starts = [data.index(b"<E id=", k) for k in (data.index(b'<E id="E2"'), data.index(b'<E id="E3"'),
                                                 data.index(b'<E id="E40"'))]
    bodies = [data[s:data.index(b"</E>", s) + 5] for s in starts]
    bodies += [easy_xml(s).split(b">\n", 2)[2].rsplit(b"</DOCUMENT>", 1)[0] for s in SHAPES]
    total = {"read": 0, "left": 0, "refused": 0}
    for _ in range(6000):
        body = rnd.choice(bodies)
        for _ in range(1 if rnd.random() < 0.8 else 2):
            body = _damaged(body, rnd)
        head = b'<?xml version="1.0" encoding="UTF-8"?>\n<DOCUMENT xmlns:xlink="http://www.w3.org/1999/xlink">\n'
        counts = compare(head + body + b"</DOCUMENT>\n")
        for key in total:
            total[key] += counts[key]
    # both answers happen: damage the walk reads (a changed text, white space) and damage it leaves or refuses
    assert total["read"] > 300 and total["refused"] > 3000 and total["left"] > 40


def test_the_regular_way_still_reads_what_the_walk_leaves(monkeypatch):
    """An entity in a text: the walk answers None and the sentence is read by the regular way, the same."""
    body = sentence("E1", ["R&amp;D", "dort"], {(1, 1): ("G1", "GN")},
                    [("R1", "SUJ-V", {"sujet": "G1", "verbe": "F2"})])
    counts = compare(easy_xml(body))
    assert counts == {"read": 0, "left": 1, "refused": 0}
    counts = compare(easy_xml(body.replace("R&amp;D", "RD")))
    assert counts == {"read": 1, "left": 0, "refused": 0}


def test_the_walk_runs_where_compiled_only():
    assert canonical.SCAN == (bytescan.__loader__.__class__.__name__ == "ExtensionFileLoader")


TWO_GROUPS = ('<E id="E1"><Groupe type="GN" id="E1G1"><F id="E1F1">il</F></Groupe><Groupe type="NV" id="E1G2">'
              '<F id="E1F2">dort</F></Groupe><relations><relation type="SUJ-V" id="E1R1"><sujet xlink:href="E1G1"/>'
              '<verbe xlink:href="E1G2"/></relation></relations></E>\n')


@pytest.mark.parametrize("old, new, answer", [
    ('id="E1G2"', 'id="E1G1"', "refused"),  # a group id twice (the pointer to it made a form's below)
    ('id="E1R1"', 'id="E1G1"', "refused"),  # a relation's id is a group's
    ('id="E1R1"', 'id="E1F1"', "refused"),  # or a form's
    ('id="E1F2"', 'id="E1F3"', "refused"),  # forms out of order
    ('href="E1G2"', 'href="E1R1"', "refused"),  # a pointer to a relation
    ('href="E1G2"', 'href="E1F3"', "refused"),  # to a form past the last
    ('href="E1G2"', 'href="E1F01"', "refused"),  # to no form (ids have no leading zero)
    ('href="E1G2"', 'href="E1G3"', "refused"),  # to no group
    ('href="E1G2"', 'href=""', "refused"),
    ('type="NV"', 'type="XX"', "refused"),
    (">dort<", "><", "refused"),  # a form without text
    ('href="E1G2"', 'href="E1F0"', "read"),  # the null argument
    ('href="E1G2"', 'href="E1F2"', "read"),  # a form
    (">dort<", ">d&gt;ort<", "left"),  # an entity: the regular way unescapes it
    ('<F id="E1F2">', '<F id="E1F2" >', "read"),
    ('id="E1G2"', 'id="E1F0"', "left"),  # a group with the null argument's id: the regular way reads the pointer so
])
def test_ids_and_pointers_are_checked_as_the_regular_way_checks_them(old, new, answer):
    assert TWO_GROUPS.count(old) == 1
    body = TWO_GROUPS.replace(old, new)
    if new in ('id="E1F0"', 'id="E1G1"'):  # what pointed to the group that changed its id
        body = body.replace('href="E1G2"', 'href="E1F0"' if new == 'id="E1F0"' else 'href="E1F2"')
    counts = compare(easy_xml(body))
    assert counts[answer] == 1
