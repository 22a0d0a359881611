"""Streaming reader for EASY XML files (gold and runs).

The reader walks the file with ``lxml.etree.iterparse`` and clears every
sentence once it has been turned into a :class:`~parseval.annotations.easy.model.Sentence`,
so memory does not grow with the file size. Sentences are first read from
their bytes, in chunks, by :mod:`parseval.annotations.easy.canonical`, in the tag
dialect of the file (guessed from its first sentences); a sentence in
another shape is parsed alone by lxml, and only a sentence with a problem
sends the rest of the file to ``iterparse``, which alone reports problems. It never loads a DTD and never
resolves an entity (internal or external) nor touches the network: the
``<!DOCTYPE DOCUMENT SYSTEM "easy.dtd">`` line of the real files is ignored,
and an entity reference in the content is refused.

Errors (malformed XML, unknown group or relation type, wrong or missing
roles, nested or overlapping groups, duplicate form or group ids, a
sentence with more forms, groups or relations than :mod:`parseval.annotations.limits`
allows) are :class:`~parseval.annotations.errors.Problem` objects naming the file, line,
sentence id and element. In gold and runs alike, a pointer to an element that is not
in the sentence is a warning (the argument becomes a null argument), and so
are a repeated relation id and an exact duplicate relation: the shipped gold
has all three and must be accepted as a run.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from lxml import etree

from parseval.annotations.errors import InputError, Problem, N_
from parseval.annotations.limits import MAX_SENTENCE_GROUPS, MAX_SENTENCE_RELATIONS, MAX_SENTENCE_WORDS, size_problems

from .canonical import _MAX_LINE as MAX_SHIFTED_LINE
from .canonical import CanonicalScanner
from .fastpath import FastPath
from .model import Document, Form, Group, SentenceParts, Relation, Sentence
from .schema import DEFAULT_SCHEMA, EasySchema

XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
DEFAULT_MAX_PROBLEMS = 1000

Source = "str | os.PathLike | IO[bytes]"


def source_name(source) -> str:
    """The base name used to pair files and to name them in messages."""
    if isinstance(source, (str, os.PathLike)):
        return Path(source).name
    return Path(getattr(source, "name", "<stream>")).name


def document_key(name: str) -> str:
    """Pairing key of a file: its base name without a trailing ``.xml``."""
    name = Path(name).name
    return name[:-4] if name.lower().endswith(".xml") else name


class ProblemSink:
    """Collects problems up to a limit, then only counts them."""

    def __init__(self, limit: int | None = DEFAULT_MAX_PROBLEMS):
        self.items: list[Problem] = []
        self.limit = limit
        self.dropped = 0

    def add(self, problem: Problem) -> None:
        if self.limit is None or len(self.items) < self.limit:
            self.items.append(problem)
        else:
            self.dropped += 1

    def __len__(self) -> int:
        return len(self.items) + self.dropped

    def result(self) -> list[Problem]:
        out = list(self.items)
        if self.dropped:
            out.append(Problem(N_('... and %(dropped)s more problems not shown') % {"dropped": self.dropped}))
        return out


def _iterparse(source):
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    return etree.iterparse(
        source,
        events=("start", "end"),
        tag=("DOCUMENT", "E"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


class SentenceParser:
    """Turns one ``<E>`` element into a :class:`Sentence`, reporting what is wrong.

    ``gold`` says which side is read; gold and runs are held to the same rules
    (a run may be the gold itself). Problems go to ``problems.add``; warnings
    to ``warnings``.
    """

    def __init__(self, file: str, schema: EasySchema, *, gold: bool, problems, warnings: list):
        self.file = file
        self.schema = schema
        self.group_types = frozenset(schema.group_types)
        self.roles = dict(schema.relation_roles)
        self.extras = {t: frozenset(schema.extras(t)) for t in self.roles}
        self.gold = gold
        self.problems = problems
        self.warnings = warnings
        self.seen_sentences: set[str] = set()
        self.saw_group = False
        self.saw_relation = False

    def _err(self, message, line, sentence=None, element=None):
        self.problems.add(Problem(message, file=self.file, line=line, sentence=sentence, element=element))

    def _warn(self, message, line, sentence=None, element=None):
        self.warnings.append(Problem(message, file=self.file, line=line, sentence=sentence, element=element))

    def parse(self, e, warn_duplicates_too: bool = True) -> Sentence:
        sid = e.get("id")
        line = e.sourceline
        if not sid:
            self._err(N_("sentence <E> without an id"), line, element="E")
            sid = f"<E at line {line}>"
        elif sid in self.seen_sentences:
            self._err(N_('duplicate sentence id %(sid)s') % {"sid": sid}, line, sid, "E")
        self.seen_sentences.add(sid)
        sent = Sentence(id=sid, line=line)
        forms = sent.forms
        ids: dict[str, str] = {}  # id -> kind ("form", "group", "relation")
        form_group: dict[str, str] = {}
        relation_elems = []

        def add_form(f, group_id):
            fid = f.get("id")
            fline = f.sourceline
            text = f.text
            if len(f):
                for c in f:
                    if c.tag is etree.Entity:
                        self._err(N_('entity reference %(text)s is not allowed (entities are never resolved)') % {"text": c.text},
                                  fline, sid, fid or "F")
                    elif isinstance(c.tag, str):
                        self._err(N_('unexpected element <%(tag)s> inside a form') % {"tag": c.tag}, fline, sid, fid or "F")
                    if c.tail:
                        text = (text or "") + c.tail
            expected = f"{sid}F{len(forms) + 1}"
            if not fid:
                self._err(N_('form without an id (expected %(expected)s)') % {"expected": expected}, fline, sid, "F")
                fid = expected
            elif fid in ids:
                if ids[fid] == "form" and (group_id is not None or form_group.get(fid) is not None):
                    other = form_group.get(fid)
                    where = f"group {other}" if other else "the sentence"
                    self._err(N_('overlapping groups: form %(fid)s is already in %(where)s') % {"fid": fid, "where": where}, fline, sid, fid)
                else:
                    self._err(N_('duplicate id %(fid)s') % {"fid": fid}, fline, sid, fid)
                return
            elif fid != expected:
                self._err(N_('form id %(fid)s out of order: expected %(expected)s (forms are numbered from 1 in text order)') % {"fid": fid, "expected": expected},
                          fline, sid, fid)
            ids[fid] = "form"
            if group_id is not None:
                form_group[fid] = group_id
            forms.append(Form(fid, (text or "").strip(), fline))

        def add_group(g):
            self.saw_group = True
            gid = g.get("id")
            gtype = g.get("type")
            gline = g.sourceline
            if not gid:
                self._err(N_("group without an id"), gline, sid, "Groupe")
                gid = f"<Groupe at line {gline}>"
            elif gid in ids:
                self._err(N_('duplicate id %(gid)s') % {"gid": gid}, gline, sid, gid)
            else:
                ids[gid] = "group"
            if gtype not in self.group_types:
                self._err(N_('unknown group type %(gtype)r (expected one of %(value)s)') % {"gtype": gtype, "value": ', '.join(self.schema.group_types)},
                          gline, sid, gid)
            start = len(forms)
            for c in g:
                tag = c.tag
                if tag == "F":
                    add_form(c, gid)
                elif tag == "Groupe":
                    self._err(N_('nested group: group %(value)s inside group %(gid)s') % {"value": c.get('id'), "gid": gid}, c.sourceline, sid,
                              c.get("id") or "Groupe")
                    for cc in c.iter("F"):
                        add_form(cc, gid)
                elif tag is etree.Entity:
                    self._err(N_('entity reference %(text)s is not allowed') % {"text": c.text}, gline, sid, gid)
                elif isinstance(tag, str):
                    self._err(N_('unexpected element <%(tag)s> inside group %(gid)s') % {"tag": tag, "gid": gid}, c.sourceline, sid, gid)
            if len(forms) == start:
                self._err(N_('group %(gid)s has no form') % {"gid": gid}, gline, sid, gid)
            sent.groups.append(Group(gid, gtype or "", start, len(forms), gline))

        def walk(container, allow_wrapper):
            for c in container:
                tag = c.tag
                if tag == "F":
                    add_form(c, None)
                elif tag == "Groupe":
                    add_group(c)
                elif tag == "relations":
                    relation_elems.append(c)
                elif tag == "constituants" and allow_wrapper:
                    walk(c, False)
                elif tag is etree.Entity:
                    self._err(N_('entity reference %(text)s is not allowed') % {"text": c.text}, c.sourceline, sid, "E")
                elif isinstance(tag, str):
                    self._err(N_('unexpected element <%(tag)s> in sentence') % {"tag": tag}, c.sourceline, sid, tag)

        walk(e, True)
        for rels in relation_elems:
            for r in rels:
                if r.tag == "relation":
                    self._relation(r, sent, ids)
                elif isinstance(r.tag, str):
                    self._err(N_('unexpected element <%(tag)s> in <relations>') % {"tag": r.tag}, r.sourceline, sid, r.tag)
        if warn_duplicates_too and len(sent.relations) > 1:
            warn_duplicates(self.file, sent, self.warnings)
        return sent

    def _relation(self, r, sent: Sentence, ids: dict):
        self.saw_relation = True
        sid = sent.id
        rid = r.get("id")
        rtype = r.get("type")
        line = r.sourceline
        if not rid:
            self._err(N_("relation without an id"), line, sid, "relation")
            rid = f"<relation at line {line}>"
        elif rid in ids:
            # relation ids are never pointed to; the real gold repeats a few (oral_delic_1 E96), and a run
            # that copies the gold must be accepted as it is
            if ids[rid] == "relation":
                self._warn(N_('duplicate relation id %(rid)s') % {"rid": rid}, line, sid, rid)
            else:
                self._err(N_('duplicate id %(rid)s') % {"rid": rid}, line, sid, rid)
        else:
            ids[rid] = "relation"
        roles = self.roles.get(rtype)
        if roles is None:
            self._err(N_('unknown relation type %(rtype)r (expected one of %(value)s)') % {"rtype": rtype, "value": ', '.join(self.roles)}, line, sid, rid)
            return
        extras_ok = self.extras[rtype]
        args: dict[str, str] = {}
        extras: dict[str, dict[str, str]] = {}
        ok = True
        for c in r:
            tag = c.tag
            if not isinstance(tag, str):
                continue
            if tag in extras_ok:
                extras[tag] = dict(c.attrib)
            elif tag in roles:
                if tag in args:
                    self._err(N_('role %(tag)s given twice in relation %(rtype)s') % {"tag": tag, "rtype": rtype}, c.sourceline, sid, rid)
                    ok = False
                    continue
                href = c.get(XLINK_HREF)
                if href is None:
                    href = c.get("href")
                if not href:
                    self._err(N_('role %(tag)s has no xlink:href') % {"tag": tag}, c.sourceline, sid, rid)
                    ok = False
                    continue
                args[tag] = href.strip()
            else:
                self._err(N_('wrong role <%(tag)s> for relation type %(rtype)s (expected %(value)s)') % {"tag": tag, "rtype": rtype, "value": ', '.join(roles)},
                          c.sourceline, sid, rid)
                ok = False
        missing = [role for role in roles if role not in args]
        if missing:
            self._err(N_('missing role%(value)s %(value2)s for relation type %(rtype)s (expected %(value3)s)') % {"value": 's' if len(missing) > 1 else '', "value2": ', '.join(missing), "rtype": rtype, "value3": ', '.join(roles)}, line, sid, rid)
            ok = False
        if not ok:
            return
        null = f"{sid}F0"
        for role in roles:
            target = args[role]
            kind = ids.get(target)
            if target == null or kind in ("form", "group"):
                continue
            if kind == "relation":
                self._err(N_('role %(role)s points to relation %(target)s: an argument is a form or a group') % {"role": role, "target": target},
                          line, sid, rid)
                continue
            # in a run as in gold (the real gold has a few): the argument is read as null and scores so
            self._warn(N_('role %(role)s points to %(target)s, which is not in the sentence: read as a null argument') % {"role": role, "target": target},
                       line, sid, rid)
        # keep roles in schema order
        sent.relations.append(Relation(rid, rtype, {role: args[role] for role in roles}, extras, line))


def compare_forms(sentence: Sentence, expected, file: str) -> list[Problem]:
    """Problems of a run sentence whose forms differ from the reference's ``((form id, text), ...)``."""
    out = []
    forms = sentence.forms
    if len(forms) == len(expected):
        for f, (eid, etext) in zip(forms, expected):
            if f.id != eid:
                out.append(Problem(N_('form id %(id)s, expected %(eid)s (%(etext)r)') % {"id": f.id, "eid": eid, "etext": etext}, file=file, line=f.line,
                                   sentence=sentence.id, element=f.id))
            elif f.text != etext:
                out.append(Problem(N_('form %(id)s is %(text)r, expected %(etext)r') % {"id": f.id, "text": f.text, "etext": etext}, file=file, line=f.line,
                                   sentence=sentence.id, element=f.id))
        return out
    first = next((k for k, (f, e) in enumerate(zip(forms, expected)) if (f.id, f.text) != tuple(e)), None)
    if first is None:
        first = min(len(forms), len(expected))
    if first < len(forms):
        f = forms[first]
        got, line, element = f"{f.id} {f.text!r}", f.line, f.id
    else:
        got, line, element = "the end of the sentence", sentence.line, "E"
    want = f"{expected[first][0]} {expected[first][1]!r}" if first < len(expected) else "the end of the sentence"
    out.append(Problem(N_('sentence has %(n_forms)s forms, expected %(n_expected)s: at position %(value)s found %(got)s, expected %(want)s') % {"n_forms": len(forms), "n_expected": len(expected), "value": first + 1, "got": got, "want": want}, file=file, line=line, sentence=sentence.id,
                       element=element))
    return out


