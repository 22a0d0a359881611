"""How many items one sentence of a run may carry: the bound that refuses count-encoding runs.

Scores are sums over the scored sentences. A run whose sentences carry 1, 2, 4, ... 2^j items of
one type (EASY relations or groups, brackets) reads back from its own counts which of them are
scored: the attack of docs/threat-model.md ("counts"). Real annotation is nowhere near that: the
number of groups, relations and brackets of a sentence grows with its words, at rates that gold
and real parsers share. So validation refuses, for every sentence of a run alike (it never reads
the gold), a sentence with more items than :func:`bound` allows for its number of words, with the
file, line and sentence.

The bound is ``PER_WORD * words + SLACK``. Its figures are measured, not guessed: the gold of every
corpus in data/ and the runs of real parsers (spaCy's French pipelines, as the demo makes them) use
at most the share of it that ``benchmarks/plausibility.py`` prints (docs/threat-model.md gives the
figures). Gold is not checked against it: the bound is about runs.
"""
from __future__ import annotations

from parseval.annotations.errors import Problem, N_

# items of one kind a sentence of ``words`` words may carry: PER_WORD[kind] * words + SLACK[kind]
# EASY groups need no bound: they are disjoint and non-empty (the reader refuses anything else), so a
# sentence never has more groups than forms. Dependency runs have one head per word.
PER_WORD = {"relations": 3, "relations_of_one_type": 1, "brackets": 3}
SLACK = {"relations": 8, "relations_of_one_type": 4, "brackets": 8}
LABELS = {"relations": "relations", "relations_of_one_type": "relations of one type", "brackets": "brackets"}


def bound(kind: str, words: int) -> int:
    return PER_WORD[kind] * words + SLACK[kind]


def describe() -> str:
    return "; ".join(f"{LABELS[k]} <= {PER_WORD[k]} x words + {SLACK[k]}" for k in PER_WORD)


def easy_counts(relation_types) -> dict[str, int]:
    """The counts an EASY sentence is bounded on: its relations, and those of its commonest type."""
    per_type: dict[str, int] = {}
    for t in relation_types:
        per_type[t] = per_type.get(t, 0) + 1
    return {"relations": sum(per_type.values()), "relations_of_one_type": max(per_type.values(), default=0)}


def tree_counts(tree) -> dict[str, int]:
    """The brackets of a tree that evalb-style metrics count: its nodes above the part-of-speech tags."""
    return {"brackets": sum(1 for node in tree.subtrees() if not node.is_preterminal)}


def excess(words: int, counts: dict[str, int]) -> str | None:
    """Why a sentence of ``words`` words with these item ``counts`` is implausible, or ``None``."""
    for kind, value in counts.items():
        limit = bound(kind, words)
        if value > limit:
            per = f"{PER_WORD[kind]} per word + {SLACK[kind]}"
            return (f"{value} {LABELS[kind]} in a sentence of {words} words: more than any real annotation "
                    f"(at most {per}, here {limit}); such a run could read the hidden test set from its own counts")
    return None


def problems(words: int, counts: dict[str, int], *, file: str | None, line: int | None, sentence: str | None,
             element: str | None = None) -> list[Problem]:
    why = excess(words, counts)
    return [] if why is None else [Problem(N_('implausible sentence: %(why)s') % {"why": why}, file=file, line=line,
                                           sentence=sentence, element=element)]
