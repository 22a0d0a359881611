"""Word ranges, the five range functions and the three constituent modes.

A range is the set of form positions an item covers in its sentence. EASY
constituents are contiguous and forms are single positions, so every range
is an interval: it is stored as a half-open pair ``(start, end)`` of
0-based positions. The null argument (``E<n>F0``, and a dangling pointer in
gold) is ``None``: the empty range, which matches only another null argument
whatever the function.
"""
from __future__ import annotations

from parseval.annotations.easy.model import SentenceParts, Sentence

Range = "tuple[int, int] | None"

MATCHES = ("EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER")
MODES = ("HYP", "DEFHYP", "REF")
BIT = {name: 1 << i for i, name in enumerate(MATCHES)}
ALL_BITS = (1 << len(MATCHES)) - 1
EQUAL, FUZZY, INCLUDE, INTERSECTION, BARYCENTER = (BIT[m] for m in MATCHES)


def range_mask(h, r) -> int:
    """Bit mask of the range functions that hold between hypothesis ``h`` and reference ``r``.

    EQUAL: H = R. FUZZY: |H △ R| <= 1. INCLUDE: H ⊆ R. INTERSECTION: H ∩ R ≠ ∅.
    BARYCENTER: 2|H ∩ R| / (|H| + |R|) > 0.25, i.e. 8|H ∩ R| > |H| + |R|.
    """
    if h is None or r is None:
        return ALL_BITS if h is None and r is None else 0
    hs, he = h
    rs, re_ = r
    if hs == rs and he == re_:
        return ALL_BITS
    inter = (he if he < re_ else re_) - (hs if hs > rs else rs)
    if inter <= 0:
        return 0
    lh = he - hs
    lr = re_ - rs
    mask = INTERSECTION
    if lh + lr - 2 * inter <= 1:
        mask |= FUZZY
    if inter == lh:
        mask |= INCLUDE
    if 8 * inter > lh + lr:
        mask |= BARYCENTER
    return mask


def range_holds(function: str, h, r) -> bool:
    """Whether range function ``function`` holds between ``h`` and ``r``."""
    return bool(range_mask(h, r) & BIT[function])


def positions(rng) -> frozenset[int]:
    """The set of form positions of a range (for display and tests)."""
    return frozenset() if rng is None else frozenset(range(rng[0], rng[1]))


def constituent_ranges(s: Sentence):
    """A sentence's groups in range space: the group covering each form position
    (None where no group does), the set of ranges per group type, and the range of
    each group id."""
    cover: list = [None] * len(s.forms)
    cons: dict[str, set] = {}
    gid = {}
    for g in s.groups:
        rng = (g.start, g.end)
        gid[g.id] = rng
        for p in range(g.start, g.end):
            cover[p] = rng
        items = cons.get(g.type)
        if items is None:
            cons[g.type] = {rng}
        else:
            items.add(rng)
    return cover, cons, gid


def groups_of_parts(n: int, groups) -> tuple[list, dict[str, set]]:
    """From a sentence's parts' groups ``(start, end, type)`` over ``n`` forms: each form's group range (None
    outside any group) and the ranges of each type."""
    cover: list = [None] * n
    cons: dict[str, set] = {}
    for start, end, gtype in groups:
        rng = (start, end)
        for p in range(start, end):
            cover[p] = rng
        items = cons.get(gtype)
        if items is None:
            cons[gtype] = {rng}
        else:
            items.add(rng)
    return cover, cons


