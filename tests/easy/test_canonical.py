"""The canonical-shape path of the reader changes nothing but speed.

Every test reads the same bytes with the canonical path on and off (off: lxml
``iterparse`` and the element paths for the whole file) and compares
everything the reader gives: sentences with every field and line number,
problems, warnings, document attributes and flags. Spies check that the
canonical path really read what the test means it to read, so that a path
that quietly gave up would fail here rather than pass.
"""
from __future__ import annotations

import io
import random
import re

import pytest

from parseval.annotations.easy import canonical
from parseval.annotations.easy import reader as easy_reader
from parseval.annotations.easy.reader import read_document
from parseval.annotations.easy.validate import validate_run

from .conftest import easy_xml, sentence


class Spy:
    """Records the scanners the reader makes."""

    def __init__(self, monkeypatch, enabled: bool = True):
        self.scanners = []
        real = easy_reader._canonical_scanner

        def make(source, fastpath):
            if not enabled:
                return None
            sc = real(source, fastpath)
            if sc is not None:
                self.scanners.append(sc)
            return sc

        monkeypatch.setattr(easy_reader, "_canonical_scanner", make)


def _full(s):
    return (s.id, s.line, [(f.id, f.text, f.line) for f in s.forms],
            [(g.id, g.type, g.start, g.end, g.line) for g in s.groups],
            [(r.id, r.type, r.args, r.extras, r.line) for r in s.relations])


def snapshot(data: bytes, mode: str = "run", reference=None):
    if mode == "validate":
        warnings: list = []
        problems = validate_run(io.BytesIO(data), reference, warnings=warnings)
        return [p.as_dict() for p in problems], [w.as_dict() for w in warnings]
    doc = read_document(io.BytesIO(data), name="doc.xml", gold=(mode == "gold"), strict=False)
    return ([_full(s) for s in doc.sentences], [p.as_dict() for p in doc.problems],
            [w.as_dict() for w in doc.warnings], doc.attributes, doc.has_constituents, doc.has_relations)


def both(data: bytes, monkeypatch, mode: str = "run", reference=None):
    """(snapshot with the canonical path, the scanners it made, snapshot without it)."""
    with monkeypatch.context() as m:
        spy = Spy(m)
        on = snapshot(data, mode, reference)
    with monkeypatch.context() as m:
        Spy(m, enabled=False)
        off = snapshot(data, mode, reference)
    return on, spy.scanners, off


def head_of(path, n: int) -> bytes:
    """The first ``n`` sentences of a real file, closed as a document."""
    data = path.read_bytes()
    end = 0
    for _ in range(n):
        end = data.index(b"</E>", end) + 4
    return data[:end] + b"\n</DOCUMENT>\n"


@pytest.mark.parametrize("mode", ["gold", "run"])
def test_real_files_are_read_whole_by_the_canonical_path_with_identical_results(easy_ref, monkeypatch, mode):
    finished = 0
    for path in sorted(easy_ref.glob("*.xml")):
        on, scanners, off = both(path.read_bytes(), monkeypatch, mode)
        assert on == off, path.name
        assert len(scanners) == 1
        finished += scanners[0].finished
    # the gold has a few dangling pointers and a repeated relation id (warnings, in gold as in a run): those
    # sentences are read by the detailed parser alone, and every file is read whole without iterparse
    assert finished == 22


def test_a_sentence_in_another_shape_is_parsed_alone_and_the_scanner_goes_on(easy_ref, monkeypatch):
    data = head_of(easy_ref / "general_elda.xml", 30)
    twelfth = [m.start() for m in re.finditer(rb"<E id=", data)][11]
    m = re.compile(rb'<Groupe type="(\w+)" id="(\w+)">').search(data, twelfth)
    swapped = data[:m.start()] + b'<Groupe id="' + m.group(2) + b'" type="' + m.group(1) + b'">' + data[m.end():]
    on, scanners, off = both(swapped, monkeypatch, "gold")
    assert on == off
    assert [s[0] for s in on[0]] == re.findall(r'<E id="(\w+)"', data.decode())
    assert scanners[0].accepted == 30 and scanners[0].alone == 1 and scanners[0].finished


