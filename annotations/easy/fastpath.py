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

    def check(self, e, sid: str, want_texts: bool = False):
        """``(form ids, form texts or None, has groups, has relations)`` when the sentence is certainly
        valid, else ``None`` (then the detailed parser decides)."""
        fids: list[str] = []
        add_fid = fids.append
        texts: list[str] | None = [] if want_texts else None
        gids: set[str] = set()
        rids: set[str] = set()
        hrefs: list[str] = []
        group_types = self.group_types
        wrapped = False
        for c in e:
            tag = c.tag
            if tag == "F":
                add_fid(c.get("id"))
                if len(c):
                    return None
                if texts is not None:
                    texts.append(c.text)
            elif tag == "Groupe":
                gid = c.get("id")
                if not gid or gid in gids or c.get("type") not in group_types:
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
            elif tag == "relations":
                if not self._relations(c, rids, hrefs):
                    return None
            elif tag == "constituants" and not wrapped:
                wrapped = True
                for g in c:
                    tag = g.tag
                    if tag == "F":
                        add_fid(g.get("id"))
                        if len(g):
                            return None
                        if texts is not None:
                            texts.append(g.text)
                    elif tag == "Groupe":
                        if not self._group(g, gids, fids, texts, group_types):
                            return None
                    else:
                        return None
            else:
                return None
        n = len(fids)
        prefix = sid + "F"
        nums = _numbers(n)
        if fids != [prefix + k for k in nums]:
            return None
        if texts is not None and None in texts:
            return None
        if gids or rids:
            if not gids.isdisjoint(rids):
                return None
            for x in gids:
                if x.startswith(prefix):
                    return None  # could collide with a form id: let the detailed parser judge
            for x in rids:
                if x.startswith(prefix):
                    return None
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
        return fids, texts, bool(gids), bool(rids)

    @staticmethod
    def _group(c, gids, fids, texts, group_types) -> bool:
        gid = c.get("id")
        if not gid or gid in gids or c.get("type") not in group_types:
            return False
        gids.add(gid)
        n0 = len(fids)
        for f in c:
            if f.tag != "F" or len(f):
                return False
            fids.append(f.get("id"))
            if texts is not None:
                texts.append(f.text)
        return len(fids) > n0

    def _relations(self, rels, rids: set, hrefs: list) -> bool:
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
            for x in r:
                tag = x.tag
                if j < nroles and tag == roles[j]:
                    h = x.get(XLINK_HREF)
                    if h is None:
                        h = x.get("href")
                        if h is None:
                            return False
                    hrefs.append(h)  # an empty or padded pointer matches no id: detailed parser
                    j += 1
                elif tag in extra_tags[rtype]:
                    if extras is None:
                        extras = {tag}
                    elif tag in extras:
                        return False
                    else:
                        extras.add(tag)
                else:
                    return False
            if j != nroles:
                return False
        return True
