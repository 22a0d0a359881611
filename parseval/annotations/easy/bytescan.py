"""A canonical sentence's parts in one walk over its bytes, for its compiled form (see ``canonical.py``).

:meth:`~parseval.annotations.easy.canonical.TextPath.check` reads a sentence
in the canonical shape with a regular expression over its bytes (the whole
grammar), then three ``findall`` over its text (forms, groups, relations):
at 24 times the reference corpus that reading alone took about as long as
lxml's whole every-element pass, the regular-expression engine and the
Python tuple it builds for every element being most of it. This module walks
the sentence's bytes once and gives what that path gives for the
sentence's :class:`~parseval.annotations.easy.model.SentenceParts`: the forms'
texts (unstripped and stripped), the groups ``(start, end, type)``, the
relations ``(type, targets)``.

It accepts a strict subset of the grammar: only XML white space without
carriage returns between tags, ASCII attribute values, texts without any
entity reference, no group or relation id that starts like a form id, no two
relations alike once resolved, UTF-8 only. On anything else it answers
``None`` and the caller reads the sentence the regular-expression way, which
decides, refuses and reports exactly as before. So a sentence it accepts is
one the grammar accepts, read into the same parts; the tests run it against
that path on real data and damaged inputs.

It is one of the modules that ``scripts/build_compiled.py`` compiles (see
``parseval/annotations/compiled.py``); the ``cython`` names only declare C
types for the compiler and do nothing in Python. Run as Python, one byte at
a time, it would be slower than the regular expressions: ``canonical.py``
uses it only when it is compiled.
"""
from __future__ import annotations

from array import array

import cython

LT = cython.declare(cython.uchar, 60)  # "<"; C constants when compiled: compared for every byte
GT = cython.declare(cython.uchar, 62)  # ">"
SLASH = cython.declare(cython.uchar, 47)
EQ = cython.declare(cython.uchar, 61)
AMP = cython.declare(cython.uchar, 38)
BRACKET = cython.declare(cython.uchar, 93)  # "]"


class Layout:
    """What the walk needs of one schema in one dialect (a :class:`~parseval.annotations.easy.canonical.Dialect`):
    the attribute names of each tag as bytes in the dialect's order (1 where one may be left out: XLink's
    type), where its type, id and pointer stand, and the types."""

    def __init__(self, schema, dialect):
        xl_type = {n for n in dialect.relation + dialect.role if n.endswith(":type")}

        def names(attrs):
            return tuple(n.encode("ascii") for n in attrs), bytes(n in xl_type for n in attrs)

        self.quote = ord(dialect.quote)
        self.group_names, self.group_optional = names(dialect.group)
        self.group_type, self.group_id = dialect.group.index("type"), dialect.group.index("id")
        self.relation_names, self.relation_optional = names(dialect.relation)
        self.relation_type, self.relation_id = dialect.relation.index("type"), dialect.relation.index("id")
        self.role_names, self.role_optional = names(dialect.role)
        self.role_href = next(k for k, n in enumerate(dialect.role) if n == "href" or n.endswith(":href"))
        self.group_types = {t: t for t in schema.group_types}
        self.relation_types = {t: (t, tuple(r.encode("ascii") for r in schema.roles(t)),
                                   tuple(x.encode("ascii") for x in schema.extras(t)))
                               for t in schema.relation_types}
        # where each attribute's value starts and ends (see _attributes): each walk fills a copy of its own
        self.out = array("l", bytes(8 * 2 * max(len(dialect.group), len(dialect.relation), len(dialect.role), 1)))


@cython.cfunc
@cython.inline
@cython.locals(mv=cython.uchar[:], i=cython.Py_ssize_t, end=cython.Py_ssize_t, c=cython.uchar)
@cython.returns(cython.Py_ssize_t)
def _space(mv, i, end):
    """The first position from ``i`` that is not XML white space (a carriage return is not: refused)."""
    while i < end:
        c = mv[i]
        if c != 32 and c != 10 and c != 9:
            break
        i += 1
    return i


