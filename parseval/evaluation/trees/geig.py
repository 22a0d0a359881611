"""The ``geig1991`` preset: GEIG as Black et al. (1991) defined it.

Unlabelled. Both trees are reduced before comparison:

1. *Erasure* (:class:`ErasureTable`, one per tag set): auxiliaries, negation
   *not*/*n't*, pre-infinitival *to*, null elements, possessive endings and
   word-external punctuation lose their word and the preterminal above it.
   A word position erased in *either* tree is erased in both, so that the
   two reduced trees always cover the same words. A single-word adverb left
   between an erased auxiliary and the next verb phrase joins that phrase.
2. Optional rewrite rules (the flattening rule language of
   :mod:`parseval.evaluation.trees.flatten`), applied to the labelled trees.
3. *Reduction*: brackets around a single constituent, a single word or
   nothing are erased, innermost first.

Then per sentence: recall = |T∩C|/|T|, precision = |T∩C|/|C| (the whole
sentence bracket included), crossing = candidate brackets crossing some
standard bracket; over a corpus the *mean* of the per-sentence recall and
precision and the distribution of crossing counts. Ratios are fractions.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import BadSentence, Forest
from parseval.annotations.trees.tree import Tree
from parseval.evaluation.signature import make_signature

from .common import crosses, mean, pairs, prune, strip_function_tags
from .flatten import Rule, apply_rules_once


@dataclass(frozen=True)
class ErasureTable:
    """What counts as each erasable kind of word, for one tag set."""

    name: str = "penn"
    verbal_tags: frozenset = frozenset({"MD", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
    verb_phrase_labels: frozenset = frozenset({"VP"})
    adverb_tags: frozenset = frozenset({"RB", "RBR", "RBS"})
    adverb_phrase_labels: frozenset = frozenset({"ADVP"})
    negation_tags: frozenset = frozenset()
    negation_words: frozenset = frozenset({"not", "n't"})
    to_tags: frozenset = frozenset({"TO"})
    to_words: frozenset = frozenset({"to"})
    null_tags: frozenset = frozenset({"-NONE-"})
    possessive_tags: frozenset = frozenset({"POS"})
    possessive_words: frozenset = frozenset({"'s", "'"})
    punctuation_tags: frozenset = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-"})

    def as_dict(self) -> dict:
        return {k: (sorted(v) if isinstance(v, frozenset) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict, *, file: str | None = None) -> "ErasureTable":
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise InputError(f"unknown erasure table keys: {', '.join(sorted(unknown))}", file=file)
        values = {}
        for key, value in data.items():
            if key == "name":
                values[key] = str(value)
            elif not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError(f"erasure table key {key!r} needs a list of strings", file=file)
            else:
                values[key] = frozenset(value)
        return cls(**values)


PENN = ErasureTable()
# the tag set of the paper's erasure example (Black et al. 1991)
BLACK1991_EXAMPLE = ErasureTable(
    name="black1991-example",
    verbal_tags=frozenset({"VPAST", "V"}),
    verb_phrase_labels=frozenset({"VP"}),
    adverb_tags=frozenset({"ADV"}),
    adverb_phrase_labels=frozenset(),
    negation_tags=frozenset({"NEG"}),
    to_tags=frozenset({"X"}),
    null_tags=frozenset({"-NONE-"}),
    possessive_tags=frozenset(),
    possessive_words=frozenset(),
    punctuation_tags=frozenset({"FIN"}),
)
TABLES = {"penn": PENN, "black1991-example": BLACK1991_EXAMPLE}


def load_table(spec) -> ErasureTable:
    """A built-in table name or a JSON file whose keys are :class:`ErasureTable` fields."""
    if isinstance(spec, ErasureTable):
        return spec
    if spec in TABLES:
        return TABLES[spec]
    path = os.fspath(spec)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(f"erasure table is not valid JSON: {exc.msg}", file=path, line=exc.lineno) from None
    if not isinstance(data, dict):
        raise InputError("erasure table must be a JSON object", file=path)
    data.setdefault("name", os.path.basename(path))
    return ErasureTable.from_dict(data, file=path)


# -- step 1: erasure ------------------------------------------------------------
def _word_of(node: Tree) -> tuple[str, str] | None:
    """(tag, word) of a preterminal or bare word, else None."""
    if node.word is not None:
        return "", node.word
    if node.is_preterminal:
        return node.label, node.children[0].word
    return None


class _Marker:
    def __init__(self, table: ErasureTable) -> None:
        self.t = table

    def is_negation(self, tag: str, word: str) -> bool:
        t = self.t
        return tag in t.negation_tags or (
            word.lower() in t.negation_words and (tag in t.adverb_tags or tag == "" or not t.negation_tags)
        )

    def skippable(self, node: Tree) -> bool:
        """Adverbs and negation, which the auxiliary and *to* rules look past."""
        tw = _word_of(node)
        if tw is not None:
            tag, word = tw
            return tag in self.t.adverb_tags or self.is_negation(tag, word)
        return strip_function_tags(node.label) in self.t.adverb_phrase_labels

    def is_verbal(self, node: Tree) -> bool:
        tw = _word_of(node)
        if tw is not None:
            return tw[0] in self.t.verbal_tags
        return strip_function_tags(node.label) in self.t.verb_phrase_labels

    def single_word_adverb(self, node: Tree) -> bool:
        tw = _word_of(node)
        if tw is not None:
            return tw[0] in self.t.adverb_tags and not self.is_negation(*tw)
        return (
            strip_function_tags(node.label) in self.t.adverb_phrase_labels
            and len(node.children) == 1
            and _word_of(node.children[0]) is not None
        )


def erasures(tree: Tree, table: ErasureTable) -> tuple[set[int], list[tuple[Tree, Tree]]]:
    """Word positions to erase, and (adverb node, verb phrase) moves for stranded adverbs."""
    mk = _Marker(table)
    t = table
    erase: set[int] = set()
    moves: list[tuple[Tree, Tree]] = []
    pos_of: dict[int, int] = {}

    def number(node: Tree, pos: int) -> int:
        if _word_of(node) is not None:
            pos_of[id(node)] = pos
            return pos + 1
        for child in node.children:
            pos = number(child, pos)
        return pos

    number(tree, 0)

    def next_verbal(kids: list[Tree], i: int) -> int | None:
        j = i + 1
        while j < len(kids) and mk.skippable(kids[j]):
            j += 1
        if j < len(kids) and mk.is_verbal(kids[j]):
            return j
        return None

    def visit(node: Tree) -> None:
        kids = node.children
        for i, child in enumerate(kids):
            tw = _word_of(child)
            if tw is None:
                visit(child)
                continue
            tag, word = tw
            pos = pos_of[id(child)]
            if (
                tag in t.null_tags
                or tag in t.punctuation_tags
                or tag in t.possessive_tags
                or (not tag and word in t.possessive_words)
                or mk.is_negation(tag, word)
            ):
                erase.add(pos)
            elif tag in t.verbal_tags:
                j = next_verbal(kids, i)
                if j is not None:  # an auxiliary
                    erase.add(pos)
                    target = kids[j]
                    if _word_of(target) is None:
                        for k in range(i + 1, j):
                            if mk.single_word_adverb(kids[k]):
                                moves.append((kids[k], target))
            elif (tag in t.to_tags or (not tag and t.to_tags)) and word.lower() in t.to_words:
                if next_verbal(kids, i) is not None:
                    erase.add(pos)

    if _word_of(tree) is None:
        visit(tree)
    return erase, moves


def _apply_erasure(tree: Tree, erase: set[int], moves: list[tuple[Tree, Tree]]) -> Tree | None:
    """A copy of ``tree`` with the stranded adverbs moved and the erased words removed."""
    t = tree.copy()
    # locate the move nodes in the copy through their position in pre-order
    order = {id(n): k for k, n in enumerate(_preorder(tree))}
    copies = list(_preorder(t))
    # Erasure positions are numbered on the original word order: pick the erased word nodes
    # now, before a stranded adverb moves and shifts the positions after it.
    doomed: set[int] = set()
    pos = 0
    for node in copies:
        if _word_of(node) is not None:
            if pos in erase:
                doomed.add(id(node))
            pos += 1
    for adverb, target in moves:
        a, tgt = copies[order[id(adverb)]], copies[order[id(target)]]
        parent = _parent_of(t, a)
        if parent is not None:
            parent.children.remove(a)
            tgt.children.insert(sum(1 for c in tgt.children if c is not None and _before(c, a)), a)

    def strip(node: Tree) -> Tree | None:
        if _word_of(node) is not None:
            return None if id(node) in doomed else node
        kids = [k for k in (strip(c) for c in node.children) if k is not None]
        node.children = kids
        return node

    return strip(t)


def _preorder(node: Tree):
    yield node
    if node.word is None and not node.is_preterminal:
        for child in node.children:
            yield from _preorder(child)


def _parent_of(root: Tree, target: Tree) -> Tree | None:
    for node in _preorder(root):
        if node.word is None and any(c is target for c in node.children):
            return node
    return None


def _before(_child: Tree, _adverb: Tree) -> bool:
    return False  # adverbs always join at the front of the verb phrase


# -- step 3: reduction ----------------------------------------------------------
def reduce_brackets(tree: Tree) -> set[tuple[int, int]]:
    """Spans left after erasing brackets around one constituent, one word or nothing."""
    spans: set[tuple[int, int]] = set()

    def walk(node: Tree, start: int) -> tuple[int, int]:
        """Returns (end, number of surviving items directly here: word or bracket)."""
        if _word_of(node) is not None:
            return start + 1, 1
        end = start
        items = 0
        for child in node.children:
            end, n = walk(child, end)
            items += n
        if items == 0:
            return end, 0
        if items == 1:  # a single constituent or word: the bracket goes, its content stays
            return end, 1
        if type(node) is not Forest:  # several trees on one line: the line itself is no bracket
            spans.add((start, end))
        return end, 1

    walk(tree, 0)
    return spans


def reduced(tree: Tree, erase: set[int], moves, rules: list[Rule] | None = None) -> tuple[Tree | None, set]:
    t = _apply_erasure(tree, erase, moves)
    if t is None:
        return None, set()
    if rules:
        while True:
            before = t.to_penn()
            t = apply_rules_once(t, rules)
            if t.to_penn() == before:
                break
    return t, reduce_brackets(t)


def to_unlabelled(tree: Tree | None) -> str:
    """The reduced bracketing as text, e.g. ``((Miss Xydis) (was best) ...)``."""
    if tree is None:
        return ""

    def walk(node: Tree) -> tuple[str, int]:
        tw = _word_of(node)
        if tw is not None:
            return tw[1], 1
        parts = []
        for child in node.children:
            text, n = walk(child)
            if n:
                parts.append(text)
        if not parts:
            return "", 0
        if len(parts) == 1:
            return parts[0], 1
        return "(" + " ".join(parts) + ")", 1

    return walk(tree)[0]


# -- scoring --------------------------------------------------------------------
def geig_sentence(gold: Tree, test: Tree, table: ErasureTable = PENN, rules: list[Rule] | None = None) -> dict:
    ge, gm = erasures(gold, table)
    te, tm = erasures(test, table)
    erase = ge | te
    _, standard = reduced(gold, erase, gm, rules)
    _, candidate = reduced(test, erase, tm, rules)
    return geig_counts(standard, candidate)


def geig_counts(standard: set, candidate: set) -> dict:
    common = len(standard & candidate)
    crossing = sum(1 for s, e in candidate if any(crosses(a, b, s, e) for a, b in standard))
    return {
        "standard": len(standard),
        "candidate": len(candidate),
        "matched": common,
        # a sentence with no bracket on a side scores 1 on that side (nothing missed / nothing wrong)
        "recall": common / len(standard) if standard else 1.0,
        "precision": common / len(candidate) if candidate else 1.0,
        "crossing": crossing,
    }


def geig_summary(rows: list[dict]) -> dict:
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    distribution: dict[int, int] = {}
    for r in ok:
        distribution[r["crossing"]] = distribution.get(r["crossing"], 0) + 1
    return {
        "sentences": len(rows),
        "errors": len(rows) - len(ok),
        "mean_recall": mean([r["recall"] for r in ok]),
        "mean_precision": mean([r["precision"] for r in ok]),
        "mean_crossing": mean([r["crossing"] for r in ok]),
        "crossing_distribution": {str(k): distribution[k] for k in sorted(distribution)},
    }


def score_geig1991(
    gold_trees: list, test_trees: list, *, table="penn", rules: list[Rule] | None = None,
    on_error: str = "raise", rules_name: str | None = None, **where,
) -> dict:
    table = load_table(table)
    problems: list[dict] = []
    rows = []
    null = table.null_tags

    def words(t: Tree) -> list[str]:
        p = prune(t, null)
        return p.words() if p is not None else []

    def cleaned(trees: list) -> list:
        return [t if isinstance(t, BadSentence) else (prune(t, null) or Tree(t.label, [])) for t in trees]

    cleaned_g = cleaned(gold_trees)
    cleaned_t = cleaned(test_trees)
    for i, g, t, error in pairs(cleaned_g, cleaned_t, words=words, on_error=on_error, problems=problems, **where):
        if error:
            rows.append({"index": i + 1, "status": "error", "message": error})
            continue
        rows.append({"index": i + 1, "status": "ok", **geig_sentence(g, t, table, rules)})
    summary = geig_summary(rows)
    if problems:
        summary["problems"] = problems
    return {
        "metric": "geig1991",
        "signature": make_signature(
            "geig1991", table=table.name,
            rules=rules_name or (f"{len(rules)}-rules" if rules else "none"), errors=on_error,
        ),
        "sentences": rows,
        "summary": summary,
    }


__all__ = [
    "ErasureTable", "PENN", "BLACK1991_EXAMPLE", "load_table", "erasures", "reduced", "reduce_brackets",
    "to_unlabelled", "geig_sentence", "geig_counts", "geig_summary", "score_geig1991", "Forest",
]
