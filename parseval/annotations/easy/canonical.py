"""The canonical shape: reading EASY sentences from their bytes, without lxml, whatever wrote them.

Parsing a file with lxml and then walking every element from Python costs
about twice the bare parse. For a sentence in the canonical shape one regular
expression, built from the schema, checks the whole structure (tags, group
types, relation types with their roles in schema order, extra children), and
a few ``findall`` calls collect the ids and pointers for the same checks as
:class:`~parseval.annotations.easy.fastpath.FastPath`.

The canonical shape is not one writer's: attributes in any order (each
once), between double or single quotes, white space around ``=`` and before
the end of a tag, the XLink namespace under whatever prefix the document
binds to it (or a bare ``href``), ``xlink:type`` attributes or none. It is
still a strict subset of well-formed XML: fixed element and attribute names,
attribute values without quotes, ``=``, ``<``, ``>``, references or line
ends, texts without ``<``, control characters, ``]]>`` or any reference but
the five predefined entities, only XML white space between tags, strict
decoding. A text it accepts is therefore well formed, and means what lxml
would read. The prelude up to the ``<DOCUMENT>`` start tag and what follows
the last sentence are still read by lxml.

A sentence outside that grammar (roles in another order, a comment, a
character reference, an error...) is a doubt, settled one sentence at a
time: lxml parses that sentence alone from its bytes
(:meth:`CanonicalScanner.element`) and ``FastPath.check`` reads the element;
if it is certainly valid the scanner goes on with the next sentence. If it
is not (a problem or a warning to report: a dangling pointer in the gold, a
form that differs from the corpus, an unknown or repeated sentence id, a
sentence that may exceed the limits), the detailed parser reads that same
sentence, parsed alone again at its true line numbers, exactly as it reads
it within the whole file, and the scanner goes on. Only when the span is
not exactly one sentence (a lone carriage return, a comment between
sentences, malformed XML, a sentence past line 65,000...) does the reader
read the rest of the file with lxml ``iterparse``, skipping the sentences
already read. The detailed parser therefore still decides and names every
problem; this path only changes how fast a valid sentence is accepted.

Line numbers are counted here: they are the true line numbers, which lxml's
are too below line 65,535 (from there on libxml2 numbers every element one
line further). A sentence to be built past line 65,000 is therefore a
doubt, so that both paths agree everywhere.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from parseval.annotations.compiled import is_compiled
from parseval.annotations.xmltext import quoteattr

from lxml import etree

from .model import Form, Group, SentenceParts, Relation, Sentence
from .schema import EasySchema
from .writer import XLINK_NS

_S = r"[ \t\r\n]"  # XML white space (Python's \s also matches other Unicode spaces)
_CTRL = r"\x00-\x08\x0b\x0c\x0e-\x1f"  # characters XML 1.0 forbids
_TEXT = rf"(?:[^<&{_CTRL}]++|&(?:amp|lt|gt|quot|apos);)*+"  # texts may use the five predefined entities
_ENTITY = re.compile(r"&(amp|lt|gt|quot|apos);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
_PLAIN_VALUE = re.compile(rf"[^\"'<>&\t\r\n{_CTRL}]*\Z")
# an extra child's single attribute: no prefix, not href, no reserved xml* name (xmlns would declare a namespace)
_EXTRA_ATTR = r"(?!href[ \t\r\n]*+=)(?![Xx][Mm][Ll])[A-Za-z_][A-Za-z0-9_.-]*+"
_MAX_LINE = 65000

_PRELUDE = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:[ \t\r\n]++|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^\[<>]*+>)*+"
    rb"<DOCUMENT(?:[ \t\r\n][^<>]*+)?>")
_CODECS = {"utf-8": "utf-8", "ascii": "ascii", "iso8859-1": "latin-1"}
_NEXT_SENTENCE = re.compile(rb"[ \t\r\n]*+(<E[ \t\r\n]++id[ \t\r\n]*+=[ \t\r\n]*+([\"']))")
_CHUNK = 1 << 20
try:
    from . import bytescan
except ImportError:  # its source declares C types through Cython's pure-Python names: without Cython, no walk
    bytescan = None
# a sentence's parts read in one walk over its bytes (bytescan.py), where that module is compiled: as Python,
# byte by byte, it would be slower than the regular expressions
SCAN = bytescan is not None and is_compiled(bytescan)
_MAX_SENTENCE = 4 << 20  # a sentence (or what follows the last one) longer than this is a doubt


@dataclass(frozen=True)
class Dialect:
    """How one writer writes its tags: the quote, and the attributes of each element in their order.

    ``relation`` and ``role`` may hold a ``<prefix>:type`` attribute (XLink's,
    optional where it stands); ``role`` holds exactly one pointer,
    ``<prefix>:href`` or ``href``. The reference writes :data:`REFERENCE`.
    """

    quote: str = '"'
    group: tuple[str, ...] = ("type", "id")
    relation: tuple[str, ...] = ("xlink:type", "type", "id")
    role: tuple[str, ...] = ("xlink:type", "xlink:href")


REFERENCE = Dialect()
_NAME = rb"[A-Za-z_][A-Za-z0-9_.-]*+(?::[A-Za-z_][A-Za-z0-9_.-]*+)?"
_TAG_ATTRIBUTES = rb"((?:[ \t\r\n]++" + _NAME + rb"[ \t\r\n]*+=[ \t\r\n]*+(?:\"[^\"<]*\"|'[^'<]*'))*+)[ \t\r\n]*+/?>"
_FIRST_GROUP = re.compile(rb"<Groupe" + _TAG_ATTRIBUTES)
_FIRST_RELATION = re.compile(rb"<relation(?=[ \t\r\n])" + _TAG_ATTRIBUTES)
_FIRST_ROLE = re.compile(rb"<[A-Za-z_][A-Za-z0-9_.-]*+(?=[^<>]*?[ \t\r\n:]href[ \t\r\n]*+=)" + _TAG_ATTRIBUTES)
_ATTRIBUTE_NAME = re.compile(rb"(" + _NAME + rb")[ \t\r\n]*+=")


def detect_dialect(head: bytes, quote: str, prefixes: tuple[str, ...]) -> Dialect:
    """The dialect of a file from its first sentences (``head``); the reference's where they do not say.

    A guess, confirmed sentence by sentence: a sentence written otherwise is
    parsed alone by lxml (see the module docstring), so a wrong guess costs
    time, never a result.
    """
    def names(pattern, allowed) -> tuple[str, ...] | None:
        m = pattern.search(head)
        if m is None:
            return None
        found = tuple(n.decode("ascii") for n in _ATTRIBUTE_NAME.findall(m.group(1)))
        return found if len(set(found)) == len(found) and all(allowed(n) for n in found) else None

    def xlink(name: str, local: str) -> bool:
        return name.endswith(":" + local) and name.split(":", 1)[0] in prefixes

    group = names(_FIRST_GROUP, lambda n: n in ("type", "id"))
    relation = names(_FIRST_RELATION, lambda n: n in ("type", "id") or xlink(n, "type"))
    role = names(_FIRST_ROLE, lambda n: n == "href" or xlink(n, "href") or xlink(n, "type"))
    default_role = tuple(n.replace("xlink:", prefixes[0] + ":") for n in REFERENCE.role) if prefixes else ("href",)
    default_relation = (tuple(n.replace("xlink:", prefixes[0] + ":") for n in REFERENCE.relation) if prefixes
                        else ("type", "id"))
    return Dialect(
        quote=quote,
        group=group if group is not None and len(group) == 2 else REFERENCE.group,
        relation=relation if relation is not None and {"type", "id"} <= set(relation) else default_relation,
        role=(role if role is not None and sum(n == "href" or n.endswith(":href") for n in role) == 1
              else default_role),
    )


def schema_is_plain(schema: EasySchema) -> bool:
    """Whether the grammar can be built: roles and extra children are plain XML names (no prefix), and
    group and relation types are attribute values that XML writes as they are."""
    return (all(_XML_NAME.match(name) for rtype in schema.relation_types
                for name in schema.roles(rtype) + schema.extras(rtype))
            and all(_PLAIN_VALUE.match(t) for t in schema.group_types + schema.relation_types))


class TextPath:
    """The canonical grammar of one schema in one dialect, and the checks of ``FastPath.check`` on a
    sentence's bytes."""

    def __init__(self, schema: EasySchema, dialect: Dialect = REFERENCE):
        S, q = _S, dialect.quote
        V = rf"[^{q}<>&\t\r\n{_CTRL}]*+"  # nothing a reference would encode or normalisation change; no ">"
        ID = rf"[^{q}<>&\t\r\n {_CTRL}]++"

        def tag(names, values: dict, optional=(), capture=(), any_value=V) -> str:
            """The attributes of a start tag in the dialect's order; ``capture`` names those captured."""
            out = []
            for name in names:
                value = values.get(name, any_value)
                if name in capture:
                    value = f"({value})"
                piece = rf"{S}++{re.escape(name)}{S}*+={S}*+{q}{value}{q}"
                out.append(f"(?:{piece})?+" if name in optional else piece)
            return "".join(out)

        xl_type = tuple(n for n in dialect.relation + dialect.role if n.endswith(":type"))
        href = next(n for n in dialect.role if n == "href" or n.endswith(":href"))
        gtypes = "|".join(re.escape(t) for t in schema.group_types)
        form = rf"<F{tag(['id'], {'id': ID})}{S}*+>{_TEXT}</F{S}*+>"
        group = (rf"<Groupe{tag(dialect.group, {'type': f'(?:{gtypes})', 'id': ID})}{S}*+>"
                 rf"(?:{S}*+{form})++{S}*+</Groupe{S}*+>")
        # a relation's attributes before its type are read once, then the branch of its type (a branch per
        # type from the start tag on would read them again for each type tried)
        at = dialect.relation.index("type")
        before = tag(dialect.relation[:at], {"id": ID}, xl_type)
        after = tag(dialect.relation[at + 1:], {"id": ID}, xl_type)
        by_type = []
        for rtype in schema.relation_types:
            roles = "".join(rf"{S}*+<{re.escape(r)}{tag(dialect.role, {}, xl_type)}{S}*+/>"
                            for r in schema.roles(rtype))
            extras = "".join(rf"(?:{S}*+<{re.escape(x)}(?:{S}++{_EXTRA_ATTR}{S}*+={S}*+{q}{V}{q})?+{S}*+/>)?+"
                             for x in schema.extras(rtype))
            by_type.append(rf"{re.escape(rtype)}{q}{after}{S}*+>{roles}{extras}")
        relation = (rf'<relation{before}{S}++type{S}*+={S}*+{q}(?:{"|".join(by_type)}){S}*+</relation{S}*+>'
                    if by_type else r"(?!)")
        relations = rf"<relations{S}*+>(?:{S}*+{relation})*+{S}*+</relations{S}*+>"
        plain = rf"(?:{S}*+(?:{form}|{group}|{relations}))*+"
        wrapped = (rf"{S}*+<constituants{S}*+>(?:{S}*+(?:{form}|{group}))*+{S}*+</constituants{S}*+>"
                   rf"(?:{S}*+{relations})*+")
        self.sentence_re = re.compile(rf"<E{tag(['id'], {'id': ID})}{S}*+>(?:{wrapped}|{plain}){S}*+</E>"
                                      .encode("ascii"))
        # the sentence matched the grammar: tags are in the dialect's order, and these find what is in them
        self.fid_re = re.compile(rf"<F{tag(['id'], {'id': ID}, capture=['id'])}".encode("ascii"))
        self.gid_re = re.compile(rf"<Groupe{tag(dialect.group, {'id': ID}, capture=['id'])}".encode("ascii"))
        self.rid_re = re.compile(rf"<relation{tag(dialect.relation, {'id': ID}, xl_type, capture=['id'])}"
                                 .encode("ascii"))
        # every pointer, and perhaps more (a form's text may read href="..."), which can only refuse
        self.href_re = re.compile(rf"{re.escape(href)}{S}*+={S}*+{q}({V}){q}".encode("ascii"))
        # texts and building work on decoded text, that matched the grammar: these regexes need not check
        # anything any more (a value is whatever stands between its quotes, a text up to the next "<")
        LV, LID = rf"[^{q}]*+", rf"[^{q}]++"
        group_tag = tag(dialect.group, {"id": LID}, capture=["type", "id"], any_value=LV)
        relation_tag = tag(dialect.relation, {"id": LID}, xl_type, capture=["type", "id"], any_value=LV)
        self.form_re = re.compile(rf"<F{tag(['id'], {'id': LID}, capture=['id'])}{S}*+>([^<]*+)<")
        # building reads each kind of element with a regex of its own (a group holds forms only, a relation
        # roles and extras only, and no text or value holds "<"):
        # a group with the ids of its first and last forms (the last empty when it has one form): the form ids
        # are <sid>F1, <sid>F2... in order, so these say its range (capturing the rest of its content to count
        # its forms copied it and took twice the time)
        self.group_re = re.compile(
            rf"<Groupe{group_tag}{S}*+>{S}*+<F{S}++id{S}*+={S}*+{q}({LID}){q}{S}*+>[^<]*+</F{S}*+>"
            rf"(?:{S}*+<F{S}++id{S}*+={S}*+{q}({LID}){q}{S}*+>[^<]*+</F{S}*+>)*+{S}*+</Groupe")
        # a relation with the pointers of its roles (in schema order, as many as its type has) and the rest
        # of its content, its extras (its children are empty elements: the first "</" ends it)
        counts = [len(schema.roles(t)) for t in schema.relation_types] or [0]
        role = rf"{S}*+<[A-Za-z_][A-Za-z0-9_.-]*+{tag(dialect.role, {}, xl_type, [href], LV)}{S}*+/>"
        self.relation_re = re.compile(rf"<relation{relation_tag}{S}*+>" + role * min(counts)
                                      + f"(?:{role})?+" * (max(counts) - min(counts))
                                      + r"((?:[^<]++|<(?!/))*+)</relation")
        self.roles = {t: schema.roles(t) for t in schema.relation_types}
        self.layout = bytescan.Layout(schema, dialect) if SCAN else None
        self.extra_re = re.compile(
            rf"<([A-Za-z_][A-Za-z0-9_.-]*+)(?:{S}++({_EXTRA_ATTR}){S}*+={S}*+{q}({LV}){q})?+{S}*+/>")
        # which captured value is which, in the dialect's order
        self.group_type_first = dialect.group.index("type") < dialect.group.index("id")
        self.relation_type_first = dialect.relation.index("type") < dialect.relation.index("id")
        self.relation_tag_re = re.compile(rf"<relation{S}[^>]*+>")  # values hold no ">"
        self._numbers: list[bytes] = []

    def _expected_fids(self, prefix: bytes, n: int) -> list[bytes]:
        nums = self._numbers
        if n > len(nums):
            nums.extend(str(k).encode("ascii") for k in range(len(nums) + 1, n + 1))
        return [prefix + x for x in nums[:n]]

    def check(self, buf, start: int, end: int, codec: str, sid: str, want_texts: bool = False,
              build: bool = False, line: int | None = None, parts: bool = False):
        """``FastPath.check``'s answer for the sentence at ``buf[start:end]``, or ``None``.

        Form ids and texts are only returned (decoded) when texts are wanted
        or the sentence is built; a bare acceptance gives ``[]`` and ``None``.
        With ``parts``, what is built is the sentence's :class:`SentenceParts`, or its :class:`Sentence` where
        parts cannot say all (a relation that repeats another, a warning that names its line).
        """
        if (parts and build and self.layout is not None and codec == "utf-8" and line is not None
                and (line + (end - start) < _MAX_LINE or line + buf.count(b"\n", start, end) < _MAX_LINE)):
            # the common shape in one walk over the bytes; anything else (None) is read below
            found = bytescan.sentence_parts(buf, start, end, (sid + "F").encode("utf-8"), self.layout)
            if found is not None:
                texts, stripped, groups, relations = found
                fids = _form_ids(sid, len(texts))
                return (fids, texts, bool(groups), bool(relations),
                        SentenceParts(sid, tuple(zip(fids, stripped)), groups, relations))
        if self.sentence_re.fullmatch(buf, start, end) is None or buf.find(b"]]>", start, end) >= 0:
            return None
        try:
            text = buf[start:end].decode(codec)  # strict: bytes lxml would refuse are a doubt
            prefix = (sid + "F").encode(codec)
        except UnicodeError:
            return None
        if codec == "utf-8" and ("\ufffe" in text or "\uffff" in text):
            return None
        if build:  # the same checks, on what is built (one pass over the text instead of five)
            # a sentence has fewer line feeds than characters: most need no count
            if line is None or (line + len(text) >= _MAX_LINE and line + text.count("\n") >= _MAX_LINE):
                return None
            if "\r" in text:
                text = text.replace("\r\n", "\n")  # as lxml reads texts (a lone CR never gets here)
            if parts:
                found = self._parts(text, sid)
                if found is not None:
                    fids, texts, sent = found
                    return fids, texts, bool(sent.groups), bool(sent.relations), sent
                # most often a relation that repeats another (a gold warning that names its line): the sentence
                # is built, from the same text (lxml parsing it alone cost several times a sentence's reading)
            built = self._build(text, sid, line)
            if built is None:
                return None
            sent, texts = built
            return [f.id for f in sent.forms], texts, bool(sent.groups), bool(sent.relations), sent
        fids = self.fid_re.findall(buf, start, end)
        if fids != self._expected_fids(prefix, len(fids)):
            return None
        gids = self.gid_re.findall(buf, start, end)
        rids = self.rid_re.findall(buf, start, end)
        gset, rset, fset = set(gids), set(rids), set(fids)
        if len(gset) != len(gids) or len(rset) != len(rids):
            return None
        if (gset and (not gset.isdisjoint(fset) or not gset.isdisjoint(rset))) or (rset and not rset.isdisjoint(fset)):
            return None
        if rids:
            fset |= gset
            fset.add(prefix + b"0")
            if not fset.issuperset(self.href_re.findall(buf, start, end)):
                return None
        if not want_texts:
            return [], None, bool(gids), bool(rids), None
        if "\r" in text:
            text = text.replace("\r\n", "\n")  # as lxml reads texts (a lone CR never gets here)
        pairs = self.form_re.findall(text)
        texts = [_text(t) for _, t in pairs]
        if "" in texts:
            return None  # an empty form has no text for lxml (None), which the element paths refuse
        return [f for f, _ in pairs], texts, bool(gids), bool(rids), None

    def _build(self, text: str, sid: str, line: int) -> tuple[Sentence, list[str]] | None:
        """The sentence and its forms' texts as lxml reads them (unstripped), or ``None`` when a form has
        no text or the ids fail the checks of :meth:`check` (see :func:`_consistent_ids`)."""
        pairs = self.form_re.findall(text)
        fids = [fid for fid, _ in pairs]
        texts = [_text(t) for _, t in pairs] if "&" in text else [t for _, t in pairs]
        if "" in texts:
            return None  # no text: lxml reads None, which the element paths refuse
        if fids != _form_ids(sid, len(fids)):
            return None
        groups: list[Group] = []
        if "<Groupe" in text:
            add_group = groups.append
            type_first = self.group_type_first
            number = len(sid) + 1
            for g1, g2, first, last in self.group_re.findall(text):
                start = _FORM_INDEX[first[number:]]  # the form ids are <sid>F1, <sid>F2...
                end = _FORM_INDEX[last[number:]] + 1 if last else start + 1
                add_group(Group(g1, g2, start, end) if not type_first else Group(g2, g1, start, end))
        relations: list[Relation] = []
        if "<relation" in text:
            add_relation = relations.append
            extra_findall, roles_of = self.extra_re.findall, self.roles
            type_first = self.relation_type_first
            for found in self.relation_re.findall(text):
                rtype, rid = found[:2] if type_first else found[1::-1]
                extras = {}
                rest = found[-1]
                if "<" in rest:
                    for extra, name, value in extra_findall(rest):
                        extras[extra] = {name: value} if name else {}
                add_relation(Relation(rid, rtype, dict(zip(roles_of[rtype], found[2:])), extras))
            # lxml numbers an element by the line where its start tag ends
            pos = 0
            k = line
            for r, m in zip(relations, self.relation_tag_re.finditer(text)):
                k += text.count("\n", pos, m.end())
                pos = m.end()
                r.line = k
        if (groups or relations) and not _consistent_ids(sid, fids, groups, relations):
            return None
        return Sentence(sid, [Form(fid, t.strip()) for fid, t in zip(fids, texts)], groups, relations, line), texts


    def _parts(self, text: str, sid: str) -> tuple[list[str], list[str], SentenceParts] | None:
        """Form ids, texts (unstripped) and :class:`SentenceParts` of a sentence, under the checks of
        :meth:`_build`; ``None`` also when a relation repeats another exactly (a warning that names its
        line: :meth:`check` then builds the sentence)."""
        pairs = self.form_re.findall(text)
        fids = [fid for fid, _ in pairs]
        texts = [_text(t) for _, t in pairs] if "&" in text else [t for _, t in pairs]
        n = len(fids)
        if "" in texts or fids != _form_ids(sid, n):
            return None
        number = len(sid) + 1
        groups: list[tuple[int, int, str]] = []
        gids: list[str] = []
        # each findall starts where its first element does (no match can start before): the engine's scan
        # for it is slower than str.find's
        at = text.find("<Groupe")
        if at >= 0:
            type_first = self.group_type_first
            for g1, g2, first, last in self.group_re.findall(text, at):
                start = _FORM_INDEX[first[number:]]  # the form ids are <sid>F1, <sid>F2...
                gtype, gid = (g1, g2) if type_first else (g2, g1)
                groups.append((start, _FORM_INDEX[last[number:]] + 1 if last else start + 1, gtype))
                gids.append(gid)
        # what an id stands for: a form's position, a group's range, the null argument (None)
        where = dict(zip(fids, range(n)))
        if gids:
            where.update(zip(gids, [(start, end) for start, end, _ in groups]))
            if len(where) != n + len(gids):
                return None  # an id used twice
        relations: list[tuple[str, tuple]] = []
        at = text.find("<relation")  # relations may come before groups (the grammar's plain shape)
        if at >= 0:
            type_first, roles_of = self.relation_type_first, self.roles
            rids = set()
            for found in self.relation_re.findall(text, at):
                rtype, rid = found[:2] if type_first else found[1::-1]
                rids.add(rid)
                relations.append((rtype, found[2:2 + len(roles_of[rtype])]))
            if len(rids) != len(relations) or not rids.isdisjoint(where):
                return None  # an id used twice
            if len(set(relations)) != len(relations):
                return None
            where.setdefault(sid + "F0", None)  # a group of that id is that group (as the detailed parser reads it)
            get = where.__getitem__
            try:
                relations = [(rtype, tuple(map(get, targets))) for rtype, targets in relations]
            except KeyError:
                return None  # a pointer to no form or group of the sentence
        forms = tuple(zip(fids, [t.strip() for t in texts]))
        return fids, texts, SentenceParts(sid, forms, groups, relations)


