"""The fast path of the reader: cheap acceptance of the run sentences that are only validated.

Only about a tenth of an EASY corpus has gold; the other sentences of a run
are validated but never scored, so building full objects for them would be
wasted. :meth:`FastPath.check` walks such a sentence once, reading only the
attributes that validation needs, and accepts it only when it is certainly
valid: forms and groups (directly in ``<E>`` or in one ``<constituants>``),
groups of a known type holding forms only, form ids ``E<n>F1..E<n>Fk`` in
text order, relations of a known type with exactly its roles in schema
order (extra children allowed once each), every pointer to a form, a group
or the null argument ``E<n>F0``, no duplicate id. Anything else (an error,
or only an unusual but valid shape such as roles in another order) returns
``None`` and the detailed parser decides and names every problem with its
line. The fast path therefore never changes what is accepted, only how
fast it is accepted.
"""
from __future__ import annotations

from .model import Form, Group, Relation, Sentence
from .canonical import Dialect, TextPath, schema_is_plain
from .schema import EasySchema

XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_NUMS: list[str] = [str(k) for k in range(1, 201)]


def _numbers(n: int) -> list[str]:
    if n > len(_NUMS):
        _NUMS.extend(str(k) for k in range(len(_NUMS) + 1, n + 1))
    return _NUMS[:n]


class FastPath:
    """The fast validity check for one schema (see the module docstring)."""

    def __init__(self, schema: EasySchema):
        self.enabled = True
        self.group_types = frozenset(schema.group_types)
        self.role_seq = {t: schema.roles(t) for t in schema.relation_types}
        self.extra_tags = {t: frozenset(schema.extras(t)) for t in schema.relation_types}
        # sentences in the canonical shape are read from their bytes (see canonical.py)
        self.schema = schema
        self.plain = schema_is_plain(schema)
        self._text_paths: dict[Dialect, TextPath] = {}

    def text_path(self, dialect: Dialect) -> TextPath | None:
        """The canonical grammar in a file's dialect, or ``None`` (the schema is not plain)."""
        if not self.plain:
            return None
        path = self._text_paths.get(dialect)
        if path is None:
            path = self._text_paths[dialect] = TextPath(self.schema, dialect)
        return path

    def check(self, e, sid: str, want_texts: bool = False, build: bool = False, line_offset: int = 0):
        """``(form ids, form texts or None, has groups, has relations, sentence or None)`` when the
        sentence is certainly valid, else ``None`` (then the detailed parser decides). With ``build``,
        the :class:`Sentence` is built in the same pass (texts are then always read); ``line_offset``
        is added to its line numbers (a sentence parsed alone starts on line 1)."""
        fids: list[str] = []
        add_fid = fids.append
        if build:
            want_texts = True
        texts: list[str] | None = [] if want_texts else None
        gids: set[str] = set()
        rids: set[str] = set()
        hrefs: list[str] = []
        groups: list | None = [] if build else None
        relations: list | None = [] if build else None
        group_types = self.group_types
        containers = (e,)
        k = 0
        while k < len(containers):
            container = containers[k]
            top = k == 0
            k += 1
            for c in container:
                tag = c.tag
                if tag == "F":
                    add_fid(c.get("id"))
                    if len(c):
                        return None
                    if texts is not None:
                        texts.append(c.text)
                elif tag == "Groupe":
                    gid = c.get("id")
                    gtype = c.get("type")
                    if not gid or gid in gids or gtype not in group_types:
                        return None
                    gids.add(gid)
                    n0 = len(fids)
                    for f in c:
                        if f.tag != "F" or len(f):
                            return None
                        add_fid(f.get("id"))
                        if texts is not None:
                            texts.append(f.text)
                    if len(fids) == n0:
                        return None
                    if groups is not None:
                        groups.append(Group(gid, gtype, n0, len(fids)))
                elif tag == "relations" and top:
                    if not self._relations(c, rids, hrefs, relations, line_offset):
                        return None
                elif tag == "constituants" and top and len(containers) == 1 and not fids and not rids:
                    containers = (e, c)  # its content, then nothing else but <relations>
                    if not self._only_relations_after(c):
                        return None
                else:
                    return None
        n = len(fids)
        prefix = sid + "F"
        if fids != [prefix + x for x in _numbers(n)]:
            return None
        if texts is not None and None in texts:
            return None
        if (gids and (not gids.isdisjoint(fids) or not gids.isdisjoint(rids))) or (rids and not rids.isdisjoint(fids)):
            return None  # an id used twice: the detailed parser names it
        if hrefs:
            lp = len(prefix)
            null = prefix + "0"
            for h in hrefs:
                if h in gids or h == null:
                    continue
                if h.startswith(prefix):
                    num = h[lp:]
                    if num.isascii() and num.isdigit() and num[0] != "0" and int(num) <= n:
                        continue
                return None
        sent = None
        if build:
            sent = Sentence(sid, [Form(fid, t.strip()) for fid, t in zip(fids, texts)], groups, relations,
                            e.sourceline + line_offset)
        return fids, texts, bool(gids), bool(rids), sent

    @staticmethod
    def _only_relations_after(c) -> bool:
        nxt = c.getnext()
        while nxt is not None:
            if nxt.tag != "relations":
                return False
            nxt = nxt.getnext()
        return True

    def _relations(self, rels, rids: set, hrefs: list, out: list | None, line_offset: int = 0) -> bool:
        role_seq = self.role_seq
        extra_tags = self.extra_tags
        for r in rels:
            if r.tag != "relation":
                return False
            rtype = r.get("type")
            roles = role_seq.get(rtype)
            rid = r.get("id")
            if roles is None or not rid or rid in rids:
                return False
            rids.add(rid)
            j = 0
            nroles = len(roles)
            extras = None
            args = {} if out is not None else None
            for x in r:
                tag = x.tag
                if j < nroles and tag == roles[j]:
                    h = x.get(XLINK_HREF)
                    if h is None:
                        h = x.get("href")
                        if h is None:
                            return False
                    hrefs.append(h)  # an empty or padded pointer matches no id: detailed parser
                    if args is not None:
                        args[tag] = h
                    j += 1
                elif tag in extra_tags[rtype]:
                    if extras is None:
                        extras = {tag: x}
                    elif tag in extras:
                        return False
                    else:
                        extras[tag] = x
                else:
                    return False
            if j != nroles:
                return False
            if out is not None:
                out.append(Relation(rid, rtype, args,
                                    {t: dict(x.attrib) for t, x in extras.items()} if extras else {},
                                    r.sourceline + line_offset))
        return True