def _same_forms(fids, texts, expected) -> bool:
    """Whether a sentence's form ids and texts are the expected ``((id, stripped text), ...)`` (a text may
    differ by the white space around it). The same as its parts' forms, whose texts are stripped, being
    ``expected`` as a tuple: the canonical path tries that first."""
    if len(expected) != len(fids):
        return False
    for fid, text, (eid, etext) in zip(fids, texts, expected):
        if fid != eid or (text != etext and text.strip() != etext):
            return False
    return True


def _declares_entities(root) -> bool:
    try:
        dtd = root.getroottree().docinfo.internalDTD
    except Exception:  # pragma: no cover - defensive
        return True
    return dtd is not None and any(True for _ in dtd.iterentities())


def _canonical_sentences(scanner, fastpath, seen_ids, expected_forms, expected_complete, want, accept, seen,
                         parts=False, detailed=None):
    """Sentences read straight from the bytes while the file keeps the canonical shape, a doubtful
    sentence parsed alone by lxml, and read by ``detailed(element)`` (the detailed parser, as within the
    whole file) when the fast path cannot accept it.

    Returns the root element when the whole file was read this way, None when the detailed
    parser must take over (from ``scanner.accepted`` sentences on).
    """
    try:
        root = scanner.open()
        if root is None or _declares_entities(root):
            return None
        text_path = fastpath.text_path(scanner.dialect)
        buf = scanner.buf
        for sid, start, end, line in scanner.spans():
            exp = expected_forms.get(sid) if expected_forms is not None else None
            wanted = want is None or want(sid)
            ok = None
            # a sentence id seen before, an unknown one, or a sentence that may exceed the limits: only the
            # detailed parser reports it
            if (sid not in seen_ids and (exp is not None or not expected_complete)
                    and not _may_exceed_limits(buf, start, end)):
                ok = text_path.check(buf, start, end, scanner.codec, sid, exp is not None, wanted, line, parts)
                if ok is None:
                    ok = _alone(scanner, fastpath, start, end, sid, wanted, exp, line)
                elif (exp is not None and not (parts and ok[4] is not None and ok[4].forms == exp)
                      and not _same_forms(ok[0], ok[1], exp)):
                    ok = None
            if ok is not None:
                sent = accept(sid, ok)
                if seen is not None:
                    seen.append(sid)
            else:
                el = _at_its_lines(scanner, start, end, sid, line) if detailed is not None else None
                if el is None:
                    break
                sent = detailed(el)
                scanner.detailed += 1
            if sent is not None:
                yield sent
        return root if scanner.finished else None
    finally:
        scanner.close()


