"""One-to-one maximum matching between hypothesis and reference items.

Within a sentence and a type, the number of matches is the size of a maximum
bipartite matching (augmenting paths, Kuhn's algorithm: exact, and the sizes
are small). :func:`match_counts` computes it for several range functions at
once from one pass over the pairs.
"""
from __future__ import annotations

from .ranges import ALL_BITS, EQUAL, range_mask


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


def _relation_mask(h, r) -> int:
    mask = ALL_BITS
    for a, b in zip(h, r):
        mask &= range_mask(a, b)
        if not mask:
            return 0
    return mask


def match_counts(hyp, ref, bits: list[int], relation: bool) -> list[int]:
    """Maximum-matching sizes between the item sets ``hyp`` and ``ref``, one per bit in ``bits``."""
    if not hyp or not ref:
        return [0] * len(bits)
    if hyp == ref:
        return [len(hyp)] * len(bits)
    hyp_l = list(hyp)
    ref_l = list(ref)
    mask_of = _relation_mask if relation else range_mask
    rows = []
    union = 0
    for h in hyp_l:
        row = []
        for j, r in enumerate(ref_l):
            m = mask_of(h, r)
            if m:
                row.append((j, m))
                union |= m
        rows.append(row)
    out = []
    for bit in bits:
        if not union & bit:
            out.append(0)
            continue
        if bit == EQUAL:
            out.append(len(hyp & ref))
            continue
        adjacency = [[j for j, m in row if m & bit] for row in rows]
        used: set = set()
        conflict = False
        count = 0
        for adj in adjacency:
            if adj:
                count += 1
                if len(adj) > 1:
                    conflict = True
                    break
                if adj[0] in used:
                    conflict = True
                    break
                used.add(adj[0])
        out.append(maximum_matching(adjacency) if conflict else count)
    return out
