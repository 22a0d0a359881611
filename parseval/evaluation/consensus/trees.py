"""Constituency consensus: constituent voting after Henderson and Brill (1999).

Per sentence, every run votes with its weight for each of its labelled
phrasal spans (label, start, end; a unary chain of one label over itself
counts once per level). The spans kept are those with more than the span
threshold of the weight (default: **more than half**). Above one half two
kept spans can never cross, since each would need the votes of more than
half the weight and some run would then hold both, which no tree does.
Below one half (a threshold tuned for F trades precision for recall,
Henderson and Brill 1999) the candidates are checked for crossing, most
agreed first (the first proposed on a tie): a span crossing one already kept
is left out. The kept spans are therefore a tree; spans over the same words (a
unary chain) are stacked in the order the runs stack them (mean depth in the
chain). When no span over the whole sentence is kept, the root takes the
label the runs' roots vote for, so that the result is always one tree. Each
word's tag is the weighted vote of the runs' tags. A span's agreement is its
weight; a word's, that of its tag.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from parseval.annotations.errors import InputError
from parseval.annotations.trees.tree import Tree

from .votes import kept, tally, winner

MAJORITY = 0.5


@dataclass
class TreeConsensus:
    tree: Tree
    spans: list[tuple[str, int, int, float]] = field(default_factory=list)  # kept spans with their agreement
    tags: list[tuple[str, float]] = field(default_factory=list)  # one per word


def _ballot(tree: Tree) -> tuple[list[tuple[str, int, int, int]], dict]:
    """A tree's spans as ``(label, start, end, level)`` and each one's place in its chain over the same words."""
    seen: dict[tuple[str, int, int], int] = defaultdict(int)
    chain: dict[tuple[int, int], int] = defaultdict(int)
    items, depth = [], {}
    for label, start, end in tree.spans(phrasal_only=True):  # same-span nodes come top-down
        key = (label, start, end, seen[(label, start, end)])
        seen[(label, start, end)] += 1
        depth[key] = chain[(start, end)]
        chain[(start, end)] += 1
        items.append(key)
    return items, depth


def _uncrossed(chosen: dict) -> dict:
    """The candidates, most agreed first (the first proposed on a tie), each kept unless it crosses one kept."""
    items = list(chosen.items())
    spans: list[tuple[int, int]] = []
    out = set()
    for i in sorted(range(len(items)), key=lambda i: -items[i][1]):  # stable: the first proposed on a tie
        (_label, start, end, _level), _weight = items[i]
        if any(s < start < e < end or start < s < end < e for s, e in spans):
            continue
        spans.append((start, end))
        out.add(i)
    return {key: weight for i, (key, weight) in enumerate(items) if i in out}


@dataclass
class Ballots:
    """What the runs say about one sentence, read once (a tuning combines the same trees many times)."""

    words: list[str]
    ballots: list[tuple[list, dict]]
    tagged: list[list]
    roots: list[str]
    tallied: tuple | None = None  # (weights, span votes, tags, root label) of the last weights seen

    def votes(self, weights: Sequence[float]) -> tuple[dict, list, str]:
        """The span votes, the voted tags and the voted root label under ``weights`` (the last ones kept)."""
        weights = tuple(weights)
        if self.tallied is None or self.tallied[0] != weights:
            votes = tally((w, items) for w, (items, _) in zip(weights, self.ballots))
            tags = [winner(tally((w, [tw[i][1]]) for w, tw in zip(weights, self.tagged))) for i in range(len(self.words))]
            root = winner(tally((w, [label]) for w, label in zip(weights, self.roots)))[0]
            self.tallied = (weights, votes, tags, root)
        return self.tallied[1:]


def ballots_of(runs: Sequence[Tree]) -> Ballots:
    words = runs[0].words()
    for n, tree in enumerate(runs[1:], 2):
        if tree.words() != words:
            raise InputError(f"run {n} does not have the words of run 1 for this sentence: "
                             f"constituent voting needs every run on the same words")
    return Ballots(words, [_ballot(t) for t in runs], [t.tagged_words() for t in runs], [t.label for t in runs])


def combine_sentence(runs: Sequence[Tree] | Ballots, weights: Sequence[float], *,
                     threshold: float = MAJORITY) -> TreeConsensus:
    """Combine the runs' trees of one sentence (same words in every run, or their :func:`ballots_of`); spans
    kept above ``threshold``."""
    read = runs if isinstance(runs, Ballots) else ballots_of(runs)
    words, ballots = read.words, read.ballots
    n = len(words)
    votes, tags, root_label = read.votes(weights)
    chosen = kept(votes, threshold)
    if threshold < MAJORITY:
        chosen = _uncrossed(chosen)
    mean_depth = {}
    for key, weight in chosen.items():
        mean_depth[key] = sum(w * depth[key] for w, (_, depth) in zip(weights, ballots) if key in depth) / weight
    order = sorted(chosen, key=lambda k: (k[1], -k[2], mean_depth[k]))
    spans = [(label, start, end, chosen[(label, start, end, level)]) for label, start, end, level in order]

    if order and order[0][1] == 0 and order[0][2] == n:
        root = Tree(order[0][0])
        order = order[1:]
    else:
        root = Tree(root_label)
    stack: list[tuple[Tree, int, int]] = [(root, 0, n)]
    next_word = 0

    def attach_words(until: int) -> None:
        nonlocal next_word
        while next_word < until:
            while stack[-1][2] <= next_word:
                stack.pop()
            tag = tags[next_word][0]
            leaf = Tree.leaf(words[next_word])
            stack[-1][0].children.append(Tree(tag, [leaf]) if tag else leaf)
            next_word += 1

    for label, start, end, _level in order:
        attach_words(start)
        while not (stack[-1][1] <= start and end <= stack[-1][2]):
            stack.pop()
        node = Tree(label)
        stack[-1][0].children.append(node)
        stack.append((node, start, end))
    attach_words(n)
    return TreeConsensus(root, spans, list(tags))