@cython.cfunc
@cython.inline
@cython.locals(mv=cython.uchar[:], i=cython.Py_ssize_t, end=cython.Py_ssize_t, c=cython.uchar)
@cython.returns(cython.Py_ssize_t)
def _name_end(mv, i, end):
    """The end of the name (letters, digits, ``_.:-``) starting at ``i``."""
    while i < end:
        c = mv[i]
        if not ((97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 58) or c == 95 or c == 45 or c == 46):
            break
        i += 1
    return i


@cython.cfunc
@cython.locals(mv=cython.uchar[:], a=cython.Py_ssize_t, b=cython.Py_ssize_t, name=bytes, k=cython.Py_ssize_t)
@cython.returns(cython.bint)
def _same(mv, a, b, name):
    """Whether ``mv[a:b]`` is ``name``."""
    if b - a != len(name):
        return False
    for k in range(b - a):
        if mv[a + k] != name[k]:
            return False
    return True


@cython.cfunc
@cython.locals(mv=cython.uchar[:], i=cython.Py_ssize_t, end=cython.Py_ssize_t, name=bytes, j=cython.Py_ssize_t)
@cython.returns(cython.Py_ssize_t)
def _tag(mv, i, end, name):
    """After ``<name`` at ``i`` (the name ending there), or -1."""
    if i >= end or mv[i] != LT:
        return -1
    j = _name_end(mv, i + 1, end)
    return j if _same(mv, i + 1, j, name) else -1


@cython.cfunc
@cython.locals(mv=cython.uchar[:], i=cython.Py_ssize_t, end=cython.Py_ssize_t, name=bytes, j=cython.Py_ssize_t)
@cython.returns(cython.Py_ssize_t)
def _end_tag(mv, i, end, name):
    """After ``</name`` and white space and ``>`` at ``i``, or -1."""
    if i + 1 >= end or mv[i] != LT or mv[i + 1] != SLASH:
        return -1
    j = _name_end(mv, i + 2, end)
    if not _same(mv, i + 2, j, name):
        return -1
    j = _space(mv, j, end)
    return j + 1 if j < end and mv[j] == GT else -1


@cython.cfunc
@cython.locals(mv=cython.uchar[:], i=cython.Py_ssize_t, end=cython.Py_ssize_t, q=cython.uchar, names=tuple,
               optional=bytes, out=cython.long[:], nn=cython.Py_ssize_t, k=cython.Py_ssize_t, j=cython.Py_ssize_t,
               a=cython.Py_ssize_t, c=cython.uchar)
@cython.returns(cython.Py_ssize_t)
def _attributes(mv, i, end, q, names, optional, out):
    """The attributes of a start tag from ``i`` (after its name), each ``names[k]`` in that order (those of
    ``optional[k]`` may be left out), each preceded by white space, with an ASCII value between the quotes
    ``q`` holding no ``<``, ``>``, ``&`` or control character: ``out[2k], out[2k + 1]`` is where
    ``names[k]``'s value starts and ends (-1 when left out). The position after the white space that
    follows them, or -1."""
    nn = len(names)
    for k in range(2 * nn):
        out[k] = -1
    k = 0
    while True:
        j = _space(mv, i, end)
        if j == i or j >= end:
            i = j
            break
        c = mv[j]
        if not ((97 <= c <= 122) or (65 <= c <= 90) or c == 95):
            i = j
            break
        a = j
        j = _name_end(mv, j, end)
        while k < nn and not _same(mv, a, j, names[k]):
            if not optional[k]:
                return -1
            k += 1
        if k == nn:
            return -1
        j = _space(mv, j, end)
        if j >= end or mv[j] != EQ:
            return -1
        j = _space(mv, j + 1, end)
        if j >= end or mv[j] != q:
            return -1
        j += 1
        a = j
        while j < end:
            c = mv[j]
            if c == q:
                break
            if c < 32 or c >= 128 or c == LT or c == GT or c == AMP:
                return -1
            j += 1
        if j >= end:
            return -1
        out[2 * k] = a
        out[2 * k + 1] = j
        k += 1
        i = j + 1
    while k < nn:
        if not optional[k]:
            return -1
        k += 1
    return i


