"""EASY consensus, worked by hand on one sentence: "Les chats noirs dorment" (forms 0..3)."""
import random
from itertools import combinations

import pytest

from parseval.annotations.easy.model import Form, Group, Relation, Sentence
from parseval.evaluation.consensus import easy
from parseval.evaluation.consensus.votes import heaviest_disjoint, normalised

FORMS = [Form(f"E1F{i}", t) for i, t in enumerate(["Les", "chats", "noirs", "dorment"], 1)]


def sentence(groups, relations=()):
    s = Sentence("E1", list(FORMS))
    s.groups = [Group(f"E1G{k}", t, a, b) for k, (t, a, b) in enumerate(groups, 1)]
    s.relations = [Relation(f"E1R{k}", t, dict(args)) for k, (t, args) in enumerate(relations, 1)]
    return s


# A: [Les chats noirs]GN [dorment]NV, SUJ-V(G1, G2)
A = sentence([("GN", 0, 3), ("NV", 3, 4)], [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})])
# B: [Les chats]GN [noirs]GA [dorment]NV, SUJ-V(G1, G3), MOD-N(G2, G1)
B = sentence([("GN", 0, 2), ("GA", 2, 3), ("NV", 3, 4)],
             [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G3"}), ("MOD-N", {"modifieur": "E1G2", "nom": "E1G1"})])
# C: as A, but the relation points at forms: "chats" inside its GN [0,3), "dorment" inside NV [3,4),
# and written with the roles in the other order: it is A's relation in range space.
C = sentence([("GN", 0, 3), ("NV", 3, 4)], [("SUJ-V", {"verbe": "E1F4", "sujet": "E1F2"})])


def corpus():
    return Sentence("E1", list(FORMS))


def test_equal_weights_keep_what_two_of_three_runs_say():
    # groups: GN[0,3) A+C = 2/3, NV[3,4) 3/3 kept; GN[0,2) and GA[2,3) 1/3 each left out.
    # relations: SUJ-V([0,3), [3,4)) A+C = 2/3 kept; B's SUJ-V([0,2), [3,4)) and MOD-N 1/3 left out.
    result = easy.combine_sentence(corpus(), [A, B, C], normalised(None, 3))
    s = result.sentence
    assert [(g.id, g.type, g.start, g.end) for g in s.groups] == [("E1G1", "GN", 0, 3), ("E1G2", "NV", 3, 4)]
    assert [(r.type, r.args) for r in s.relations] == [("SUJ-V", {"sujet": "E1G1", "verbe": "E1G2"})]
    assert result.agreement["E1G1"] == pytest.approx(2 / 3)
    assert result.agreement["E1G2"] == pytest.approx(1.0)
    assert result.agreement["E1R1"] == pytest.approx(2 / 3)


def test_weights_decide():
    # weights 1, 3, 1 -> 0.2, 0.6, 0.2: B alone has more than half.
    # groups: GN[0,2) 0.6, GA[2,3) 0.6, NV 1.0 kept; GN[0,3) 0.4 left out.
    # relations: B's SUJ-V 0.6 and MOD-N 0.6, mapped onto the chosen groups; A's and C's SUJ-V 0.4 out.
    result = easy.combine_sentence(corpus(), [A, B, C], normalised([1, 3, 1], 3))
    s = result.sentence
    assert [(g.type, g.start, g.end) for g in s.groups] == [("GN", 0, 2), ("GA", 2, 3), ("NV", 3, 4)]
    assert [(r.type, r.args) for r in s.relations] == [
        ("SUJ-V", {"sujet": "E1G1", "verbe": "E1G3"}), ("MOD-N", {"modifieur": "E1G2", "nom": "E1G1"})]
    assert result.agreement["E1R1"] == pytest.approx(0.6)


def test_relation_arguments_outside_the_chosen_groups():
    # Each run: one COORD with a null left conjunct; "noirs" is a bare form in every run.
    # A points at [0,3) as a group, but the consensus keeps GN[0,2) (B and C): the argument falls on
    # the chosen group sharing most forms with [0,3), i.e. GN[0,2).
    coord = ("COORD", {"coordonnant": "E1F3", "coord-g": "E1F0", "coord-d": "E1F4"})
    a = sentence([("GN", 0, 2)], [coord])
    b = sentence([("GN", 0, 2)], [coord])
    c = sentence([("GN", 0, 3)], [("MOD-N", {"modifieur": "E1G1", "nom": "E1F4"})])
    result = easy.combine_sentence(corpus(), [a, b, c], normalised(None, 3))
    assert [(r.type, r.args) for r in result.sentence.relations] == [
        ("COORD", {"coordonnant": "E1F3", "coord-g": "E1F0", "coord-d": "E1F4"})]
    # threshold 0: c's MOD-N is kept too; its modifier range [0,3) maps onto the kept GN[0,2)
    loose = easy.combine_sentence(corpus(), [a, b, c], normalised(None, 3), relation_threshold=0.0)
    assert loose.sentence.relations[1].args == {"modifieur": "E1G1", "nom": "E1F4"}


def test_a_run_without_the_sentence_keeps_its_share():
    # A alone (1/3) is not a majority when the two other runs lack the sentence.
    result = easy.combine_sentence(corpus(), [A, None, None], normalised(None, 3))
    assert result.sentence.groups == [] and result.sentence.relations == []


def test_groups_never_overlap_and_weigh_most_at_any_threshold():
    rng = random.Random(7)
    for _ in range(200):
        runs = []
        for _ in range(4):
            cuts = sorted(rng.sample(range(1, 8), rng.randint(0, 5)))
            bounds = [0, *cuts, 8]
            spans = [(a, b) for a, b in zip(bounds, bounds[1:]) if rng.random() < 0.7]
            s = Sentence("E1", [Form(f"E1F{i}", "w") for i in range(1, 9)])
            s.groups = [Group(f"E1G{k}", rng.choice("AB"), a, b) for k, (a, b) in enumerate(spans, 1)]
            runs.append(s)
        weights = normalised([rng.random() + 0.01 for _ in runs], 4)
        result = easy.combine_sentence(runs[0], runs, weights, group_threshold=0.0)
        chosen = [(g.start, g.end) for g in result.sentence.groups]
        assert all(a[1] <= b[0] for a, b in zip(chosen, chosen[1:]))
        # brute force: no disjoint subset of the candidates weighs more
        votes = {}
        for w, s in zip(weights, runs):
            for g in {(g.type, g.start, g.end) for g in s.groups}:
                votes[g] = votes.get(g, 0) + w
        got = sum(result.agreement[g.id] for g in result.sentence.groups)
        items = list(votes)
        best = 0.0
        for k in range(len(items) + 1):
            if k > 5:
                break
            for subset in combinations(items, k):
                ordered = sorted(subset, key=lambda g: g[1])
                if all(x[2] <= y[1] for x, y in zip(ordered, ordered[1:])):
                    best = max(best, sum(votes[g] for g in subset))
        assert got == pytest.approx(best) or got > best


def test_heaviest_disjoint_by_hand():
    # [0,2) 0.5 + [2,3) 0.5 = 1.0 beats [0,3) 0.8; [3,4) 0.1 is taken too.
    assert heaviest_disjoint([(0, 3, 0.8, "long"), (0, 2, 0.5, "a"), (2, 3, 0.5, "b"), (3, 4, 0.1, "c")]) == \
        ["a", "b", "c"]


def test_a_run_without_relations_does_not_vote_against_them():
    # A and C propose SUJ-V; a chunker's run D submitted no relation layer. Among the relation
    # voters (A, B, C: 1/3 each) SUJ-V([0,3), [3,4)) has 2/3 and is kept; were D counted, 2/4 would not be.
    chunker = sentence([("GN", 0, 3), ("NV", 3, 4)])
    weights = normalised(None, 4)
    assert easy.combine_sentence(corpus(), [A, B, C, chunker], weights).sentence.relations == []
    kept = easy.combine_sentence(corpus(), [A, B, C, chunker], weights,
                                 relation_weights=normalised([1, 1, 1, 0], 4))
    assert [r.type for r in kept.sentence.relations] == ["SUJ-V"]
    assert kept.agreement["E1R1"] == pytest.approx(2 / 3)
    assert kept.agreement["E1G1"] == pytest.approx(3 / 4)  # groups: A, C and the chunker
