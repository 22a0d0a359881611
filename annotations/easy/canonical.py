"""The canonical shape: reading sentences written exactly as the EASY reference writes them, without lxml.

Parsing a file with lxml and then walking every element from Python costs
about twice the bare parse, and most files are written in one shape: the
shape of the EASY reference and of :mod:`annotations.easy.writer`. For a
sentence in that shape one regular expression, built from the schema, checks
the whole structure (tags, group types, relation types with their roles in
schema order, extra children), and a few ``findall`` calls collect the ids
and pointers for the same checks as :class:`~annotations.easy.fastpath.FastPath`.

The grammar of that expression is a strict subset of well-formed XML: fixed
element and attribute names (each at most once per element), double-quoted
attribute values and texts without ``<``, control characters, ``]]>`` or
any reference but the five predefined entities (in texts only), only XML
white space between tags, strict decoding. A text it accepts is therefore
well formed, and means what lxml would read. The prelude up to the
``<DOCUMENT>`` start tag and what follows the last sentence are still read
by lxml.

Anything else (another attribute order, a comment, a character reference,
an error, a lone carriage return, a sentence id seen before...) is a doubt:
:class:`CanonicalScanner` stops, and the reader reads the file again with
lxml ``iterparse``, skipping the sentences already accepted. The detailed
parser therefore still decides and names every problem; this path only
changes how fast a valid sentence is accepted.

Line numbers are counted here: they are the true line numbers, which lxml's
are too below line 65,535 (from there on libxml2 numbers every element one
line further). A sentence to be built past line 65,000 is therefore a
doubt, so that both paths agree everywhere.
"""
from __future__ import annotations

import codecs
import re

from lxml import etree

from .model import Form, Group, Relation, Sentence
from .schema import EasySchema
from .writer import XLINK_NS

_S = r"[ \t\r\n]"  # XML white space (Python's \s also matches other Unicode spaces)
_CTRL = r"\x00-\x08\x0b\x0c\x0e-\x1f"  # characters XML 1.0 forbids
_VALUE = rf'[^"<>&\t\r\n{_CTRL}]*+'  # nothing a reference would encode or normalisation change; no ">"
_ID = rf'[^"<>&\t\r\n {_CTRL}]++'
_TEXT = rf"(?:[^<&{_CTRL}]++|&(?:amp|lt|gt|quot|apos);)*+"  # texts may use the five predefined entities
_ENTITY = re.compile(r"&(amp|lt|gt|quot|apos);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
_PLAIN_VALUE = re.compile(rf"{_VALUE}\Z")
# an extra child's single attribute: no prefix, not href, no reserved xml* name (xmlns would declare a namespace)
_EXTRA_ATTR = r"(?!href=)(?![Xx][Mm][Ll])[A-Za-z_][A-Za-z0-9_.-]*+"
_MAX_LINE = 65000

_PRELUDE = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:[ \t\r\n]++|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^\[<>]*+>)*+"
    rb"<DOCUMENT(?:[ \t\r\n][^<>]*+)?>")
_CODECS = {"utf-8": "utf-8", "ascii": "ascii", "iso8859-1": "latin-1"}
_E_OPEN = b'<E id="'
_AFTER_SENTENCE = re.compile(rb"[ \t\r\n]*+" + re.escape(_E_OPEN))
_CHUNK = 1 << 20
_MAX_SENTENCE = 4 << 20  # a sentence (or what follows the last one) longer than this is a doubt


def schema_is_plain(schema: EasySchema) -> bool:
    """Whether the grammar can be built: roles and extra children are plain XML names (no prefix), and
    group and relation types are attribute values that XML writes as they are."""
    return (all(_XML_NAME.match(name) for rtype in schema.relation_types
                for name in schema.roles(rtype) + schema.extras(rtype))
            and all(_PLAIN_VALUE.match(t) for t in schema.group_types + schema.relation_types))