@cython.cfunc
@cython.locals(mv=cython.uchar[:], a=cython.Py_ssize_t, b=cython.Py_ssize_t, k=cython.Py_ssize_t)
@cython.returns(cython.bint)
def _is_id(mv, a, b):
    """An id's value: not empty, no space (the other characters were checked with the value)."""
    if a < 0 or b <= a:
        return False
    for k in range(a, b):
        if mv[k] == 32:
            return False
    return True


@cython.cfunc
@cython.locals(mv=cython.uchar[:], a=cython.Py_ssize_t, b=cython.Py_ssize_t, prefix=bytes, lp=cython.Py_ssize_t,
               k=cython.Py_ssize_t)
@cython.returns(cython.bint)
def _like_form(mv, a, b, prefix):
    """Whether the value ``mv[a:b]`` starts with the form ids' prefix (``<sid>F``) and a digit."""
    lp = len(prefix)
    if b - a <= lp:
        return False
    for k in range(lp):
        if mv[a + k] != prefix[k]:
            return False
    return 48 <= mv[a + lp] <= 57


@cython.cfunc
@cython.locals(data=bytearray, mv=cython.uchar[:], out=cython.long[:], type_at=cython.Py_ssize_t,
               id_at=cython.Py_ssize_t, kinds=dict, prefix=bytes, a=cython.Py_ssize_t, b=cython.Py_ssize_t)
def _kind_and_id(data, mv, out, type_at, id_at, kinds, prefix):
    """``(what the type attribute names in kinds, the id)`` of a group or relation whose attributes were read
    into ``out`` (``type_at``, ``id_at``: their places), or None: a type not in ``kinds``, an id not of the
    subset or like a form id."""
    found = kinds.get(data[out[2 * type_at]:out[2 * type_at + 1]].decode("ascii"))
    a, b = out[2 * id_at], out[2 * id_at + 1]
    if found is None or not _is_id(mv, a, b) or _like_form(mv, a, b, prefix):
        return None
    return found, data[a:b].decode("ascii")


@cython.cfunc
@cython.locals(mv=cython.uchar[:], a=cython.Py_ssize_t, b=cython.Py_ssize_t, lp=cython.Py_ssize_t,
               value=cython.long, k=cython.Py_ssize_t, c=cython.uchar)
@cython.returns(cython.long)
def _form_number(mv, a, b, lp):
    """The number k of a value ``<sid>Fk`` (its prefix checked, ``lp`` bytes long): k written as Python
    writes it (no leading zero but for 0), else -1."""
    if b - a - lp > 9 or (mv[a + lp] == 48 and b - a - lp > 1):
        return -1
    value = 0
    for k in range(a + lp, b):
        c = mv[k]
        if c < 48 or c > 57:
            return -1
        value = 10 * value + (c - 48)
    return value


@cython.locals(data=bytearray, mv=cython.uchar[:], start=cython.Py_ssize_t, end=cython.Py_ssize_t, prefix=bytes,
               out=cython.long[:], q=cython.uchar, i=cython.Py_ssize_t, j=cython.Py_ssize_t, a=cython.Py_ssize_t,
               b=cython.Py_ssize_t, c=cython.uchar, n=cython.long, k=cython.long, lp=cython.Py_ssize_t,
               wrapper=cython.int, seen=cython.bint, in_group=cython.bint, group_start=cython.long,
               high_form=cython.long, r=cython.Py_ssize_t, nroles=cython.Py_ssize_t, pending=cython.bint,
               x=cython.Py_ssize_t, group_names=tuple, group_optional=bytes, relation_names=tuple,
               relation_optional=bytes, role_names=tuple, role_optional=bytes, group_type=cython.Py_ssize_t,
               group_id=cython.Py_ssize_t, relation_type=cython.Py_ssize_t, relation_id=cython.Py_ssize_t,
               role_href=cython.Py_ssize_t, group_types=dict, relation_types=dict)
