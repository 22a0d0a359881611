"""Dependency consensus: reparsing after Sagae and Lavie (2006).

Per sentence, every run votes with its weight for each of its arcs
(head, dependent); the consensus tree is the maximum spanning arborescence
of the voted arcs rooted at the artificial node 0 (Chu-Liu-Edmonds, from
networkx), under the constraint of Universal Dependencies that exactly one
word depends on the root: every arc from 0 is made cheaper by more than the
whole weight of the graph, so no tree with two root arcs can outweigh a tree
with one (and the union of well-formed runs always holds a tree with one).
Each word's label is the weighted vote among the runs that chose its head;
LEMMA, UPOS, XPOS and FEATS are voted word by word among all the runs.

Runs must share the sentence's tokenisation (the corpus's words): a raw-text
run is aligned to the corpus tokens first or left out (``docs/consensus.md``).
A word's agreement is the weight of its chosen arc.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import networkx as nx

from parseval.annotations.conllu import DepSentence, Word
from parseval.annotations.errors import InputError

from .votes import tally, winner

_COLUMNS = ("lemma", "upos", "xpos", "feats")
_TIE = 1e-7


@dataclass
class DepConsensus:
    sentence: DepSentence
    agreement: list[float] = field(default_factory=list)  # one per word: the weight of its arc


def _check_tokens(reference: DepSentence, runs: Sequence[DepSentence | None]) -> None:
    forms = [w.form for w in reference.words]
    for n, s in enumerate(runs, 1):
        if s is not None and [w.form for w in s.words] != forms:
            raise InputError(f"run {n} does not have the sentence's {len(forms)} tokens: combining needs "
                             f"every run in the corpus tokenisation", file=s.file, line=s.line,
                             sentence=reference.name)


def _spanning_tree(n: int, arcs: dict[tuple[int, int], float], first: dict[tuple[int, int], int],
                   runs: int) -> dict[int, int]:
    """The single-root maximum spanning arborescence over words 1..n: ``{dependent: head}``.

    ``first[arc]`` is the index of the first run that proposed the arc: a bonus far below any
    vote (1e-6 of the smallest weight step) makes equal trees go to the earlier runs' arcs, as
    every other vote here does, instead of to the graph library's order.
    """
    penalty = sum(arcs.values()) + 1.0
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n + 1))
    for (head, dep), weight in arcs.items():
        weight += _TIE * (runs - first[(head, dep)]) / (runs * max(n, 1))
        graph.add_edge(head, dep, weight=weight - penalty if head == 0 else weight)
    tree = nx.maximum_spanning_arborescence(graph, attr="weight", preserve_attrs=False)
    return {dep: head for head, dep in tree.edges}


def combine_sentence(reference: DepSentence, runs: Sequence[DepSentence | None],
                     weights: Sequence[float]) -> DepConsensus:
    """Combine the runs' parses of ``reference`` (its words and comments); ``None`` for a missing run."""
    _check_tokens(reference, runs)
    present = [(w, s) for w, s in zip(weights, runs) if s is not None]
    n = len(reference.words)
    arcs = tally((w, ((word.head, word.id) for word in s.words if word.head is not None)) for w, s in present)
    if n and not any(head == 0 for head, _ in arcs):
        raise InputError("no run attaches a word of this sentence to the root", sentence=reference.name)
    first: dict[tuple[int, int], int] = {}
    for k, (_, s) in enumerate(present):
        for word in s.words:
            first.setdefault((word.head, word.id), k)
    heads = _spanning_tree(n, arcs, first, len(present)) if n else {}
    if len(heads) != n:
        raise InputError("the runs' arcs do not connect every word of this sentence", sentence=reference.name)
    words, agreement = [], []
    for i, word in enumerate(reference.words):
        head = heads[word.id]
        labels = tally((w, [s.words[i].deprel]) for w, s in present if s.words[i].head == head)
        columns = {c: winner(tally((w, [getattr(s.words[i], c)]) for w, s in present))[0] for c in _COLUMNS}
        words.append(Word(id=word.id, form=word.form, head=head, deprel=winner(labels)[0], **columns))
        agreement.append(arcs[(head, word.id)])
    out = DepSentence(words=words, comments=list(reference.comments), extra=list(reference.extra),
                      index=reference.index)
    return DepConsensus(out, agreement)