class TextPath:
    """The canonical grammar of one schema, and the checks of ``FastPath.check`` on a sentence's bytes."""

    def __init__(self, schema: EasySchema):
        S, V, ID = _S, _VALUE, _ID
        form = rf'<F{S}++id="{ID}">{_TEXT}</F>'
        gtypes = "|".join(re.escape(t) for t in schema.group_types)
        group = rf'<Groupe{S}++type="(?:{gtypes})"{S}++id="{ID}">(?:{S}*+{form})++{S}*+</Groupe>'
        by_type = []
        for rtype in schema.relation_types:
            roles = "".join(rf'{S}*+<{re.escape(r)}(?:{S}++xlink:type="{V}")?+{S}++(?:xlink:)?+href="{V}"{S}*+/>'
                            for r in schema.roles(rtype))
            extras = "".join(rf'(?:{S}*+<{re.escape(x)}(?:{S}++{_EXTRA_ATTR}="{V}")?+{S}*+/>)?+'
                             for x in schema.extras(rtype))
            by_type.append(rf'{re.escape(rtype)}"{S}++id="{ID}">{roles}{extras}')
        relation = rf'<relation(?:{S}++xlink:type="{V}")?+{S}++type="(?:{"|".join(by_type)}){S}*+</relation>'
        relations = rf'<relations>(?:{S}*+{relation})*+{S}*+</relations>'
        plain = rf'(?:{S}*+(?:{form}|{group}|{relations}))*+'
        wrapped = rf'{S}*+<constituants>(?:{S}*+(?:{form}|{group}))*+{S}*+</constituants>(?:{S}*+{relations})*+'
        self.sentence_re = re.compile(rf'<E id="{ID}">(?:{wrapped}|{plain}){S}*+</E>'.encode("ascii"))
        self.fid_re = re.compile(rf'<F{S}++id="({ID})"'.encode("ascii"))
        self.gid_re = re.compile(rf'<Groupe{S}++type="[^"]*+"{S}++id="({ID})"'.encode("ascii"))
        self.rid_re = re.compile(rf'<relation(?:{S}++xlink:type="{V}")?+{S}++type="[^"]*+"{S}++id="({ID})"'
                                 .encode("ascii"))
        # every pointer, and perhaps more (a form's text may read href="..."), which can only refuse
        self.href_re = re.compile(rf'href="({V})"'.encode("ascii"))
        # texts and building work on decoded text
        self.form_re = re.compile(rf'<F{S}++id="({ID})">({_TEXT})</F>')
        self.token_re = re.compile(
            rf'<F{S}++id="({ID})">({_TEXT})</F>'
            rf'|<Groupe{S}++type="([^"]*+)"{S}++id="({ID})">|(</Groupe>)'
            rf'|<relation(?:{S}++xlink:type="{V}")?+{S}++type="([^"]*+)"{S}++id="({ID})">'
            rf'|<([A-Za-z_][A-Za-z0-9_.-]*+)(?:{S}++xlink:type="{V}")?+{S}++(?:xlink:)?+href="({V})"{S}*+/>'
            rf'|<([A-Za-z_][A-Za-z0-9_.-]*+)(?:{S}++({_EXTRA_ATTR})="({V})")?+{S}*+/>')
        self.relation_tag_re = re.compile(rf'<relation{S}[^>]*+>')  # values hold no ">"
        self._numbers: list[bytes] = []

    def _expected_fids(self, prefix: bytes, n: int) -> list[bytes]:
        nums = self._numbers
        if n > len(nums):
            nums.extend(str(k).encode("ascii") for k in range(len(nums) + 1, n + 1))
        return [prefix + x for x in nums[:n]]

    def check(self, buf, start: int, end: int, codec: str, sid: str, want_texts: bool = False,
              build: bool = False, line: int | None = None):
        """``FastPath.check``'s answer for the sentence at ``buf[start:end]``, or ``None``.

        Form ids and texts are only returned (decoded) when texts are wanted
        or the sentence is built; a bare acceptance gives ``[]`` and ``None``.
        """
        if self.sentence_re.fullmatch(buf, start, end) is None or buf.find(b"]]>", start, end) >= 0:
            return None
        try:
            text = buf[start:end].decode(codec)  # strict: bytes lxml would refuse are a doubt
            prefix = (sid + "F").encode(codec)
        except UnicodeError:
            return None
        if codec == "utf-8" and ("\ufffe" in text or "\uffff" in text):
            return None
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
        if not (want_texts or build):
            return [], None, bool(gids), bool(rids), None
        if "\r" in text:
            text = text.replace("\r\n", "\n")  # as lxml reads texts (a lone CR never gets here)
        if build:
            if line is None or line + text.count("\n") >= _MAX_LINE:
                return None
            built = self._build(text, sid, line)
            if built is None:
                return None
            sent, texts = built
            return [f.id for f in sent.forms], texts, bool(gids), bool(rids), sent
        pairs = self.form_re.findall(text)
        texts = [_text(t) for _, t in pairs]
        if "" in texts:
            return None  # an empty form has no text for lxml (None), which the element paths refuse
        return [f for f, _ in pairs], texts, bool(gids), bool(rids), None

    def _build(self, text: str, sid: str, line: int) -> tuple[Sentence, list[str]] | None:
        """The sentence and its forms' texts as lxml reads them (unstripped), or ``None``."""
        forms: list[Form] = []
        add_form = forms.append
        texts: list[str] = []
        add_text = texts.append
        groups: list[Group] = []
        relations: list[Relation] = []
        group = None
        args: dict = {}
        extras: dict = {}
        for fid, ftext, gtype, gid, gend, rtype, rid, role, href, extra, name, value in self.token_re.findall(text):
            if fid:
                if not ftext:
                    return None  # no text: lxml reads None, which the element paths refuse
                ftext = _text(ftext)
                add_text(ftext)
                add_form(Form(fid, ftext.strip()))
            elif role:
                args[role] = href
            elif extra:
                extras[extra] = {name: value} if name else {}
            elif gtype:
                group = Group(gid, gtype, len(forms), len(forms))
                groups.append(group)
            elif gend:
                group.end = len(forms)
            else:
                args, extras = {}, {}
                relations.append(Relation(rid, rtype, args, extras))
        if relations:
            # lxml numbers an element by the line where its start tag ends
            pos = 0
            k = line
            for r, m in zip(relations, self.relation_tag_re.finditer(text)):
                k += text.count("\n", pos, m.end())
                pos = m.end()
                r.line = k
        return Sentence(sid, forms, groups, relations, line), texts


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
        self.finished = False

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
        if root.tag != "DOCUMENT" or None in root.nsmap or root.nsmap.get("xlink") != XLINK_NS:
            return None
        try:
            codec = _CODECS.get(codecs.lookup(root.getroottree().docinfo.encoding or "utf-8").name)
        except LookupError:
            codec = None
        if codec is None or _lone_cr(head, 0, len(head)):
            return None
        self.codec = codec
        self.pos = m.end()
        self.line = 1 + head.count(b"\n")
        return root

    def spans(self):
        """``(sentence id, start, end, line)`` of each sentence in :attr:`buf`, while the shape holds."""
        while True:
            buf = self.buf
            m = _AFTER_SENTENCE.match(buf, self.pos)
            close = buf.find(b"</E>", m.end()) if m is not None else -1
            if close < 0:
                if len(buf) - self.pos > _MAX_SENTENCE or not self._more():
                    if m is None and self.eof and self._at_end():
                        self.finished = True
                    return
                continue
            start = m.end() - len(_E_OPEN)
            end = close + 4
            q = buf.find(b'"', m.end(), end)
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
