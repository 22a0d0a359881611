"""The six EASY constituents (GN, GA, GP, GR, NV, PV) from a UD tree and its parts of speech.

EASY groups are flat, contiguous and never nested: a *kernel* (a head and the
words before it that depend on it) rather than a full phrase. So a group is
grown from its head leftwards over its own light dependents, never over a
word another group has claimed; what follows the head (complements,
relative clauses, post-nominal adjectives) forms groups of its own. The
order of the passes is the priority: verbs take their clitics first, then
nouns take their determiners and pre-nominal adjectives, then what is left
of the adjectives and adverbs forms GA and GR. See docs/conversion/ud-to-easy.md.
"""
from __future__ import annotations

from dataclasses import dataclass

from .udtree import NEGATION_NE, NOMINAL, PV_PREPOSITIONS, UdTree

# Relations of a noun's dependents that a GN/GP kernel takes in (when they precede the noun) ...
KERNEL_TOP = frozenset({"det", "nummod", "amod", "case", "fixed", "flat", "compound"})
# ... and the relations allowed further down inside such a dependent (*très* in *un très grand ami*).
KERNEL_DEEP = frozenset({"det", "advmod", "cc", "conj", "fixed", "flat", "amod", "nummod", "case", "compound"})
# Dependents that follow their head and still belong to its group (multiword names and expressions).
KERNEL_RIGHT = frozenset({"fixed", "flat", "compound"})
# Relative and interrogative words that EASY brackets as a prepositional group on their own.
GP_PRONOUNS = frozenset({"dont", "où"})
QUOTES = frozenset({'"', "«", "»", "“", "”"})
MONTHS = frozenset("janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split())
TITLES = frozenset({"m", "m.", "mm", "mm.", "mme", "mmes", "mlle", "mlles", "dr", "me", "mgr", "monsieur", "madame"})
DAYS = frozenset("lundi mardi mercredi jeudi vendredi samedi dimanche".split())


@dataclass(frozen=True)
class TokenGroup:
    """A group over tokens ``[start, end)``; ``head`` is the token relations point at."""

    type: str
    start: int
    end: int
    head: int


def _path_ok(tree: UdTree, k: int, head: int, top: frozenset) -> bool:
    """Whether ``k`` hangs from ``head`` by a ``top`` relation followed only by ``KERNEL_DEEP`` ones."""
    seen = 0
    while True:
        t = tree[k]
        if t.head is None or seen > len(tree):
            return False
        if t.head == head:
            return t.rel in top or t.deprel in top
        if t.rel not in KERNEL_DEEP:
            return False
        k = t.head
        seen += 1


def _grow(tree: UdTree, head: int, taken: list, top: frozenset) -> tuple[int, int]:
    start = head
    while start > 0 and taken[start - 1] is None:
        k = start - 1
        if tree[k].rel == "case" and tree[k].head == head:
            start = k  # a preposition opens its group: nothing before it belongs
            while start > 0 and taken[start - 1] is None and tree[start - 1].head == k \
                    and tree[start - 1].rel == "fixed":
                start -= 1
            break
        if tree[k].low in QUOTES and k > 0 and taken[k - 1] is None and _left_ok(tree, k - 1, head, top):
            start = k - 1  # a quotation mark inside the kernel: *le " Taylorland*
        elif _left_ok(tree, k, head, top):
            start = k
        else:
            break
    end = head + 1
    while end < len(tree) and taken[end] is None and (_path_ok(tree, end, head, KERNEL_RIGHT)
                                                      or _date_part(tree, end, head)
                                                      or _titled_name(tree, end, head)):
        end += 1
    return start, end


def _left_ok(tree: UdTree, k: int, head: int, top: frozenset) -> bool:
    t = tree[k]
    if t.upos == "NUM" and t.head == head:
        return True  # a cardinal before its noun, whatever the parser called the relation
    return _path_ok(tree, k, head, top)


def _titled_name(tree: UdTree, k: int, head: int) -> bool:
    """*Mme Véronique Neiertz*: the name after a title belongs to the title's group, however attached."""
    return tree[head].low in TITLES and tree[k].upos == "PROPN" and all(
        tree[j].upos == "PROPN" for j in range(head + 1, k + 1))


def _date_part(tree: UdTree, k: int, head: int) -> bool:
    """*mardi 7 janvier*, *le 10 janvier 1992*: a number or a month right after a day or a number."""
    t = tree[k]
    prev = tree[k - 1]
    if not (t.upos == "NUM" or t.low in MONTHS):
        return False
    if not (prev.upos == "NUM" or prev.low in MONTHS or prev.low in DAYS):
        return False
    return t.head is not None and (t.head == head or t.head == k - 1 or tree[t.head].head == head)


def _pv_preposition(tree: UdTree, v: int) -> int | None:
    """The preposition (mark or case) that introduces verb ``v`` as a PV, if any."""
    for c in tree.kids(v, "mark", "case"):
        if c.i < v and c.upos == "ADP" and (c.low in PV_PREPOSITIONS or c.low.split()[-1:] in (["de"], ["d'"], ["à"])):
            return c.i
    return None


def _verbal(tree: UdTree, taken: list, out: list) -> None:
    n = len(tree)
    for t in tree.tokens:
        if not t.is_verbal or taken[t.i] is not None:
            continue
        v = t.i
        prep = _pv_preposition(tree, v)
        if prep is not None and all(taken[k] is None and (tree[k].head == v or tree.is_clitic(k))
                                    for k in range(prep + 1, v)):
            start, kind = prep, "PV"
        else:
            start, kind = v, "NV"
            while start > 0 and taken[start - 1] is None and tree.is_clitic(start - 1):
                start -= 1
        end = v + 1
        while end < n and taken[end] is None and (
                (tree[end].low.startswith("-") and tree[end].upos == "PRON")
                or (tree[end].head == v and tree[end].rel == "fixed")):
            end += 1
        _claim(taken, out, TokenGroup(kind, start, end, v))


def _is_nominal_head(tree: UdTree, i: int) -> bool:
    t = tree[i]
    if t.upos in NOMINAL:
        if t.upos == "NUM" and t.rel == "nummod":
            return False
        return not (t.rel in ("flat", "fixed", "compound") and t.head is not None and t.head < i)
    if t.upos in ("ADJ", "DET"):
        # an adjective or determiner used as a noun: *la verte*, *Toutes racontaient*
        return bool(tree.kids(i, "det")) or t.rel in ("nsubj", "obj", "obl", "nmod", "appos") and \
            not tree.kids(i, "cop")
    return False


def _nominal(tree: UdTree, taken: list, out: list) -> None:
    spans = []
    for t in tree.tokens:
        if taken[t.i] is None and (_is_nominal_head(tree, t.i) or t.low in GP_PRONOUNS):
            top = KERNEL_TOP | ({"advmod"} if t.upos == "ADJ" else set())
            spans.append((t.i, _grow(tree, t.i, taken, top)))
    # the widest kernels first, so that a word inside another's kernel does not start its own
    for head, (start, end) in sorted(spans, key=lambda s: -(s[1][1] - s[1][0])):
        if taken[head] is not None:
            continue
        while taken[start] is not None:
            start += 1
        while taken[end - 1] is not None:
            end -= 1
        if any(taken[k] is not None for k in range(start, end)):
            start = end = head
            end += 1
        has_case = any(tree[k].upos == "ADP" or tree[k].rel == "case" for k in range(start, head))
        kind = "GP" if has_case or tree[head].low in GP_PRONOUNS else "GN"
        _claim(taken, out, TokenGroup(kind, start, end, head))


def _simple(tree: UdTree, taken: list, out: list) -> None:
    for t in tree.tokens:
        if taken[t.i] is not None or t.low in NEGATION_NE:
            continue
        if t.upos == "ADJ":
            kind = "GA"
        elif t.upos in ("ADV", "INTJ"):
            kind = "GR"
        else:
            continue
        _claim(taken, out, TokenGroup(kind, *_grow(tree, t.i, taken, frozenset({"fixed"})), t.i))


def _claim(taken: list, out: list, g: TokenGroup) -> None:
    for k in range(g.start, g.end):
        taken[k] = g
    out.append(g)


def build_groups(tree: UdTree) -> list[TokenGroup]:
    """The EASY groups of a sentence in token space, in text order."""
    taken: list[TokenGroup | None] = [None] * len(tree)
    out: list[TokenGroup] = []
    _verbal(tree, taken, out)
    _nominal(tree, taken, out)
    _simple(tree, taken, out)
    return sorted(out, key=lambda g: g.start)