_STR_NUMBERS: list[str] = []
_FORM_INDEX: dict[str, int] = {}  # "k" -> k - 1: where form <sid>Fk stands


def _form_ids(sid: str, n: int) -> list[str]:
    """``<sid>F1`` .. ``<sid>Fn``: the form ids of a sentence of ``n`` forms."""
    if n > len(_STR_NUMBERS):
        for k in range(len(_STR_NUMBERS) + 1, n + 1):
            _FORM_INDEX[str(k)] = k - 1
            _STR_NUMBERS.append(str(k))
    prefix = sid + "F"
    return [prefix + x for x in _STR_NUMBERS[:n]]


def _consistent_ids(sid: str, fids: list[str], groups: list[Group], relations: list[Relation]) -> bool:
    """The id checks of :meth:`TextPath.check` beyond the form numbering (the form ids differ): no id used
    twice, every pointer to a form, a group or the null argument."""
    ids = set(fids)
    ids.update([g.id for g in groups])
    known = len(fids) + len(groups)
    if len(ids) != known:
        return False  # a group id used twice, or a form's
    if relations:
        targets = ids.copy()
        targets.add(sid + "F0")
        ids.update([r.id for r in relations])
        if len(ids) != known + len(relations):
            return False  # a relation id used twice, or a form's or a group's
        for r in relations:
            if not targets.issuperset(r.args.values()):
                return False
    return True