def test_a_sentence_with_a_problem_is_read_alone_by_the_detailed_parser_and_the_scanner_goes_on(easy_ref,
                                                                                                  monkeypatch):
    data = head_of(easy_ref / "general_elda.xml", 30)
    starts = [m.start() for m in re.finditer(rb"<E id=", data)]
    m = re.compile(rb'<Groupe type="(\w+)"').search(data, starts[11])
    broken = data[:m.start()] + b'<Groupe type="XX"' + data[m.end():]  # an unknown group type in the 12th
    m = re.compile(rb'<Groupe type="(\w+)"').search(broken, starts[20])
    broken = broken[:m.start()] + b'<Groupe type="YY"' + broken[m.end():]  # and in the 21st
    for mode in ("gold", "run"):
        on, scanners, off = both(broken, monkeypatch, mode)
        assert on == off
        assert [p["message"].split(" (")[0] for p in on[1]] == ["unknown group type 'XX'", "unknown group type 'YY'"]
        # at the lines lxml gives them in the whole file
        assert [p["line"] for p in on[1]] == [broken.count(b"\n", 0, broken.index(t)) + 1 for t in (b"XX", b"YY")]
        assert scanners[0].accepted == 30 and scanners[0].detailed == 2 and scanners[0].alone == 0 and scanners[0].finished


def test_a_span_that_is_not_one_sentence_hands_the_rest_to_lxml_without_repeating_anything(easy_ref, monkeypatch):
    data = head_of(easy_ref / "general_elda.xml", 30)
    twelfth = [m.start() for m in re.finditer(rb"<E id=", data)][11]
    broken = data[:twelfth] + b"<!-- a comment between sentences -->" + data[twelfth:]
    for mode in ("gold", "run"):
        on, scanners, off = both(broken, monkeypatch, mode)
        assert on == off and not on[1]
        assert scanners[0].accepted == 11 and not scanners[0].finished