def _at_its_lines(scanner, start: int, end: int, sid: str, line: int):
    """The sentence parsed alone at its true line numbers, or None where lxml might number or read it
    otherwise in the whole file."""
    if line + scanner.buf.count(b"\n", start, end) >= MAX_SHIFTED_LINE:
        return None  # lxml numbers lines its own way from 65,535 on (see canonical.py)
    el = scanner.element(start, end, line)
    return el if el is not None and el.get("id") == sid else None


def _alone(scanner, fastpath, start: int, end: int, sid: str, wanted: bool, exp, line: int):
    """The fast path's reading of one sentence that lxml parsed alone, or None (the detailed parser
    then reads the rest of the file)."""
    if wanted and line + scanner.buf.count(b"\n", start, end) >= MAX_SHIFTED_LINE:
        return None  # lxml numbers lines its own way from 65,535 on (see canonical.py)
    el = scanner.element(start, end)
    if el is None or el.get("id") != sid:
        return None
    ok = fastpath.check(el, sid, exp is not None, wanted, line_offset=line - 1)
    if ok is not None and exp is not None and not _same_forms(ok[0], ok[1], exp):
        return None
    if ok is not None:
        scanner.alone += 1
    return ok


def _fast_check(fastpath, el, sid: str, wanted: bool, expected_forms, expected_complete: bool):
    """The fast path's reading of one sentence element, or None when the detailed parser must read it."""
    exp = expected_forms.get(sid) if expected_forms is not None else None
    # an unknown sentence id goes to the detailed parser, which reports it; texts are
    # only read when there is something to compare them with
    if exp is None and expected_complete:
        return None
    ok = fastpath.check(el, sid, exp is not None, wanted)
    if ok is not None and exp is not None and not _same_forms(ok[0], ok[1], exp):
        return None
    return ok