class ReferenceView:
    """What scoring needs from a gold sentence: reference constituents and items in range space."""

    __slots__ = ("n", "cover", "group_ranges", "cons", "rels", "group_by_id", "form_pos")

    def __init__(self, s: Sentence, relation_roles):
        self.n = len(s.forms)
        self.form_pos = {f.id: i for i, f in enumerate(s.forms)}
        cover, cons, gid = constituent_ranges(s)
        self.cover = cover
        self.group_by_id = gid
        self.group_ranges = sorted(gid.values())
        self.cons = cons
        rels: dict[str, set] = {}
        fpos = self.form_pos
        for r in s.relations:
            args = []
            for target in r.args.values():
                rng = gid.get(target)
                if rng is None:
                    p = fpos.get(target)
                    if p is not None:
                        rng = cover[p] or (p, p + 1)
                args.append(rng)  # null argument and dangling gold pointer: None
            items = rels.get(r.type)
            if items is None:
                rels[r.type] = {tuple(args)}
            else:
                items.add(tuple(args))
        self.rels = rels

    @classmethod
    def from_parts(cls, n: int, groups, relations) -> "ReferenceView":
        """The view of a sentence of ``n`` forms given as ``groups`` ``(start, end, type)`` and ``relations``
        ``(type, argument ranges)`` already resolved (a stored gold index's): the same sets as from the
        sentence. Form and group ids are not kept (scoring works on ranges)."""
        self = cls.__new__(cls)
        self.n = n
        cover, cons = groups_of_parts(n, groups)
        rels: dict[str, set] = {}
        for rtype, args in relations:
            items = rels.get(rtype)
            if items is None:
                rels[rtype] = {args}
            else:
                items.add(args)
        self.cover, self.cons, self.rels = cover, cons, rels
        self.group_ranges = sorted((start, end) for start, end, _ in groups)
        self.group_by_id = self.form_pos = None
        return self

    @classmethod
    def from_sentence_parts(cls, parts: SentenceParts) -> "ReferenceView":
        """The view of a gold sentence read as :class:`~parseval.annotations.easy.model.SentenceParts`: the same sets
        as from the sentence (form and group ids are not kept)."""
        self = cls.__new__(cls)
        self.n = len(parts.forms)
        cover, cons = groups_of_parts(self.n, parts.groups)
        rels: dict[str, set] = {}
        for rtype, targets in parts.relations:
            # a form's position stands for its group, or for itself
            args = tuple([cover[t] or (t, t + 1) if isinstance(t, int) else t for t in targets])
            items = rels.get(rtype)
            if items is None:
                rels[rtype] = {args}
            else:
                items.add(args)
        self.cover, self.cons, self.rels = cover, cons, rels
        self.group_ranges = sorted((start, end) for start, end, _ in parts.groups)
        self.group_by_id = self.form_pos = None
        return self

    def best_group(self, rng):
        """REF mode: the reference group sharing most forms with ``rng`` (leftmost on a tie), else ``rng``."""
        s, e = rng
        best = None
        best_overlap = 0
        cover = self.cover
        p = s
        while p < e:
            g = cover[p]
            if g is None:
                p += 1
                continue
            overlap = (e if e < g[1] else g[1]) - (s if s > g[0] else g[0])
            if overlap > best_overlap:
                best, best_overlap = g, overlap
            p = g[1]
        return best if best is not None else rng


class HypothesisView:
    """A run sentence in range space: constituents, and relations in each requested mode."""

    __slots__ = ("cons", "rels")

    def __init__(self, s: Sentence | SentenceParts, ref: ReferenceView, modes=MODES):
        if isinstance(s, SentenceParts):
            self._from_parts(s, ref, modes)
            return
        hcover, cons, gid = constituent_ranges(s)
        self.cons = cons
        rels = {m: {} for m in modes}
        if s.relations:
            fpos = {f.id: i for i, f in enumerate(s.forms)}
            rcover = ref.cover
            want_ref = "REF" in rels
            memo: dict[str, tuple] = {}  # a target's ranges in the three modes
            # each wanted mode's items, and which of a target's three ranges it takes
            by_mode = [(rels[m], MODES.index(m)) for m in rels]
            for r in s.relations:
                res = []
                for target in r.args.values():
                    x = memo.get(target)
                    if x is None:
                        g = gid.get(target)
                        if g is not None:
                            x = (g, g, ref.best_group(g) if want_ref else None)
                        else:
                            p = fpos.get(target)
                            if p is None:  # null argument (a run never has dangling pointers)
                                x = (None, None, None)
                            else:
                                single = (p, p + 1)
                                h = hcover[p]
                                rc = rcover[p] if p < len(rcover) else None
                                x = (h or single, h or rc or single, rc or single)
                        memo[target] = x
                    res.append(x)
                rtype = r.type
                keys = tuple(zip(*res)) if res else ((), (), ())  # the relation's item in each mode
                for items_by_type, i in by_mode:
                    key = keys[i]
                    items = items_by_type.get(rtype)
                    if items is None:
                        items_by_type[rtype] = {key}
                    else:
                        items.add(key)
        self.rels = rels

    def _from_parts(self, s: SentenceParts, ref: ReferenceView, modes) -> None:
        """The same sets from a sentence's parts, whose targets are already a group's range (a tuple), a form's
        position (an int) or None. The loop repeats the sentence path's few lines for a target's ranges and an
        item's sets, written out: it runs for every relation argument of every run sentence."""
        hcover, self.cons = groups_of_parts(len(s.forms), s.groups)
        rels = {m: {} for m in modes}
        if s.relations:
            rcover = ref.cover
            want_ref = "REF" in rels
            memo: dict = {None: (None, None, None)}  # a target's ranges in the three modes
            by_mode = [(rels[m], MODES.index(m)) for m in rels]
            for rtype, targets in s.relations:
                res = []
                for target in targets:
                    x = memo.get(target)
                    if x is None:
                        if isinstance(target, tuple):  # a group
                            x = (target, target, ref.best_group(target) if want_ref else None)
                        else:
                            single = (target, target + 1)
                            h = hcover[target]
                            rc = rcover[target] if target < len(rcover) else None
                            x = (h or single, h or rc or single, rc or single)
                        memo[target] = x
                    res.append(x)
                keys = tuple(zip(*res)) if res else ((), (), ())
                for items_by_type, i in by_mode:
                    key = keys[i]
                    items = items_by_type.get(rtype)
                    if items is None:
                        items_by_type[rtype] = {key}
                    else:
                        items.add(key)
        self.rels = rels
