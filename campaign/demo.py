"""Synthetic demo runs: the gold, perturbed in documented ways.

The demo campaign needs runs that score differently from one another
without any real parser. Each perturbation below damages one aspect of the
gold annotation that EASY measures, at a given rate, with a seeded random
generator so that ``load_demo`` builds the same runs every time:

``shift_boundaries``
    moves one boundary of a group by one form (extends it over a neighbouring
    bare form, or shrinks it), so EQUAL no longer matches but FUZZY,
    INCLUDE (for shrunk groups), INTERSECTION and BARYCENTER still do;
    relations pointing at the group move with it (they are scored in range space).
``wrong_types``
    gives groups and relations another type of the schema (relations keep
    their arguments, re-labelled role by role): ranges are right, types wrong.
``drop_relations``
    removes relations (lower recall).
``add_relations``
    adds relations of a random two-argument type between two random units of
    the sentence (lower precision).
``wrong_arguments``
    re-points one argument of a relation to a neighbouring group or form.
``constituents_only``
    removes every relation: the relations layer is then "not submitted".

Every run made here is marked ``Run.synthetic`` by the caller and says so in
its name and description.
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Callable

from parseval.annotations.easy import DEFAULT_SCHEMA, Document, Group, Relation, Sentence

Perturbation = Callable[[Sentence, random.Random, float], None]


def _targets(s: Sentence) -> list[str]:
    """Ids a relation argument may point to: groups, and forms outside any group."""
    covered = {i for g in s.groups for i in range(g.start, g.end)}
    return [g.id for g in s.groups] + [f.id for i, f in enumerate(s.forms) if i not in covered]


def shift_boundaries(s: Sentence, rng: random.Random, rate: float) -> None:
    covered = [False] * len(s.forms)
    for g in s.groups:
        for i in range(g.start, g.end):
            covered[i] = True
    for g in s.groups:
        if rng.random() >= rate:
            continue
        options = []
        if g.end < len(s.forms) and not covered[g.end]:
            options.append("extend_right")
        if g.start > 0 and not covered[g.start - 1]:
            options.append("extend_left")
        if g.end - g.start > 1:
            options += ["shrink_right", "shrink_left"]
        if not options:
            continue
        move = rng.choice(options)
        if move == "extend_right":
            covered[g.end] = True
            g.end += 1
        elif move == "extend_left":
            covered[g.start - 1] = True
            g.start -= 1
        elif move == "shrink_right":
            g.end -= 1
            covered[g.end] = False
        else:
            covered[g.start] = False
            g.start += 1


def wrong_types(s: Sentence, rng: random.Random, rate: float) -> None:
    group_types = DEFAULT_SCHEMA.group_types
    for g in s.groups:
        if rng.random() < rate:
            g.type = rng.choice([t for t in group_types if t != g.type])
    by_arity: dict[int, list[str]] = {}
    for rtype in DEFAULT_SCHEMA.relation_types:
        by_arity.setdefault(len(DEFAULT_SCHEMA.roles(rtype)), []).append(rtype)
    for r in s.relations:
        if rng.random() >= rate or r.type not in DEFAULT_SCHEMA.relation_roles:
            continue
        old_roles = DEFAULT_SCHEMA.roles(r.type)
        others = [t for t in by_arity[len(old_roles)] if t != r.type]
        if not others:
            continue
        new_type = rng.choice(others)
        targets = [r.args.get(role, s.null_id) for role in old_roles]
        r.type = new_type
        r.args = dict(zip(DEFAULT_SCHEMA.roles(new_type), targets))
        r.extras = {}


def drop_relations(s: Sentence, rng: random.Random, rate: float) -> None:
    s.relations = [r for r in s.relations if rng.random() >= rate]


def add_relations(s: Sentence, rng: random.Random, rate: float) -> None:
    targets = _targets(s)
    if len(targets) < 2:
        return
    binary = [t for t in DEFAULT_SCHEMA.relation_types if len(DEFAULT_SCHEMA.roles(t)) == 2]
    extra = sum(1 for _ in s.relations if rng.random() < rate)
    for _ in range(extra):
        rtype = rng.choice(binary)
        a, b = rng.sample(targets, 2)
        s.relations.append(Relation(id="", type=rtype, args=dict(zip(DEFAULT_SCHEMA.roles(rtype), (a, b)))))


def wrong_arguments(s: Sentence, rng: random.Random, rate: float) -> None:
    targets = _targets(s)
    if len(targets) < 2:
        return
    position = {t: i for i, t in enumerate(targets)}
    for r in s.relations:
        if rng.random() >= rate or not r.args:
            continue
        role = rng.choice(list(r.args))
        here = position.get(r.args[role])
        if here is None:
            continue
        step = rng.choice([-1, 1])
        r.args[role] = targets[(here + step) % len(targets)]


def constituents_only(s: Sentence, rng: random.Random, rate: float) -> None:
    s.relations = []


def _valid_for_a_run(s: Sentence) -> None:
    """A run must point only at ids of the sentence (or at the null argument), with unique ids.

    The real gold has a few dangling pointers and repeated relation ids,
    which gold may have but a run may not: drop and renumber.
    """
    known = {f.id for f in s.forms} | {g.id for g in s.groups} | {s.null_id}
    kept = [r for r in s.relations if all(t in known for t in r.args.values())]
    for k, r in enumerate(kept, start=1):
        r.id = f"{s.id}R{k}"
    s.relations = kept
    seen: set[str] = set()
    for k, g in enumerate(s.groups, start=1):
        if g.id in seen:
            g.id = f"{s.id}G{len(s.groups) + k}"
        seen.add(g.id)
    s.groups.sort(key=lambda g: g.start)


@dataclass(frozen=True)
class Recipe:
    """One synthetic run: a name, what was done, and the perturbations with their rates."""

    name: str
    description: str
    steps: tuple[tuple[Perturbation, float], ...]
    seed: int


def _copy(doc: Document) -> Document:
    # Forms are never changed, so they are shared; deepcopy of a whole corpus is ten times slower.
    return Document(
        name=doc.name,
        attributes=dict(doc.attributes),
        sentences=[
            Sentence(
                id=s.id,
                forms=s.forms,
                groups=[Group(g.id, g.type, g.start, g.end) for g in s.groups],
                relations=[Relation(r.id, r.type, dict(r.args), copy.deepcopy(r.extras)) for r in s.relations],
            )
            for s in doc.sentences
        ],
        has_constituents=doc.has_constituents,
        has_relations=doc.has_relations,
    )


def perturb(doc: Document, recipe: Recipe) -> Document:
    """A copy of ``doc`` with ``recipe`` applied; the original is left untouched."""
    out = _copy(doc)
    rng = random.Random(f"{recipe.seed}:{doc.name}")
    for s in out.sentences:
        for step, rate in recipe.steps:
            step(s, rng, rate)
        _valid_for_a_run(s)
    out.has_relations = any(s.relations for s in out.sentences)
    return out


SYNTHETIC = "Synthetic demo run (perturbed gold, not a parser): "

TEAMS = [
    {
        "name": "Alpha boundaries lab",
        "user": "alpha",
        "runs": [
            Recipe("shift-10 (synthetic)", SYNTHETIC + "10% of group boundaries shifted by one form.",
                   ((shift_boundaries, 0.10),), 101),
            Recipe("shift-30 (synthetic)", SYNTHETIC + "30% of group boundaries shifted by one form.",
                   ((shift_boundaries, 0.30),), 102),
        ],
    },
    {
        "name": "Beta typing group",
        "user": "beta",
        "runs": [
            Recipe("types-10 (synthetic)", SYNTHETIC + "10% of groups and relations given a wrong type.",
                   ((wrong_types, 0.10),), 201),
            Recipe("types-25-missing-10 (synthetic)",
                   SYNTHETIC + "25% wrong types, then 10% of relations removed.",
                   ((wrong_types, 0.25), (drop_relations, 0.10)), 202),
        ],
    },
    {
        "name": "Gamma relations team",
        "user": "gamma",
        "runs": [
            Recipe("missing-20-extra-10 (synthetic)",
                   SYNTHETIC + "20% of relations removed and 10% spurious relations added.",
                   ((drop_relations, 0.20), (add_relations, 0.10)), 301),
            Recipe("arguments-15 (synthetic)", SYNTHETIC + "one argument of 15% of relations re-pointed to a neighbour.",
                   ((wrong_arguments, 0.15),), 302),
        ],
    },
    {
        "name": "Delta chunker",
        "user": "delta",
        "runs": [
            Recipe("constituents-only (synthetic)",
                   SYNTHETIC + "constituents only (5% of boundaries shifted); no relations submitted.",
                   ((shift_boundaries, 0.05), (constituents_only, 1.0)), 401),
            Recipe("mixed-noise (synthetic)",
                   SYNTHETIC + "every perturbation at 5%: boundaries, types, missing, extra, arguments.",
                   ((shift_boundaries, 0.05), (wrong_types, 0.05), (drop_relations, 0.05),
                    (add_relations, 0.05), (wrong_arguments, 0.05)), 402),
        ],
    },
]