def _check_expected(sent: Sentence, expected_forms, expected_complete: bool, sink: ProblemSink, file: str) -> None:
    """A sentence the detailed parser read, against the corpus forms it should have."""
    if expected_forms is None:
        return
    exp = expected_forms.get(sent.id)
    if exp is None:
        if expected_complete:
            sink.add(Problem(N_('unknown sentence id %(id)s: not in the corpus') % {"id": sent.id}, file=file,
                             line=sent.line, sentence=sent.id, element="E"))
    else:
        for p in compare_forms(sent, exp, file):
            sink.add(p)


def _release(el, parent, sink: ProblemSink, file: str) -> None:
    """Free memory: the sentence element and everything before it (reporting stray elements on the way)."""
    el.clear(keep_tail=False)
    if parent is not None:
        prev = el.getprevious()
        while prev is not None:
            if isinstance(prev.tag, str) and prev.tag != "E":
                sink.add(Problem(N_('unexpected element <%(tag)s> in <DOCUMENT>') % {"tag": prev.tag}, file=file,
                                 line=prev.sourceline, element=prev.tag))
            parent.remove(prev)
            prev = el.getprevious()


def iter_sentences(
    source,
    *,
    schema: EasySchema = DEFAULT_SCHEMA,
    gold: bool = False,
    problems: ProblemSink | None = None,
    warnings: list | None = None,
    info: dict | None = None,
    name: str | None = None,
    want=None,
    expected_forms=None,
    expected_complete: bool = False,
    seen: list | None = None,
    fast: bool = True,
    parts: bool = False,
) -> Iterator[Sentence | SentenceParts]:
    """Yield the sentences of one EASY file, one at a time.

    With ``problems`` given, every problem is added to it and reading goes
    on; without it, the first sentence that has a problem raises
    :class:`InputError` (with all of that sentence's problems). Malformed
    XML always stops reading. ``info``, if given, receives the document
    attributes and whether groups and relations were seen.

    ``want(sentence_id)`` (default: every sentence) selects the sentences
    to build and yield; the others are only validated. ``expected_forms``
    maps sentence ids to ``((form id, text), ...)``: form ids and texts
    that differ are problems, and so is a sentence id it lacks when
    ``expected_complete``. ``seen`` receives every sentence id read.

    With ``parts``, a sentence read from its bytes in the canonical shape
    is yielded as :class:`~parseval.annotations.easy.model.SentenceParts` (what
    scoring reads from a sentence, without building it: the form, group
    and relation objects are most of the cost of reading), any other as a
    :class:`Sentence`; problems and warnings are the same.
    """
    file = name or source_name(source)
    strict = problems is None
    sink = ProblemSink(None) if strict else problems
    warnings = [] if warnings is None else warnings
    parser = SentenceParser(file, schema, gold=gold, problems=sink, warnings=warnings)
    fastpath = _fast_path(schema) if fast else None
    if fastpath is not None and not fastpath.enabled:
        fastpath = None
    seen_ids = parser.seen_sentences
    info = {} if info is None else info
    info.setdefault("attributes", {})
    seen_root = False
    current = None
    before = len(sink)
    skip = 0

    def read(el) -> Sentence | None:
        """The detailed parser's reading of one sentence element (a fast path did not accept it): its
        problems and warnings reported, the sentence returned when it is wanted."""
        sid = el.get("id")
        for p in _limit_problems(el, file, sid):
            sink.add(p)
        wanted = want is None or want(sid)
        sent = parser.parse(el, wanted)  # duplicates only matter (and are reported) where scored
        _check_expected(sent, expected_forms, expected_complete, sink, file)
        if seen is not None:
            seen.append(sid)
        if strict and len(sink):
            raise InputError(sink.result())
        return sent if wanted else None

    def accept(sid: str, ok) -> Sentence | None:
        """Record a sentence that a fast path accepted; return it when it was built."""
        seen_ids.add(sid)
        if ok[2]:
            parser.saw_group = True
        if ok[3]:
            parser.saw_relation = True
        sent = ok[4]
        if sent is not None and len(sent.relations) > 1 and isinstance(sent, Sentence):  # parts repeat none
            warn_duplicates(file, sent, warnings)
        return sent

    scanner = _canonical_scanner(source, fastpath)
    if scanner is not None:
        root = yield from _canonical_sentences(scanner, fastpath, seen_ids, expected_forms, expected_complete,
                                               want, accept, seen, parts, read)
        if root is not None:
            info["attributes"] = dict(root.attrib)
            info["has_constituents"] = parser.saw_group
            info["has_relations"] = parser.saw_relation
            return
        skip = scanner.accepted
        if not isinstance(source, (str, os.PathLike)):
            source.seek(scanner.origin)
    try:
        for event, el in _iterparse(source):
            if event == "start":
                if el.tag == "DOCUMENT":
                    if seen_root or el.getparent() is not None:
                        sink.add(Problem(N_("unexpected nested <DOCUMENT>"), file=file, line=el.sourceline,
                                         element="DOCUMENT"))
                    seen_root = True
                    info["attributes"] = dict(el.attrib)
                    if fastpath is not None and _declares_entities(el):
                        fastpath = None
                elif el.tag == "E":
                    current = el.get("id")
                continue
            if el.tag != "E":
                continue
            parent = el.getparent()
            if skip:  # read already, in the canonical shape
                skip -= 1
                el.clear(keep_tail=False)
                while el.getprevious() is not None:
                    del parent[0]
                current = None
                continue
            if parent is None or parent.tag != "DOCUMENT" or parent.getparent() is not None:
                sink.add(Problem(N_("sentence <E> outside the <DOCUMENT> root element"), file=file,
                                 line=el.sourceline, sentence=el.get("id"), element="E"))
            sid = el.get("id")
            for p in _limit_problems(el, file, sid):
                sink.add(p)
            wanted = want is None or want(sid)
            ok = None
            if fastpath is not None and sid and sid not in seen_ids:
                ok = _fast_check(fastpath, el, sid, wanted, expected_forms, expected_complete)
            if ok is not None:
                sent = accept(sid, ok)
            else:
                sent = parser.parse(el, wanted)  # duplicates only matter (and are reported) where scored
                _check_expected(sent, expected_forms, expected_complete, sink, file)
                if not wanted:
                    sent = None
            if seen is not None:
                seen.append(sid)
            _release(el, parent, sink, file)
            current = None
            if strict and len(sink):
                raise InputError(sink.result())
            if sent is not None:
                yield sent
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        msg = exc.msg or str(exc)
        sink.add(Problem(N_('malformed XML: %(msg)s') % {"msg": msg}, file=file, line=line, sentence=current))
        if strict:
            raise InputError(sink.result()) from None
        info["fatal"] = True
        return
    if not seen_root:
        sink.add(Problem(N_("not an EASY document: the root element must be <DOCUMENT>"), file=file, line=1,
                         element="DOCUMENT"))
    info["has_constituents"] = parser.saw_group
    info["has_relations"] = parser.saw_relation
    if strict and len(sink) > before:
        raise InputError(sink.result())


