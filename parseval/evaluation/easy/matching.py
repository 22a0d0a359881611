"""One-to-one maximum matching between hypothesis and reference items.

Within a sentence and a type, the number of matches is the size of a maximum
bipartite matching (augmenting paths, Kuhn's algorithm: exact, and the sizes
are small). :func:`match_counts` computes it for several range functions at
once from one pass over the pairs.
"""
from __future__ import annotations

from .ranges import ALL_BITS, BARYCENTER, EQUAL, FUZZY, INCLUDE, INTERSECTION


def maximum_matching(adjacency: list[list[int]]) -> int:
    """Size of a maximum matching; ``adjacency[h]`` lists the reference indexes ``h`` may match.

    The augmenting path is searched with an explicit stack: a path can be as long as a sentence has items
    of one type, which no recursion limit should bound."""
    owner: dict[int, int] = {}
    size = 0
    for start in range(len(adjacency)):
        if not adjacency[start]:
            continue
        seen: set = set()
        stack = [(start, iter(adjacency[start]))]
        path: list[int] = []  # path[i]: the reference item tried by stack[i]
        found = False
        while stack and not found:
            h, candidates = stack[-1]
            for r in candidates:
                if r in seen:
                    continue
                seen.add(r)
                path.append(r)
                if r not in owner:
                    found = True
                else:
                    stack.append((owner[r], iter(adjacency[owner[r]])))
                break
            else:  # no way on from h: back to the previous item
                stack.pop()
                if path:
                    path.pop()
        if found:
            for (h, _), r in zip(stack, path):
                owner[r] = h
            size += 1
    return size


def _pair_mask(h, r, relation: bool) -> int:
    """:func:`~parseval.evaluation.easy.ranges.range_mask` of two items, anded over the arguments of relations
    (written out here: it runs for every pair of items that may match, in every sentence)."""
    if h == r:
        return ALL_BITS
    mask = ALL_BITS
    for a, b in (zip(h, r) if relation else ((h, r),)):
        if a == b:  # equal ranges, or both null
            continue
        if a is None or b is None:
            return 0
        hs, he = a
        rs, re_ = b
        inter = (he if he < re_ else re_) - (hs if hs > rs else rs)
        if inter <= 0:
            return 0
        lh = he - hs
        lr = re_ - rs
        m = INTERSECTION
        if lh + lr - 2 * inter <= 1:
            m |= FUZZY
        if inter == lh:
            m |= INCLUDE
        if 8 * inter > lh + lr:
            m |= BARYCENTER
        mask &= m
        if not mask:
            return 0
    return mask


# from this many pairs of items on, only the pairs whose (first) ranges meet are tried
_INDEX_FROM = 24


def _masks(hyp, ref, relation: bool) -> list[list[tuple[int, int]]]:
    """For each hypothesis item that meets a reference item, ``(reference index, mask)`` of every such item.

    A mask is 0 unless the (first) ranges of the two items are equal (both null, perhaps) or share a form;
    among many items, the reference items are therefore found through the forms of their (first) range."""
    ref_l = list(ref)
    rows = []
    if len(hyp) * len(ref_l) < _INDEX_FROM or (relation and not ref_l[0]):
        for h in hyp:
            row = []
            for j, r in enumerate(ref_l):
                mask = _pair_mask(h, r, relation)
                if mask:
                    row.append((j, mask))
            if row:
                rows.append(row)
        return rows
    index: dict = {}  # a form position, a null or an empty range: the reference items there
    for j, r in enumerate(ref_l):
        b = r[0] if relation else r
        keys = (b,) if b is None or b[1] <= b[0] else range(b[0], b[1])
        for key in keys:
            at = index.get(key)
            if at is None:
                index[key] = [j]
            else:
                at.append(j)
    for h in hyp:
        a = h[0] if relation else h
        if a is None or a[1] <= a[0]:
            candidates = index.get(a, ())
        elif a[1] - a[0] == 1:
            candidates = index.get(a[0], ())
        else:
            candidates = set()
            for p in range(a[0], a[1]):
                candidates.update(index.get(p, ()))
        row = []
        for j in candidates:
            mask = _pair_mask(h, ref_l[j], relation)
            if mask:
                row.append((j, mask))
        if row:
            rows.append(row)
    return rows


def match_counts(hyp, ref, bits: list[int], relation: bool) -> list[int]:
    """Maximum-matching sizes between the item sets ``hyp`` and ``ref``, one per bit in ``bits``."""
    if not hyp or not ref:
        return [0] * len(bits)
    if hyp == ref:
        return [len(hyp)] * len(bits)
    rows = _masks(hyp, ref, relation)
    if not rows:
        return [0] * len(bits)
    # when no two items compete (each hypothesis item meets one reference item, met by no other), the
    # matching under any function is the pairs that function holds for
    single = all(len(row) == 1 for row in rows) and len({row[0][0] for row in rows}) == len(rows)
    out = []
    for bit in bits:
        if bit == EQUAL:
            out.append(len(hyp & ref))
        elif single:
            out.append(sum(1 for row in rows if row[0][1] & bit))
        else:
            adjacency = [[j for j, m in row if m & bit] for row in rows]
            out.append(maximum_matching(adjacency))
    return out