@pytest.mark.parametrize("written", ["MOD-N2", "MOD", "MOD-", "SUJ-VMOD-N", "mod-n"])
def test_a_relation_type_that_only_begins_or_ends_like_a_known_one_is_not_accepted(monkeypatch, written):
    """The grammar reads a relation's attributes up to its type once and branches at the type's value: a
    value must still be a whole known type, up to its closing quote."""
    body = sentence("E1", ["il", "dort"], {(1, 1): ("G1", "GN"), (2, 2): ("G2", "NV")},
                    [("R1", "MOD-N", {"modifieur": "G1", "nom": "G2"})])
    body += sentence("E2", ["il", "dort"], {(1, 1): ("G1", "GN"), (2, 2): ("G2", "NV")},
                     [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"})])
    body = body.replace('type="MOD-N"', f'type="{written}"')
    for mode in ("gold", "run"):
        on, scanners, off = both(easy_xml(body), monkeypatch, mode)
        assert on == off
        assert len(on[1]) == 1 and repr(written) in on[1][0]["message"] and on[1][0]["sentence"] == "E1"
        assert scanners[0].accepted == 2 and scanners[0].detailed == 1


def test_relation_line_is_where_its_start_tag_ends_as_lxml_numbers_it(monkeypatch):
    body = sentence("E1", ["il", "dort"], {(1, 1): ("G1", "GN"), (2, 2): ("G2", "NV")},
                    [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"})])
    body = body.replace('<relation xlink:type="extended" type="SUJ-V" id="E1R1">',
                        '<relation xlink:type="extended"\n type="SUJ-V"\n\n id="E1R1">')
    body += sentence("E2", ["il", "dort"], {(1, 1): ("G1", "GN"), (2, 2): ("G2", "NV")},
                     [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}), ("R2", "SUJ-V", {"sujet": "G1", "verbe": "G2"})])
    on, scanners, off = both(easy_xml(body), monkeypatch, "gold")
    assert on == off and scanners[0].finished
    relations = on[0][0][4]
    assert relations[0][4] == 10  # E1 on line 3, two groups, <relations> on 6, the tag from 7 to 10
    assert on[2] and on[2][0]["line"] == on[0][1][4][1][4]  # the repeat warning names the second relation's line


@pytest.mark.parametrize("chunk", [64, 257, 4096])
def test_chunk_boundaries_anywhere_change_nothing(easy_ref, monkeypatch, chunk):
    data = head_of(easy_ref / "oral_delic_1.xml", 40)
    expected = both(data, monkeypatch, "run")[2]
    monkeypatch.setattr(canonical, "_CHUNK", chunk)
    on, scanners, off = both(data, monkeypatch, "run")
    assert on == off == expected
    assert scanners[0].accepted == 40 and scanners[0].finished


def test_memory_stays_bounded_by_the_chunk_not_the_file(easy_ref, monkeypatch):
    monkeypatch.setattr(canonical, "_CHUNK", 4096)
    path = easy_ref / "general_lemonde.xml"
    sc = canonical.CanonicalScanner(open(path, "rb"), owned=True)
    largest = 0
    try:
        assert sc.open() is not None
        for _ in sc.spans():
            largest = max(largest, len(sc.buf))
    finally:
        sc.close()
    assert sc.finished and sc.accepted == path.read_bytes().count(b"<E id=") > 400
    assert largest < 3 * 4096 + 20_000  # two chunks and the longest sentence, never the 1.6 MB file


@pytest.mark.parametrize("encoding", ["ISO-8859-1", "UTF-8", "UTF-16"])
def test_encodings(monkeypatch, encoding):
    body = sentence("E1", ["été", "là", "R&amp;D", "«", "x&lt;y&gt;z", "&quot;q&apos;"], {(1, 2): ("G1", "GN")})
    on, scanners, off = both(easy_xml(body, encoding=encoding), monkeypatch, "gold")
    assert on == off
    assert on[0][0][2][2][1] == "R&D" and on[0][0][2][4][1] == "x<y>z" and on[0][0][2][5][1] == "\"q'"
    assert bool(scanners and scanners[0].finished) == (encoding != "UTF-16")


SHAPES = {
    "comment between sentences": lambda b: b.replace(b"</E>\n<E", b"</E>\n<!-- a comment </E> -->\n<E", 1),
    "comment in a sentence": lambda b: b.replace(b"</Groupe>", b"</Groupe><!-- </E> <E id=\"E9\"> -->", 1),
    "processing instruction": lambda b: b.replace(b"<relations>", b"<?pi </E> ?><relations>", 1),
    "CDATA section": lambda b: b.replace(b">et<", b"><![CDATA[et </E>]]><", 1),
    "CRLF line ends": lambda b: b.replace(b"\n", b"\r\n"),
    "lone CR": lambda b: b.replace(b"</F>\n", b"</F>\r", 3),
    "trailing comment": lambda b: b + b"<!-- end -->\n",
    "trailing garbage": lambda b: b + b"<x/>",
    "element after the last sentence": lambda b: b.replace(b"</DOCUMENT>", b"<note/></DOCUMENT>"),
    "text between sentences": lambda b: b.replace(b"</E>\n<E", b"</E>\nstray<E", 1),
    "internal DTD with an entity": lambda b: b.replace(b"<DOCUMENT", b'<!DOCTYPE DOCUMENT [<!ENTITY e "x">]>\n<DOCUMENT', 1),
    "default namespace": lambda b: b.replace(b"<DOCUMENT", b'<DOCUMENT xmlns="urn:x"', 1),
    "xlink bound elsewhere": lambda b: b.replace(b"http://www.w3.org/1999/xlink", b"urn:other", 1),
    "xmlns in an extra child": lambda b: b.replace(b'<a-propager booleen', b'<a-propager xmlns="urn:x" booleen', 1),
    "two attributes on an extra child": lambda b: b.replace(b'booleen="faux"', b'booleen="faux" x="1"', 1),
    "duplicate attribute": lambda b: b.replace(b'booleen="faux"', b'booleen="faux" booleen="vrai"', 1),
    "]]> in a text": lambda b: b.replace(b">et<", b">a]]>b<", 1),
    "character reference": lambda b: b.replace(b">et<", b">&#233;t<", 1),
    "undefined entity": lambda b: b.replace(b">et<", b">&nbsp;<", 1),
    "control character": lambda b: b.replace(b">et<", b">e\x01t<", 1),
    "non-character U+FFFE": lambda b: b.replace(b">et<", b">e\xef\xbf\xbet<", 1),
    "invalid UTF-8": lambda b: b.replace(b">et<", b">\xe9t<", 1),
    "empty form": lambda b: b.replace(b">et<", b"><", 1),
    "self-closing sentence": lambda b: b.replace(b'<E id="E2">', b'<E id="E1b"/>\n<E id="E2">', 1),
    "nested sentence": lambda b: b.replace(b"<relations>", b'<E id="E9"></E><relations>', 1),
    "duplicate sentence id": lambda b: b.replace(b'<E id="E3">', b'<E id="E2">', 1),
    "space before the end of a tag": lambda b: b.replace(b"</E>", b"</E >", 2),
    "single quotes": lambda b: b.replace(b'id="E2F1"', b"id='E2F1'", 1),
    "unknown relation type": lambda b: b.replace(b'type="SUJ-V"', b'type="FOO"', 1),
    "roles in another order": lambda b: re.sub(rb'(<sujet [^>]*/>\n)(<verbe [^>]*/>\n)', rb"\2\1", b, count=1),
    "dangling pointer": lambda b: b.replace(b'xlink:href="E2G3"', b'xlink:href="E2G99"', 1),
    "bare href": lambda b: b.replace(b"xlink:href=", b"href=", 5),
    "truncated file": lambda b: b[: len(b) // 2],
    # the id checks the canonical path makes on what it builds (see canonical._consistent_ids)
    "group id of a form": lambda b: b.replace(b'id="E2G4"', b'id="E2F6"', 1),
    "group id twice": lambda b: b.replace(b'id="E2G4"', b'id="E2G3"', 1),
    "relation id of a group": lambda b: b.replace(b'id="E2R2"', b'id="E2G1"', 1),
    "relation id of a form": lambda b: b.replace(b'id="E2R2"', b'id="E2F1"', 1),
    "relation id twice": lambda b: b.replace(b'id="E2R2"', b'id="E2R1"', 1),
    "pointer to a relation": lambda b: b.replace(b'xlink:href="E2G1"', b'xlink:href="E2R1"', 1),
    "pointer to the null argument": lambda b: b.replace(b'xlink:href="E2G1"', b'xlink:href="E2F0"', 1),
    "group id of the null argument": lambda b: b.replace(b'id="E2G4"', b'id="E2F0"', 1),
    "forms numbered from 0": lambda b: b.replace(b'id="E2F1"', b'id="E2F0"', 1),
    # groups are placed by their first form and their count of forms: one form more, at the start or the end
    "a form moved into a group": lambda b: b.replace(b'</F>\n </Groupe>\n<F id="E2F7">?</F>',
                                                     b'</F>\n<F id="E2F7">?</F>\n </Groupe>', 1),
    "a group holding every form": lambda b: re.sub(rb'(<E id="E2">)(.*?)(<relations>)', _one_group, b, count=1,
                                                   flags=re.S),
    "an extra on a relation without one": lambda b: b.replace(b'<verbe  xlink:type="locator" xlink:href="E2G2"/>\n'
                                                              b'</relation>', b'<verbe  xlink:type="locator" '
                                                              b'xlink:href="E2G2"/>\n<s-o valeur="x"/>\n</relation>',
                                                              1),
}


def _one_group(m: re.Match) -> bytes:
    """Every form of the sentence in one group (the old groups gone, their pointers dangling)."""
    forms = b"".join(re.findall(rb"<F [^>]*>[^<]*</F>\n?", m.group(2)))
    return m.group(1) + b'\n<Groupe type="GN" id="E2G1">\n' + forms + b"</Groupe>\n" + m.group(3)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("mode", ["gold", "run"])
def test_unusual_shapes_and_errors_read_exactly_as_lxml_reads_them(easy_ref, monkeypatch, shape, mode):
    data = head_of(easy_ref / "general_elda.xml", 25)
    changed = SHAPES[shape](data)
    assert changed != data
    on, scanners, off = both(changed, monkeypatch, mode)
    assert on == off


_TOKENS = [b"<", b">", b"&", b"&amp;", b"&#233;", b'"', b"'", b"\r", b"\r\n", b"\x01", b"]]>", b"<!-- c -->",
           b"<?pi x?>", b"<![CDATA[x]]>", b" ", b"\n", b"\t", b' xmlns:a="b"', b"\xe9", b"\xef\xbf\xbe", b"</E>",
           b'<E id="E1">', b'<F id="E1F1">x</F>', b' id="E1G1"', b"/", b"=", b"E", b"F0", b"\xc3\xa9", b"</F>",
           b"a", b"7", b"&lt;", b"&quot;", b"\xe2\x80\x99", b"-", b"G", b"R"]


_INSIDE = re.compile(rb'="([^"]*)"|<F id="[^"]*">([^<]*)</F>')  # an attribute value or a form's text


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    start = data.index(b"<E ")
    if rnd.random() < 0.5:  # inside a value or a text, where the shape may survive
        spots = list(_INSIDE.finditer(data, start))
        m = rnd.choice(spots)
        k = 1 if m.group(1) is not None else 2
        pos = rnd.randint(m.start(k), m.end(k))
    else:
        pos = rnd.randrange(start, len(data))
    kind = rnd.random()
    if kind < 0.3:
        return data[:pos] + data[pos + rnd.randint(1, 8):]
    if kind < 0.8:
        return data[:pos] + rnd.choice(_TOKENS) + data[pos:]
    return data[:pos] + bytes([rnd.randrange(256)]) + data[pos + 1:]


@pytest.mark.parametrize("seed", range(4))
def test_random_damage_is_read_exactly_as_lxml_reads_it(easy_ref, monkeypatch, seed):
    """Bytes deleted, inserted or replaced anywhere in the sentences: both paths must agree, always."""
    rnd = random.Random(seed)
    base = head_of(easy_ref / ("general_elda.xml", "oral_delic_1.xml")[seed % 2], 12)
    reference = read_document(io.BytesIO(base), gold=True, strict=False)
    read_whole = 0
    for _ in range(60):
        data = base
        for _ in range(rnd.randint(1, 3)):
            data = _mutate(data, rnd)
        for mode in ("run", "gold", "validate"):
            on, scanners, off = both(data, monkeypatch, mode, reference)
            assert on == off, (mode, data)
            read_whole += bool(scanners and scanners[0].finished)
    assert read_whole > 0  # some damage leaves the shape canonical (a changed letter in a text...)


def test_a_stream_that_cannot_seek_is_read_by_lxml(easy_ref, monkeypatch):
    data = head_of(easy_ref / "mail_10.xml", 10)

    class Stream(io.RawIOBase):
        def __init__(self):
            self.inner = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            chunk = self.inner.read(len(b))
            b[:len(chunk)] = chunk
            return len(chunk)

    with monkeypatch.context() as m:
        spy = Spy(m)
        doc = read_document(Stream(), name="doc.xml", strict=False)
    assert spy.scanners == [] and len(doc.sentences) == 10 and not doc.problems
    assert [_full(s) for s in doc.sentences] == snapshot(data)[0]


def test_a_caller_file_object_is_left_open_and_read_from_where_it_was(easy_ref, monkeypatch):
    data = head_of(easy_ref / "mail_10.xml", 5)
    broken = data.replace(b'<E id="E3">', b'<E id="E3" >', 1)  # E3 and on go to lxml
    fh = io.BytesIO(b"junk" + broken)
    fh.seek(4)
    doc = read_document(fh, name="doc.xml", strict=False)
    assert not fh.closed
    assert [s.id for s in doc.sentences] == ["E1", "E2", "E3", "E4", "E5"] and not doc.problems


def test_a_guide_schema_of_its_own_is_read_by_the_canonical_path_too(monkeypatch):
    from parseval.annotations.easy.canonical import schema_is_plain
    from parseval.annotations.easy.schema import EasySchema

    schema = EasySchema(("GN", "GX"), {"LIEN": ("source", "cible")}, {"LIEN": ("poids",)})
    assert schema_is_plain(schema)
    assert not schema_is_plain(EasySchema(("G\tN",), {"LIEN": ("source",)}))  # lxml would read "G N"
    assert not schema_is_plain(EasySchema(("GN",), {"LIEN": ("x:source",)}))  # a prefixed name
    body = ('<E id="E1"><Groupe type="GX" id="E1G1"><F id="E1F1">a</F></Groupe><F id="E1F2">b</F>\n'
            '<relations><relation type="LIEN" id="E1R1"><source href="E1G1"/><cible href="E1F2"/>'
            '<poids valeur="2"/></relation></relations></E>\n')
    results = []
    for enabled in (True, False):
        with monkeypatch.context() as m:
            spy = Spy(m, enabled)
            doc = read_document(io.BytesIO(easy_xml(body)), name="doc.xml", schema=schema, strict=False)
            results.append(([_full(s) for s in doc.sentences], doc.problems))
            if enabled:
                assert spy.scanners[0].finished
    assert results[0] == results[1]
    assert results[0][0][0][4] == [("E1R1", "LIEN", {"source": "E1G1", "cible": "E1F2"}, {"poids": {"valeur": "2"}}, 4)]


@pytest.mark.parametrize("mode", ["gold", "run"])
def test_crlf_line_ends_stay_on_the_canonical_path_and_a_lone_cr_does_not(easy_ref, monkeypatch, mode):
    data = head_of(easy_ref / "oral_delic_1.xml", 20).replace(b"\n", b"\r\n")
    data = data.replace(b"</F>", b" \r\n</F>", 3)  # line ends inside texts too: lxml reads them as "\n"
    on, scanners, off = both(data, monkeypatch, mode)
    assert on == off and scanners[0].finished
    lone = data.replace(b"\r\n", b"\r", 1).replace(b'<E id="E5">\r\n', b'<E id="E5">\r', 1)
    on, scanners, off = both(lone, monkeypatch, mode)
    assert on == off and not scanners[0].finished


def test_past_line_65535_lxml_numbers_lines_its_own_way_and_the_canonical_path_hands_over(easy_ref, monkeypatch):
    """libxml2 numbers every element from line 65,535 on one line further; both paths must still agree."""
    data = (easy_ref / "litteraire_4.xml").read_bytes()
    start, end = data.index(b"<E id="), data.rindex(b"</DOCUMENT>")
    copies = [re.sub(rb'(id|href)="E', rb'\1="E%d_' % c, data[start:end]) for c in range(2)]
    big = data[:start] + b"".join(copies) + data[end:]
    assert big.count(b"\n") > 70_000
    on, scanners, off = both(big, monkeypatch, "gold")
    assert on == off
    lines = [s[1] for s in on[0]]
    assert max(lines) > 66_000 and not scanners[0].finished
    assert 0 < scanners[0].accepted < len(lines)


def _other_writer(data: bytes, every: int = 1) -> bytes:
    """The same document as another writer might write it: attributes in another order, single quotes,
    spaces around "=", XLink under the prefix ``xl``, no ``xlink:type``; only every ``every``-th sentence
    is rewritten (the others keep the reference's shape, under the new prefix)."""
    data = data.replace(b'xmlns:xlink="http://www.w3.org/1999/xlink"', b'xmlns:xl="http://www.w3.org/1999/xlink"')
    head, sep, body = data.partition(b"<E id=")
    parts = body.split(b"</E>")

    def rewrite(x: bytes) -> bytes:
        x = re.sub(rb'<Groupe type="([^"]*)" id="([^"]*)">', rb"<Groupe id = '\2' type='\1'>", x)
        x = re.sub(rb'<relation xlink:type="extended" type="([^"]*)" id="([^"]*)">', rb"<relation id='\2'  type='\1' >", x)
        x = re.sub(rb'<([\w-]+) +xlink:type="locator" xlink:href="([^"]*)"/>', rb"<\1 xl:href='\2'/>", x)
        x = re.sub(rb"<[^<>]*>", lambda m: m.group(0).replace(b'"', b"'"), x)  # no value holds a quote
        return re.sub(rb'^"([^"]*)">', rb"'\1'>", x)  # the first sentence's id, split off its tag

    out = []
    for k, part in enumerate(parts):
        part = rewrite(part) if k % every == 0 else part
        out.append(part.replace(b"xlink:", b"xl:"))
    return head + sep + b"</E>".join(out)


def _without_element_lines(snap):
    """A snapshot without the line numbers of forms and groups: only the detailed parser records them (they
    are not part of a sentence's value), so they tell which path read a sentence, not what it read."""
    sentences, *rest = snap
    return ([(sid, line, [f[:2] for f in forms], [g[:4] for g in groups], relations)
             for sid, line, forms, groups, relations in sentences], *rest)


def _detailed_only(data: bytes, mode: str, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(easy_reader, "_fast_path", lambda schema: None)
        return _without_element_lines(snapshot(data, mode))


@pytest.mark.parametrize("every", [1, 3])
def test_real_files_from_another_writer_read_exactly_as_the_detailed_parser_reads_them(easy_ref, monkeypatch, every):
    """Every real file rewritten in another writer's shape (``every`` = 3: only every third sentence, so that
    sentences outside the file's shape are parsed alone): the same as lxml with the element paths, and as
    the detailed parser alone, in gold and run mode."""
    finished = alone = 0
    for path in sorted(easy_ref.glob("*.xml")):
        data = _other_writer(path.read_bytes(), every)
        assert b"xlink" not in data.split(b"<E id=", 1)[1] and (b"id = '" in data)
        for mode in ("gold", "run"):
            on, scanners, off = both(data, monkeypatch, mode)
            assert on == off, (path.name, mode)
            assert _without_element_lines(on) == _detailed_only(data, mode, monkeypatch), (path.name, mode)
            finished += scanners[0].finished
            alone += scanners[0].alone
    assert finished == 2 * 22  # as for the reference's own shape: every file read without iterparse
    assert (alone == 0) == (every == 1)


def _parts_snapshot(data: bytes, as_parts: bool):
    """What scoring reads from a gold file (each sentence's view and forms, the problems and the warnings),
    and how many sentences came as parts."""
    from parseval.annotations.easy.model import SentenceParts
    from parseval.annotations.easy.reader import ProblemSink, iter_sentences
    from parseval.evaluation.easy.ranges import ReferenceView

    sink, warnings, out, parts = ProblemSink(), [], [], 0
    for s in iter_sentences(io.BytesIO(data), name="doc.xml", gold=True, problems=sink, warnings=warnings,
                            parts=as_parts):
        if isinstance(s, SentenceParts):
            parts += 1
            ref, forms = ReferenceView.from_sentence_parts(s), s.forms
        else:
            ref, forms = ReferenceView(s, None), tuple((f.id, f.text) for f in s.forms)
        out.append((s.id, ref.n, ref.cover, ref.cons, ref.rels, sorted(ref.group_ranges), forms, len(s.groups),
                    len(s.relations)))
    return (out, [p.as_dict() for p in sink.result()], [w.as_dict() for w in warnings]), parts


@pytest.mark.parametrize("shape", ["as it is"] + sorted(SHAPES))
def test_gold_read_as_parts_gives_what_the_sentences_give(easy_ref, monkeypatch, shape):
    data = head_of(easy_ref / "general_elda.xml", 25)
    changed = SHAPES[shape](data) if shape in SHAPES else data
    light, parts = _parts_snapshot(changed, True)
    assert light == _parts_snapshot(changed, False)[0]
    if shape == "as it is":
        assert parts >= 20  # read from the bytes, but those with a warning (built, to name its line)


def test_real_gold_read_as_parts_gives_what_the_sentences_give(easy_ref):
    """Whole real files: dangling pointers, repeated relation ids and exact repeats (read as sentences)."""
    total = 0
    for path in sorted(easy_ref.glob("*.xml")):
        light, parts = _parts_snapshot(path.read_bytes(), True)
        assert light == _parts_snapshot(path.read_bytes(), False)[0], path.name
        total += parts
    assert total > 3000


def test_a_repeated_relation_read_as_parts_is_built_from_its_text_with_its_line(easy_ref, monkeypatch):
    """Scoring reads sentences as parts, which cannot name the line of a relation that repeats another (a
    gold warning): that sentence is built from the same text, not parsed alone by lxml, and the warning
    names the line the detailed parser names."""
    data = head_of(easy_ref / "general_elda.xml", 30)
    m = list(re.finditer(rb"<relation [^>]*>.*?</relation>\n", data, re.S))[5]
    repeated = data[:m.end()] + re.sub(rb'id="(\w+)"', rb'id="\1x"', m.group(0), count=1) + data[m.end():]
    with monkeypatch.context() as mp:
        spy = Spy(mp)
        on, parts = _parts_snapshot(repeated, True)
    off, _ = _parts_snapshot(repeated, False)
    assert on == off
    copy = re.search(rb'id="(\w+)"', m.group(0)).group(1).decode() + "x"
    [warning] = [w for w in on[2] if w["element"] == copy]
    assert "repeats relation" in warning["message"]
    assert warning["line"] == repeated.count(b"\n", 0, m.end()) + 1  # the copy's start tag
    assert len(on[2]) == 2  # and the file's own repeat (E5), built the same way
    assert spy.scanners[0].alone == 0 and spy.scanners[0].detailed == 0 and spy.scanners[0].finished
    assert parts == 28  # the other sentences came as parts