_COUNTED = {"F": "words", "Groupe": "groups", "relation": "relations"}


def _limit_problems(e, file: str, sid: str | None) -> list[Problem]:
    """The sentence's forms, groups and relations against :mod:`parseval.annotations.limits`, for every sentence alike:
    scoring reads only some of them, so what it could not handle must be refused here."""
    counts = dict.fromkeys(_COUNTED.values(), 0)
    for x in e.iter(*_COUNTED):
        counts[_COUNTED[x.tag]] += 1
    return size_problems(counts, file=file, line=e.sourceline, sentence=sid, element="E")


_FEWEST_LIMIT = min(MAX_SENTENCE_WORDS, MAX_SENTENCE_GROUPS, MAX_SENTENCE_RELATIONS)


def _may_exceed_limits(buf, start: int, end: int) -> bool:
    """A cheap upper bound on the counts of :func:`_limit_problems` for a sentence's bytes (``<relations>``
    and unknown tags starting alike are counted too, so it errs on the side of the detailed parser)."""
    size = end - start  # a count cannot exceed size // len(tag): most sentences need no count at all
    if size <= 2 * _FEWEST_LIMIT:
        return False
    # nor than the count of "<", which bytes count about 2.5 times faster than "<F" ("F" is in every id):
    # a long sentence (a quarter of a realistic run's are above 4,000 bytes) is then scanned once
    if buf.count(b"<", start, end) <= _FEWEST_LIMIT:
        return False
    return ((size > 2 * MAX_SENTENCE_WORDS and buf.count(b"<F", start, end) > MAX_SENTENCE_WORDS)
            or (size > 7 * MAX_SENTENCE_GROUPS and buf.count(b"<Groupe", start, end) > MAX_SENTENCE_GROUPS)
            or (size > 9 * MAX_SENTENCE_RELATIONS and buf.count(b"<relation", start, end) > MAX_SENTENCE_RELATIONS))