def sentence_parts(data, start, end, prefix, layout):
    """``(texts, stripped texts, groups, relations)`` of the sentence at ``data[start:end]`` (from ``<E`` to
    ``</E>``; ``prefix``: its form ids' prefix ``<sid>F`` in UTF-8) as ``TextPath._parts`` reads them, or
    ``None``: not in the subset this walk reads (see the module docstring), the regular-expression way decides."""
    mv = data
    out = layout.out.__copy__()  # a walk's own (a layout may serve several threads)
    q = layout.quote
    lp = len(prefix)
    texts: list = []
    stripped: list = []
    groups: list = []
    relations: list = []
    gids: dict = {}
    rids: set = set()
    n = 0
    high_form = 0
    pending = False
    group_types = layout.group_types
    relation_types = layout.relation_types
    group_names, group_optional = layout.group_names, layout.group_optional
    group_type, group_id = layout.group_type, layout.group_id
    relation_names, relation_optional = layout.relation_names, layout.relation_optional
    relation_type, relation_id = layout.relation_type, layout.relation_id
    role_names, role_optional, role_href = layout.role_names, layout.role_optional, layout.role_href
    # <E id="...">
    i = _tag(mv, start, end, b"E")
    if i < 0:
        return None
    i = _attributes(mv, i, end, q, (b"id",), b"\x00", out)
    if i < 0 or i >= end or not _is_id(mv, out[0], out[1]) or mv[i] != GT:
        return None
    i += 1
    wrapper = 0  # <constituants>: 0 none (yet), 1 inside it, 2 closed (only <relations> may follow)
    seen = False  # an element before any <constituants>
    in_group = False
    group_start = 0
    gtype = None
    gid = None
    while True:
        i = _space(mv, i, end)
        if i + 1 >= end or mv[i] != LT:
            return None
        if mv[i + 1] == SLASH:  # an end tag: the group's, the wrapper's or the sentence's
            if in_group:
                j = _end_tag(mv, i, end, b"Groupe")
                if j < 0 or n == group_start:
                    return None
                rng = (group_start, n)
                gids[gid] = rng
                groups.append((group_start, n, gtype))
                in_group = False
                i = j
                continue
            if wrapper == 1:
                j = _end_tag(mv, i, end, b"constituants")
                if j < 0:
                    return None
                wrapper = 2
                i = j
                continue
            if i != end - 4 or mv[i + 2] != 69:  # "</E>": where the span ends
                return None
            break
        j = _name_end(mv, i + 1, end)
        if _same(mv, i + 1, j, b"F"):
            if wrapper == 2:
                return None
            seen = True
            i = _attributes(mv, j, end, q, (b"id",), b"\x00", out)
            if i < 0 or i >= end or mv[i] != GT:
                return None
            a, b = out[0], out[1]
            n += 1
            if not _like_form(mv, a, b, prefix) or _form_number(mv, a, b, lp) != n:
                return None
            i += 1
            a = i
            while i < end:
                c = mv[i]
                if c == LT:
                    break
                if c < 32:
                    if c != 10 and c != 9:
                        return None  # a control character, or a carriage return (the regular way reads it)
                elif c == AMP:
                    return None  # an entity: the regular way unescapes it
                elif c == GT:
                    if i - 2 >= a and mv[i - 1] == BRACKET and mv[i - 2] == BRACKET:
                        return None  # "]]>"
                elif c == 0xEF and i + 2 < end and mv[i + 1] == 0xBF and (mv[i + 2] == 0xBE or mv[i + 2] == 0xBF):
                    return None  # U+FFFE, U+FFFF
                i += 1
            if i == a:
                return None  # no text: lxml reads None
            try:
                text = data[a:i].decode("utf-8")
            except UnicodeDecodeError:
                return None
            texts.append(text)
            stripped.append(text.strip())
            i = _end_tag(mv, i, end, b"F")
            if i < 0:
                return None
            continue
        if in_group:
            return None  # a group holds forms only
        if _same(mv, i + 1, j, b"Groupe"):
            if wrapper == 2:
                return None
            seen = True
            i = _attributes(mv, j, end, q, group_names, group_optional, out)
            if i < 0 or i >= end or mv[i] != GT:
                return None
            typed = _kind_and_id(data, mv, out, group_type, group_id, group_types, prefix)
            if typed is None:
                return None
            gtype, gid = typed
            if gid in gids:
                return None
            in_group = True
            group_start = n
            i += 1
            continue
        if _same(mv, i + 1, j, b"constituants"):
            if seen or wrapper:
                return None
            i = _space(mv, j, end)
            if i >= end or mv[i] != GT:
                return None
            wrapper = 1
            i += 1
            continue
        if not _same(mv, i + 1, j, b"relations") or wrapper == 1:
            return None
        seen = True
        i = _space(mv, j, end)
        if i >= end or mv[i] != GT:
            return None
        i += 1
        # the relations: <relation ...> its roles in order, its extras in order </relation>
        while True:
            i = _space(mv, i, end)
            j = _end_tag(mv, i, end, b"relations")
            if j >= 0:
                i = j
                break
            j = _tag(mv, i, end, b"relation")
            if j < 0:
                return None
            i = _attributes(mv, j, end, q, relation_names, relation_optional, out)
            if i < 0 or i >= end or mv[i] != GT:
                return None
            typed = _kind_and_id(data, mv, out, relation_type, relation_id, relation_types, prefix)
            if typed is None:
                return None
            found, rid = typed
            if rid in rids or rid in gids:
                return None
            rids.add(rid)
            rtype, roles, extras = found
            i += 1
            nroles = len(roles)
            targets = [None] * nroles
            for r in range(nroles):
                i = _space(mv, i, end)
                j = _tag(mv, i, end, roles[r])
                if j < 0:
                    return None
                i = _attributes(mv, j, end, q, role_names, role_optional, out)
                if i < 0 or i + 1 >= end or mv[i] != SLASH or mv[i + 1] != GT:
                    return None
                i += 2
                k = role_href
                a, b = out[2 * k], out[2 * k + 1]
                if _like_form(mv, a, b, prefix):
                    k = _form_number(mv, a, b, lp)
                    if k < 0:
                        return None
                    if k > 0:
                        targets[r] = k - 1
                        if k > high_form:
                            high_form = k
                    # else the null argument (no group id starts like a form id)
                else:
                    target = data[a:b].decode("ascii")
                    rng = gids.get(target)
                    if rng is None:
                        targets[r] = target  # a group further on, perhaps (resolved at the end)
                        pending = True
                    else:
                        targets[r] = rng
            for x in range(len(extras)):
                i = _space(mv, i, end)
                j = _tag(mv, i, end, extras[x])
                if j < 0:
                    continue
                i = _space(mv, j, end)
                if i > j and i < end and ((97 <= mv[i] <= 122) or (65 <= mv[i] <= 90) or mv[i] == 95):
                    a = i
                    i = _name_end(mv, i, end)
                    for k in range(a, i):
                        if mv[k] == 58:  # ":"
                            return None
                    if _same(mv, a, i, b"href") or (i - a >= 3 and mv[a] | 32 == 120 and mv[a + 1] | 32 == 109
                                                    and mv[a + 2] | 32 == 108):
                        return None  # href, or a reserved xml* name
                    i = _space(mv, i, end)
                    if i >= end or mv[i] != EQ:
                        return None
                    i = _space(mv, i + 1, end)
                    if i >= end or mv[i] != q:
                        return None
                    i += 1
                    while i < end and mv[i] != q:
                        c = mv[i]
                        if c < 32 or c >= 128 or c == LT or c == GT or c == AMP:
                            return None
                        i += 1
                    i = _space(mv, i + 1, end)
                if i + 1 >= end or mv[i] != SLASH or mv[i + 1] != GT:
                    return None
                i += 2
            i = _space(mv, i, end)
            j = _end_tag(mv, i, end, b"relation")
            if j < 0:
                return None
            i = j
            relations.append((rtype, targets))
    if in_group or wrapper == 1 or high_form > n:
        return None
    out_relations: list = []
    for rtype, targets in relations:
        if pending:
            for r in range(len(targets)):
                target = targets[r]
                if isinstance(target, str):
                    rng = gids.get(target)
                    if rng is None:
                        return None  # a pointer to no form or group of the sentence
                    targets[r] = rng
        out_relations.append((rtype, tuple(targets)))
    if len(out_relations) > 1 and len(set(out_relations)) != len(out_relations):
        return None  # two relations alike (the regular way tells a repeated one from two groups of one range)
    if rids and not rids.isdisjoint(gids):
        return None
    return texts, stripped, groups, out_relations