def _text(t: str) -> str:
    return _ENTITY.sub(_unescape, t) if "&" in t else t


def _unescape(m: re.Match) -> str:
    return _ENTITIES[m.group(1)]


class CanonicalScanner:
    """Walks a file sentence by sentence while it is in the canonical shape (see the module docstring).

    Use :meth:`open`, then iterate :meth:`spans` and stop at the first
    sentence not accepted: a span counts as accepted once the caller asks for
    the next one. :attr:`finished` tells whether the whole file was read so;
    otherwise :attr:`accepted` sentences were, and lxml must read the rest.
    """

    def __init__(self, raw, owned: bool, origin: int = 0):
        self.raw = raw
        self.owned = owned
        self.origin = origin  # where a file object given by the caller started, to read it again
        self.buf = bytearray()
        self.pos = 0
        self.line = 1  # line of buf[pos]
        self.eof = False
        self.codec: str | None = None
        self.accepted = 0
        self.alone = 0  # accepted sentences that lxml parsed alone (see element)
        self.detailed = 0  # sentences that lxml parsed alone and the detailed parser read (see element)
        self.finished = False
        self.dialect = REFERENCE  # how the file writes its tags, guessed from its first sentences
        self._wrapper = b""

    def close(self) -> None:
        if self.owned:
            self.raw.close()

    def _more(self) -> bool:
        if self.eof:
            return False
        data = self.raw.read(_CHUNK)
        if not data:
            self.eof = True
            return False
        if self.pos > _CHUNK:
            del self.buf[:self.pos]
            self.pos = 0
        self.buf += data
        return True

    def open(self):
        """Read up to the ``<DOCUMENT>`` start tag; its element (read by lxml), or ``None`` on a doubt."""
        while True:
            m = _PRELUDE.match(self.buf)
            if m is not None or len(self.buf) > _MAX_SENTENCE or not self._more():
                break
        if m is None:
            return None
        head = bytes(self.buf[:m.end()])
        try:
            root = etree.fromstring(head + b"</DOCUMENT>", _PARSER)
        except etree.XMLSyntaxError:
            return None
        if root.tag != "DOCUMENT" or None in root.nsmap:
            return None
        try:
            codec = _CODECS.get(codecs.lookup(root.getroottree().docinfo.encoding or "utf-8").name)
        except LookupError:
            codec = None
        if codec is None or _lone_cr(head, 0, len(head)):
            return None
        self.codec = codec
        prefixes = tuple(sorted(p for p, uri in root.nsmap.items() if uri == XLINK_NS))
        first = _NEXT_SENTENCE.match(self.buf, m.end())
        quote = first.group(2).decode("ascii") if first is not None else '"'
        self.dialect = detect_dialect(bytes(self.buf[m.end():m.end() + _CHUNK]), quote, prefixes)
        # a sentence read alone sits in a document of its own declaring the same namespaces, on line 1
        decls = "".join(f" xmlns:{p}={quoteattr(uri)}" for p, uri in sorted(root.nsmap.items()))
        self._wrapper = f"<DOCUMENT{decls}>".encode("ascii", "xmlcharrefreplace")
        self.pos = m.end()
        self.line = 1 + head.count(b"\n")
        return root

    def spans(self):
        """``(sentence id, start, end, line)`` of each sentence in :attr:`buf`, while the shape holds.

        ``buf[start:end]`` runs from ``<E`` to the first ``</E>``: one sentence
        when the file is well formed, which the grammar or :meth:`element` checks.
        """
        while True:
            buf = self.buf
            m = _NEXT_SENTENCE.match(buf, self.pos)
            close = buf.find(b"</E>", m.end()) if m is not None else -1
            if close < 0:
                if len(buf) - self.pos > _MAX_SENTENCE or not self._more():
                    if m is None and self.eof and self._at_end():
                        self.finished = True
                    return
                continue
            start = m.start(1)
            end = close + 4
            q = buf.find(m.group(2), m.end(), end)
            if q < 0 or _lone_cr(buf, self.pos, end):
                return
            line = self.line + buf.count(b"\n", self.pos, start)
            try:
                sid = buf[m.end():q].decode(self.codec)
            except UnicodeError:
                return
            yield sid, start, end, line
            # the caller accepted it (it stops iterating otherwise)
            self.pos = end
            self.line = line + buf.count(b"\n", start, end)
            self.accepted += 1

    def element(self, start: int, end: int, line: int = 1):
        """The sentence at ``buf[start:end]`` parsed alone by lxml, or ``None`` when that might not be
        what lxml reads in the whole file: a syntax error, or anything but exactly one ``<E>`` holding
        no other ``<E>`` (the span then ends inside a comment, or a sentence did not end at ``</E>``).
        The sentence starts on line ``line`` (line feeds before it: lxml then numbers every element as in
        the whole file, below line 65,535)."""
        try:
            text = bytes(self.buf[start:end]).decode(self.codec)
        except UnicodeError:
            return None
        if self.codec == "utf-8" and ("\ufffe" in text or "\uffff" in text):
            return None
        try:
            root = etree.fromstring(self._wrapper + b"\n" * (line - 1) + text.encode("utf-8") + b"</DOCUMENT>",
                                    _PARSER)
        except etree.XMLSyntaxError:
            return None
        if len(root) != 1 or (root.text or "").strip(" \t\r\n") or (root[0].tail or "").strip(" \t\r\n"):
            return None
        e = root[0]
        if e.tag != "E" or any(True for _ in e.iterdescendants("E")):
            return None
        return e

    def _at_end(self) -> bool:
        """Whether what follows the last sentence is only the end of the document (read by lxml)."""
        rest = bytes(self.buf[self.pos:])
        if _lone_cr(rest, 0, len(rest)):
            return False
        try:
            tail = etree.fromstring(b'<DOCUMENT xmlns:xlink="' + XLINK_NS.encode() + b'">' + rest, _PARSER)
        except etree.XMLSyntaxError:
            return False
        return len(tail) == 0 and not (tail.text or "").strip(" \t\r\n")


def _lone_cr(buf, start: int, end: int) -> bool:
    """Whether ``buf[start:end]`` holds a carriage return that does not start a CRLF.

    lxml reads CRLF as one line end, as counting LF does; a lone CR is a line
    end for lxml too but not for such counting, so it is a doubt.
    """
    return buf.find(b"\r", start, end) >= 0 and buf.count(b"\r", start, end) != buf.count(b"\r\n", start, end)


_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                          huge_tree=False, remove_comments=True, remove_pis=True)
