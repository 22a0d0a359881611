"""EASY consensus: groups, then relations, by weighted vote.

Per sentence:

1. **Groups.** Each run votes for its groups as (type, start, end). Groups
   whose agreement is above the group threshold are candidates; the chosen
   groups are the pairwise disjoint candidates of maximal total agreement
   (:func:`~parseval.evaluation.consensus.votes.heaviest_disjoint`), since EASY groups
   never overlap. With a threshold of one half or more, candidates can never
   overlap (two overlapping groups with more than half the weight each would
   need a run holding both), so the selection keeps them all.
2. **Relations.** Each run votes for its relations as (type, the range of
   each role), with its arguments resolved as the HYP mode resolves them: a
   group is its own range, a form the run's group containing it or itself,
   the null argument the empty range. Relations above the relation threshold
   are kept, and keep their argument ranges: a multi-form range that no chosen
   group equals becomes a group with the best-supported type at that span
   (:func:`_agreed_spans`), since HYP would read a form there as a one-form
   range. Arguments are then mapped onto the consensus: a range equal to a
   group points at that group; a one-form range at that form; a range that
   could not be written (below a threshold of one half only) at the chosen
   group sharing most forms with it (leftmost on a tie), or, sharing none, at
   its first form. The extra children (``s-o``, ``a-propager``) are taken by
   vote among the relation's supporters.
3. **The vote is made writable before it is scored or written.** Every kept
   relation is re-keyed by the ranges HYP will read from its written targets
   (a group its range; a form the chosen group covering it, or itself; the
   null argument the empty range), so a relation re-mapped in step 2 is
   re-mapped *in the vote*, and two kept relations falling on the same ranges
   are one relation with the larger agreement. :attr:`EasyConsensus.votes` is
   that vote: the written file read back in HYP has exactly its relations, at
   every threshold. From a threshold of one half up nothing is re-mapped, so
   it equals the plain vote.

Ids follow the corpus: forms as in the corpus, groups ``<sentence>G<k>`` in
text order, relations ``<sentence>R<k>`` in the order they were first
proposed (the order of the runs, then of each run's file).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from parseval.annotations.easy.model import Group, Relation, Sentence
from parseval.evaluation.easy.ranges import constituent_ranges

from .votes import heaviest_disjoint, kept, tally, winner

DEFAULT_GROUP_THRESHOLD = 0.5
DEFAULT_RELATION_THRESHOLD = 0.5


@dataclass
class EasyConsensus:
    """One combined sentence and the agreement of each of its groups and relations (by id)."""

    sentence: Sentence
    agreement: dict[str, float] = field(default_factory=dict)
    #: the writable relation vote, ``{relation_ranges key: agreement}``: what the written sentence holds in HYP
    votes: dict = field(default_factory=dict)


def relation_ranges(s: Sentence) -> dict:
    """A sentence's relations in range space, as HYP reads them: ``{key: relation}`` in file order.

    The key is ``(type, ((role, range), ...))`` with the roles in the order
    the relation writes them sorted by name, so that two runs writing the
    same relation in another role order vote together.
    """
    cover, _cons, group_range = constituent_ranges(s)
    position = {f.id: i for i, f in enumerate(s.forms)}
    items: dict = {}
    for r in s.relations:
        args = []
        for role, target in r.args.items():
            rng = group_range.get(target)
            if rng is None:
                p = position.get(target)
                rng = None if p is None else (cover[p] or (p, p + 1))
            args.append((role, rng))
        items.setdefault((r.type, tuple(sorted(args))), r)
    return items


def _target(rng, corpus: Sentence, chosen: list[Group]) -> str:
    if rng is None:
        return corpus.null_id
    start, end = rng
    for g in chosen:
        if g.start == start and g.end == end:
            return g.id
    if end - start == 1:
        return corpus.forms[start].id
    best, overlap = None, 0
    for g in chosen:
        shared = min(end, g.end) - max(start, g.start)
        if shared > overlap:
            best, overlap = g, shared
    return best.id if best is not None else corpus.forms[start].id


def _agreed_spans(chosen: list, kept_relations: dict, group_votes: dict) -> list:
    """Groups to add so that every kept relation's argument ranges survive writing.

    HYP reads a form argument as the group containing it, so a multi-form
    range is written faithfully only as a group of that exact span, and a
    one-form range only as a form that no longer group covers. A kept
    relation's multi-form range that no chosen group equals therefore becomes
    a group, typed by the group vote at that span (the best-supported type,
    the first proposed on a tie), even though no type won on its own.

    Ranges that cannot all be written (they overlap a chosen group, or each
    other) compete by the summed agreement of the kept relations using them
    (weighted interval scheduling again); a range left out falls back on
    the mapping in :func:`_target`. Above a threshold of one half for both
    votes, with the same weights for both, none is ever left out: a run
    supporting two overlapping ranges, or a range and an overlapping chosen
    group, would hold overlapping groups.
    """
    taken = [(start, end) for _, start, end in chosen]
    support: dict = {}
    for (_rtype, args), weight in kept_relations.items():
        for _role, rng in args:
            if rng is not None and rng not in taken:
                support[rng] = support.get(rng, 0.0) + weight
    free = [(start, end, weight, (start, end)) for (start, end), weight in support.items()
            if not any(start < e and s < end for s, e in taken)]
    added = []
    for start, end in heaviest_disjoint(free):
        if end - start < 2:
            continue  # a one-form range is written as its form: it only had to keep its place
        choice = winner({key: w for key, w in group_votes.items() if key[1] == start and key[2] == end})
        if choice is not None:
            added.append(choice[0])
    return added


def combine_sentence(corpus: Sentence, runs: Sequence[Sentence | None], weights: Sequence[float], *,
                     relation_weights: Sequence[float] | None = None,
                     group_threshold: float = DEFAULT_GROUP_THRESHOLD,
                     relation_threshold: float = DEFAULT_RELATION_THRESHOLD,
                     ranges: Sequence[dict | None] | None = None) -> EasyConsensus:
    """Combine the runs' analyses of ``corpus`` (its forms); ``None`` for a run that lacks the sentence.

    ``weights`` are normalised (they sum to 1); a run without the sentence
    keeps its share of the total, so an item's agreement is always out of
    every run. ``relation_weights`` (default: ``weights``) are the weights
    of the relation votes: a run that submitted no relation layer at all has
    weight 0 there, since a layer not submitted is no vote against every
    relation (``files.combine_easy_files`` does this per layer). ``ranges``:
    each run's :func:`relation_ranges` of its sentence, when the caller has
    them already (a tuning combines the same sentences many times).
    """
    sid = corpus.id
    present = [(w, s) for w, s in zip(weights, runs) if s is not None]
    if ranges is None:
        ranges = [None] * len(runs)
    relation_present = [(w, s, r) for w, s, r in zip(relation_weights or weights, runs, ranges)
                        if s is not None and (relation_weights is None or w > 0)]
    group_votes = tally((w, ((g.type, g.start, g.end) for g in s.groups)) for w, s in present)
    candidates = kept(group_votes, group_threshold)
    keys = heaviest_disjoint((start, end, weight, (gtype, start, end))
                             for (gtype, start, end), weight in candidates.items())
    proposals = [(w, relation_ranges(s) if r is None else r) for w, s, r in relation_present]
    relation_votes = tally((w, items.keys()) for w, items in proposals)
    kept_relations = kept(relation_votes, relation_threshold)
    keys += _agreed_spans(keys, kept_relations, group_votes)
    keys.sort(key=lambda k: k[1])
    out = Sentence(id=sid, forms=list(corpus.forms))
    agreement: dict[str, float] = {}
    for k, (gtype, start, end) in enumerate(keys, 1):
        g = Group(id=f"{sid}G{k}", type=gtype, start=start, end=end)
        out.groups.append(g)
        agreement[g.id] = group_votes[(gtype, start, end)]

    # what HYP reads from each written target: a group its range, a form the group covering it or itself
    read_back: dict = {corpus.null_id: None}
    for g in out.groups:
        read_back[g.id] = (g.start, g.end)
    cover = [None] * len(corpus.forms)
    for g in out.groups:
        for p in range(g.start, g.end):
            cover[p] = (g.start, g.end)
    for p, f in enumerate(corpus.forms):
        read_back[f.id] = cover[p] or (p, p + 1)
    written: dict[tuple, int] = {}
    votes: dict = {}
    for key, weight in kept_relations.items():
        rtype, args = key
        supporters = [(w, items[key]) for w, items in proposals if key in items]
        first = supporters[0][1]
        by_role = dict(args)
        targets = {role: _target(by_role[role], corpus, out.groups) for role in first.args}
        mapped = (rtype, tuple(sorted((role, read_back[t]) for role, t in targets.items())))
        if mapped in written:  # two voted relations fall on the same ranges once written: one relation
            previous = out.relations[written[mapped]]
            agreement[previous.id] = votes[mapped] = max(agreement[previous.id], weight)
            continue
        votes[mapped] = weight
        extras = {}
        for tag in dict.fromkeys(t for _, r in supporters for t in r.extras):
            choice = winner(tally((w, [tuple(sorted(r.extras[tag].items()))])
                                  for w, r in supporters if tag in r.extras))
            extras[tag] = dict(choice[0])
        rel = Relation(id=f"{sid}R{len(out.relations) + 1}", type=rtype, args=targets, extras=extras)
        written[mapped] = len(out.relations)
        out.relations.append(rel)
        agreement[rel.id] = weight
    return EasyConsensus(out, agreement, votes)