def _canonical_scanner(source, fastpath) -> CanonicalScanner | None:
    """A scanner for the canonical shape, where the file can be read again by lxml after a doubt."""
    if fastpath is None or not fastpath.plain:
        return None
    if isinstance(source, (str, os.PathLike)):
        try:
            return CanonicalScanner(open(source, "rb"), owned=True)
        except OSError:
            return None  # lxml reports it as it always has
    try:
        if source.seekable():
            return CanonicalScanner(source, owned=False, origin=source.tell())
    except (AttributeError, OSError, ValueError):
        pass
    return None


_FAST_CACHE: dict[int, tuple] = {}


def _fast_path(schema: EasySchema):
    hit = _FAST_CACHE.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    fp = FastPath(schema)
    _FAST_CACHE[id(schema)] = (schema, fp)
    return fp


def read_document(
    source,
    *,
    schema: EasySchema = DEFAULT_SCHEMA,
    gold: bool = True,
    strict: bool = True,
    name: str | None = None,
    max_problems: int | None = DEFAULT_MAX_PROBLEMS,
) -> Document:
    """Read a whole EASY file into a :class:`Document`.

    ``strict=True`` raises :class:`InputError` listing every problem of the
    file; ``strict=False`` keeps them in ``Document.problems``.
    """
    file = name or source_name(source)
    sink = ProblemSink(max_problems)
    warnings: list[Problem] = []
    info: dict = {}
    sentences = list(iter_sentences(source, schema=schema, gold=gold, problems=sink, warnings=warnings,
                                    info=info, name=file))
    doc = Document(
        name=file,
        sentences=sentences,
        attributes=info.get("attributes", {}),
        path=os.fspath(source) if isinstance(source, (str, os.PathLike)) else None,
        warnings=warnings,
        problems=sink.result(),
        has_constituents=bool(info.get("has_constituents")),
        has_relations=bool(info.get("has_relations")),
    )
    if strict and doc.problems:
        raise InputError(doc.problems)
    return doc


def warn_duplicates(doc_name: str, sentence: Sentence, warnings: list) -> None:
    """Add a warning for each relation that repeats an earlier one exactly (same type and targets)."""
    seen: dict[tuple, str] = {}
    for r in sentence.relations:
        key = (r.type, tuple(r.args.values()))
        if key in seen:
            warnings.append(Problem(N_('relation %(id)s repeats relation %(seen)s exactly (counted once)') % {"id": r.id, "seen": seen[key]},
                                    file=doc_name, line=r.line, sentence=sentence.id, element=r.id))
        else:
            seen[key] = r.id
