"""Leaf-ancestor metric (Sampson & Babarczy 2003).

A word's *lineage* is the list of labels of the phrasal nodes from its parent
up to the root (preterminal tags excluded), leaf end first, with ``[`` just
before the label of the highest node that begins with the word and ``]``
just after the label of the highest node that ends with it. Two lineages are
compared by ``1 - d(c, g) / (len(c) + len(g))`` where ``d`` is an edit
distance with insertion and deletion cost 1 and a substitution cost table
(:class:`Costs`) with values in [0, 2].

* ``strict``: any different symbol costs 2, so ``d`` is the insert/delete
  (Indel) distance, computed with :func:`rapidfuzz.distance.Indel.distance`
  on sequences of symbol ids.
* ``sampson2003``: two different labels that share their first character
  cost 0.5, anything else that differs costs 2 (boundary markers are
  symbols like any other); computed exactly by dynamic programming.
* a cost file (:func:`load_costs`), format::

      # comment
      default 2          # cost of two different symbols not listed below
      first-char 0.5     # optional: different labels sharing the first character
      NP N1 0.25         # a symmetric pair cost (labels or [ ])

Scores are fractions in [0, 1].
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from rapidfuzz.distance import Indel

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import BadSentence, Forest
from parseval.annotations.trees.tree import Tree
from parseval.evaluation.signature import make_signature

from .common import _strip_cached, constituents, mean, pairs

OPEN, CLOSE = "[", "]"
DEFAULT_DROP_TAGS = frozenset({"-NONE-"})


@dataclass(frozen=True, eq=False)
class Costs:
    """Substitution costs between two different symbols."""

    name: str
    default: float = 2.0
    first_char: float | None = None
    pairs: dict = field(default_factory=dict)  # frozenset({a, b}) -> cost

    @property
    def is_indel(self) -> bool:
        return self.default >= 2.0 and self.first_char is None and not self.pairs

    def sub(self, a: str, b: str) -> float:
        if a == b:
            return 0.0
        if self.pairs:
            cost = self.pairs.get(frozenset((a, b)))
            if cost is not None:
                return cost
        if self.first_char is not None and a and b and a[0] == b[0] and a not in (OPEN, CLOSE) and b not in (OPEN, CLOSE):
            return self.first_char
        return self.default


STRICT = Costs("strict")
SAMPSON2003 = Costs("sampson2003", first_char=0.5)
BUILTIN_COSTS = {"strict": STRICT, "sampson2003": SAMPSON2003}


def parse_costs(text: str, *, file: str | None = None, name: str | None = None) -> Costs:
    default, first, table = 2.0, None, {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        try:
            if line[0] == "default" and len(line) == 2:
                default = float(line[1])
                value = default
            elif line[0] == "first-char" and len(line) == 2:
                first = float(line[1])
                value = first
            elif len(line) == 3:
                value = float(line[2])
                table[frozenset((line[0], line[1]))] = value
            else:
                raise ValueError
        except ValueError:
            raise InputError(
                "expected 'default COST', 'first-char COST' or 'LABEL LABEL COST'", file=file, line=lineno
            ) from None
        if not 0.0 <= value <= 2.0:
            raise InputError(f"cost {value} outside [0, 2]", file=file, line=lineno)
    return Costs(name or (os.path.basename(file) if file else "custom"), default, first, table)


def load_costs(spec) -> Costs:
    """``"strict"``, ``"sampson2003"`` or the path of a cost file."""
    if isinstance(spec, Costs):
        return spec
    if spec in BUILTIN_COSTS:
        return BUILTIN_COSTS[spec]
    with open(spec, encoding="utf-8") as handle:
        return parse_costs(handle.read(), file=os.fspath(spec))


class Analysis:
    """One tree seen by the metric: its words, their lineages and its constituents."""

    __slots__ = ("words", "lineages", "constituents")

    def __init__(self, words: list[str], lineages: list[list[str]], constituents: list[tuple[str, int, int]]):
        self.words = words
        self.lineages = lineages
        self.constituents = constituents


def analyse(tree: Tree, *, drop_tags=frozenset(), strip_tags: bool = False) -> Analysis:
    """Words, lineages and constituents in one pass, without copying the tree.

    Preterminals tagged with ``drop_tags`` are ignored (a node left with no word
    then has no span and is no constituent); with ``strip_tags`` phrasal labels
    lose their function tags.
    """
    found: list[tuple[str, int, tuple]] = []  # (word, position, ancestors root first)
    cons: list[tuple[str, int, int]] = []

    def walk(node: Tree, ancestors: list[list], pos: int) -> int:
        if node.word is not None:
            found.append((node.word, pos, tuple(ancestors)))
            return pos + 1
        ch = node.children
        if len(ch) == 1 and ch[0].word is not None:  # preterminal: its tag is not in the lineage
            if node.label in drop_tags:
                return pos
            found.append((ch[0].word, pos, tuple(ancestors)))
            return pos + 1
        if type(node) is Forest:  # several trees on one line: not a node of the lineage
            for child in ch:
                pos = walk(child, ancestors, pos)
            return pos
        label = _strip_cached(node.label) if strip_tags else node.label
        entry = [label, pos, -1]
        ancestors.append(entry)
        start = pos
        for child in ch:
            pos = walk(child, ancestors, pos)
        ancestors.pop()
        entry[2] = pos
        if pos > start:
            cons.append((label, start, pos))
        return pos

    walk(tree, [], 0)
    return Analysis([w for w, _, _ in found], [_lineage(anc, i) for _, i, anc in found], cons)


def lineages(tree: Tree) -> list[tuple[str, list[str]]]:
    """``(word, lineage)`` for every word of ``tree``, left to right."""
    a = analyse(tree)
    return list(zip(a.words, a.lineages))


def _lineage(ancestors: tuple, i: int) -> list[str]:
    """Labels from the parent (last ancestor) up to the root, with the boundary markers."""
    highest_begin = highest_end = -1
    for k, (_, s, e) in enumerate(ancestors):  # root first: the first hit is the highest
        if s == i:
            highest_begin = k
            break
    for k, (_, s, e) in enumerate(ancestors):
        if e == i + 1:
            highest_end = k
            break
    out: list[str] = []
    for k in range(len(ancestors) - 1, -1, -1):
        if k == highest_begin:
            out.append(OPEN)
        out.append(ancestors[k][0])
        if k == highest_end:
            out.append(CLOSE)
    return out


def lineage_similarity(c: list[str], g: list[str], costs: Costs = SAMPSON2003) -> float:
    total = len(c) + len(g)
    if total == 0:
        return 1.0
    if c == g:
        return 1.0
    return 1.0 - lineage_distance(c, g, costs) / total


_ids: dict[str, int] = {}


def _encode(seq: list[str]) -> list[int]:
    ids = _ids
    return [ids.setdefault(s, len(ids)) for s in seq]


def _encode_class(seq: list[str]) -> list[int]:
    """Ids of the first-character classes: markers and the empty label are classes of their own."""
    ids = _ids
    out = []
    for s in seq:
        key = s if (not s or s in (OPEN, CLOSE)) else "\x00" + s[0]
        out.append(ids.setdefault(key, len(ids)))
    return out


_memo: dict = {}


def lineage_distance(c: list[str], g: list[str], costs: Costs = SAMPSON2003) -> float:
    if costs.is_indel:
        return float(Indel.distance(_encode(c), _encode(g)))
    key = (costs, tuple(c), tuple(g))
    hit = _memo.get(key)
    if hit is not None:
        return hit
    if not costs.pairs and costs.default >= 2.0 and costs.first_char is not None:
        # Exact shortcut. With these costs d = len(c) + len(g) - max(2 M + (2 - first_char) S) over
        # alignments with M exact matches and S first-character substitutions (a substitution at
        # cost >= 2 never beats a deletion plus an insertion). That maximum is at most
        # 2 * LCS(first-character classes) and at least 2 * LCS(symbols); when the two LCS are
        # equal, d is the Indel distance, which rapidfuzz computes.
        exact = Indel.distance(_encode(c), _encode(g))
        if exact == Indel.distance(_encode_class(c), _encode_class(g)):
            if len(_memo) > 200_000:
                _memo.clear()
            _memo[key] = float(exact)
            return float(exact)
    prev = _weighted(c, g, costs)
    if len(_memo) > 200_000:
        _memo.clear()
    _memo[key] = prev
    return prev


def _weighted(c: list[str], g: list[str], costs: Costs) -> float:
    """Exact weighted Levenshtein distance: insertion/deletion 1, substitution ``costs.sub``."""
    markers = (OPEN, CLOSE)
    simple = not costs.pairs  # only the default and first-character costs: inline them
    first, default = costs.first_char, costs.default
    g_first = [b[0] if b and b not in markers else None for b in g]
    prev = [float(j) for j in range(len(g) + 1)]
    for i, a in enumerate(c, 1):
        a_first = a[0] if a and a not in markers else None
        cur = [float(i)]
        left = float(i)
        for j, b in enumerate(g, 1):
            best = prev[j] + 1.0
            if left + 1.0 < best:
                best = left + 1.0
            if a == b:
                cost = 0.0
            elif simple:
                cost = first if (first is not None and a_first is not None and a_first == g_first[j - 1]) else default
            else:
                cost = costs.sub(a, b)
            if cost < 2.0 or prev[j - 1] + cost < best:  # a cost of 2 never beats a deletion plus an insertion
                diag = prev[j - 1] + cost
                if diag < best:
                    best = diag
            cur.append(best)
            left = best
        prev = cur
    return prev[-1]


def geig_f(gold: Tree, test: Tree, *, labelled: bool) -> float:
    """F of every phrasal node as a bracket (root included, multiset), labelled or not."""
    return _f(constituents(gold, labelled=labelled), constituents(test, labelled=labelled))


def _f(g: list, t: list) -> float:
    pool: dict = {}
    for b in g:
        pool[b] = pool.get(b, 0) + 1
    match = 0
    for b in t:
        if pool.get(b, 0) > 0:
            pool[b] -= 1
            match += 1
    if not g or not t or not match:
        return 0.0
    p, r = match / len(t), match / len(g)
    return 2 * p * r / (p + r)


def la_sentence(gold: Tree | Analysis, test: Tree | Analysis, costs: Costs = SAMPSON2003) -> dict:
    """LA score of one pair (same words), per word, with the GEIG F figures."""
    g = gold if isinstance(gold, Analysis) else analyse(gold)
    t = test if isinstance(test, Analysis) else analyse(test)
    words = []
    for word, gl, tl in zip(g.words, g.lineages, t.lineages):
        score = 1.0 if gl == tl else lineage_similarity(tl, gl, costs)
        words.append({"word": word, "score": score, "gold": " ".join(gl), "test": " ".join(tl)})
    gc, tc = g.constituents, t.constituents
    return {
        "score": mean([w["score"] for w in words]) if words else 0.0,
        "words": words,
        "geig_unlabelled_f": _f([(s, e) for _, s, e in gc], [(s, e) for _, s, e in tc]),
        "geig_labelled_f": _f(gc, tc),
    }


def score_leaf_ancestor(
    gold_trees: list, test_trees: list, *, costs="sampson2003", on_error: str = "raise",
    drop_tags=DEFAULT_DROP_TAGS, strip_tags: bool = True, **where,
) -> dict:
    """Per-word and per-sentence LA scores.

    Before scoring, preterminals tagged with ``drop_tags`` (null elements) are
    removed with the nodes left empty, and, with ``strip_tags``, function tags
    are cut from phrasal labels (``NP-SBJ`` -> ``NP``), as evalb does.
    """
    costs = load_costs(costs)
    drop = frozenset(drop_tags)
    problems: list[dict] = []
    rows = []
    all_words: list[float] = []
    sent_scores: list[float] = []

    def prepared(trees: list) -> list:
        return [t if isinstance(t, BadSentence) else analyse(t, drop_tags=drop, strip_tags=strip_tags) for t in trees]

    for i, g, t, error in pairs(prepared(gold_trees), prepared(test_trees), words=lambda a: a.words,
                                on_error=on_error, problems=problems, **where):
        if error:
            rows.append({"index": i + 1, "status": "error", "message": error})
            continue
        row = {"index": i + 1, "status": "ok", **la_sentence(g, t, costs)}
        all_words.extend(w["score"] for w in row["words"])
        if row["words"]:
            sent_scores.append(row["score"])
        rows.append(row)
    ok = [r for r in rows if r["status"] == "ok"]
    summary = {
        "sentences": len(rows),
        "errors": len(rows) - len(ok),
        "words": len(all_words),
        "word_mean": mean(all_words),
        "sentence_mean": mean(sent_scores),
        "geig_unlabelled_f_mean": mean([r["geig_unlabelled_f"] for r in ok]),
        "geig_labelled_f_mean": mean([r["geig_labelled_f"] for r in ok]),
    }
    if problems:
        summary["problems"] = problems
    return {
        "metric": "leaf-ancestor",
        "signature": make_signature(
            "leaf-ancestor", costs=costs.name, drop=" ".join(sorted(drop)) or None, strip_tags=strip_tags, errors=on_error
        ),
        "sentences": rows,
        "summary": summary,
    }
