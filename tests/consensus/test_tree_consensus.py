"""Constituent voting (Henderson and Brill 1999), worked by hand on "le chat dort"."""
import random

import pytest

from parseval.annotations.trees.penn import parse_penn
from parseval.evaluation.consensus import trees
from parseval.evaluation.consensus.votes import normalised


def tree(text):
    return parse_penn(text)[0]


A = tree("(S (NP (D le) (N chat)) (VP (V dort)))")
B = tree("(S (NP (D le) (ADJ chat)) (V dort))")
C = tree("(S (D le) (NP (N chat) (VP (V dort))))")


def test_spans_with_more_than_half_the_weight_make_the_tree():
    # S[0,3) 3/3; NP[0,2) A+B 2/3; VP[2,3) A+C 2/3; NP[1,3) C 1/3 (crosses NP[0,2): left out).
    # tags: le D 3/3; chat N 2/3 (ADJ 1/3); dort V 3/3.
    result = trees.combine_sentence([A, B, C], normalised(None, 3))
    assert result.tree.to_penn() == "(S (NP (D le) (N chat)) (VP (V dort)))"
    assert [(label, s, e) for label, s, e, _ in result.spans] == [("S", 0, 3), ("NP", 0, 2), ("VP", 2, 3)]
    assert [a for *_, a in result.spans] == pytest.approx([1, 2 / 3, 2 / 3])
    assert result.tags[1] == ("N", pytest.approx(2 / 3))


def test_without_a_kept_span_over_the_sentence_the_root_is_voted():
    # Roots S (A, weight 0.5) and SENT (B, C: 0.25 each): no label over [0,3) has more than half... S has 0.5,
    # which is not more than half: the root takes the voted root label, S (0.5 against 0.5, A first).
    b = tree("(SENT (NP (D le) (N chat)) (V dort))")
    c = tree("(SENT (D le) (N chat) (VP (V dort)))")
    result = trees.combine_sentence([A, b, c], normalised([2, 1, 1], 3))
    assert result.tree.to_penn() == "(S (NP (D le) (N chat)) (VP (V dort)))"
    assert ("S", 0, 3) not in [(label, s, e) for label, s, e, _ in result.spans]


def test_unary_chains_are_stacked_as_the_runs_stack_them():
    a = tree("(S (VP (VN (V dort))))")
    result = trees.combine_sentence([a, a, tree("(S (VN (V dort)))")], normalised(None, 3))
    assert result.tree.to_penn() == "(S (VP (VN (V dort))))"


def _random_tree(rng, words, labels="ABC"):
    def build(lo, hi):
        if hi - lo == 1:
            return f"(T {words[lo]})"
        cuts = sorted(rng.sample(range(lo + 1, hi), rng.randint(1, hi - lo - 1)))
        bounds = [lo, *cuts, hi]
        return f"({rng.choice(labels)} " + " ".join(build(a, b) for a, b in zip(bounds, bounds[1:])) + ")"
    return tree(build(0, len(words)))


def test_kept_spans_never_cross():
    rng = random.Random(11)
    for _ in range(200):
        words = [f"w{i}" for i in range(rng.randint(2, 9))]
        runs = [_random_tree(rng, words) for _ in range(rng.randint(2, 6))]
        result = trees.combine_sentence(runs, normalised([rng.random() + 0.1 for _ in runs], len(runs)))
        assert result.tree.words() == words
        spans = [(s, e) for _, s, e, _ in result.spans]
        for s1, e1 in spans:
            for s2, e2 in spans:
                assert not (s1 < s2 < e1 < e2)
        kept = {(label, s, e) for label, s, e, _ in result.spans}
        assert kept <= set(result.tree.spans()) | {(result.tree.label, 0, len(words))}
