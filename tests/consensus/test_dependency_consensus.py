"""Dependency reparsing (Sagae and Lavie 2006), worked by hand on a three-word sentence."""
import random

import pytest

from parseval.annotations.conllu import DepSentence, Word
from parseval.annotations.errors import InputError
from parseval.evaluation.consensus import deps
from parseval.evaluation.consensus.votes import normalised

FORMS = ["Jean", "dort", "bien"]


def parse(heads, labels=None, upos=None):
    labels = labels or ["x"] * len(heads)
    upos = upos or ["X"] * len(heads)
    return DepSentence(words=[Word(i, f, head=h, deprel=lab, upos=u)
                              for i, (f, h, lab, u) in enumerate(zip(FORMS, heads, labels, upos), 1)])


def test_the_maximum_spanning_tree_breaks_the_majority_cycle():
    # Weights A 0.3, B 0.2, C 0.3, D 0.2; heads of words 1..3:
    #   A [3,3,0]  B [2,0,2]  C [0,3,1]  D [2,0,2]
    # Votes: word 1: head 2 0.4 (B, D), 3 0.3, 0 0.3; word 2: head 3 0.6 (A, C), 0 0.4;
    #        word 3: head 2 0.4 (B, D), 0 0.3 (A), 1 0.3 (C).
    # Best head per word: 1<-2, 2<-3, 3<-2: a cycle between 2 and 3 (1.4).
    # Breaking it: 3<-0 instead of 3<-2 costs 0.1 (total 1.3); 2<-0 instead of 2<-3 costs 0.2 (1.2);
    # 3<-1 would close 2->1->3->2. So heads [2, 3, 0], weight 1.3, one root.
    runs = [parse([3, 3, 0]), parse([2, 0, 2]), parse([0, 3, 1]), parse([2, 0, 2])]
    result = deps.combine_sentence(runs[0], runs, normalised([0.3, 0.2, 0.3, 0.2], 4))
    assert [w.head for w in result.sentence.words] == [2, 3, 0]
    assert result.agreement == pytest.approx([0.4, 0.6, 0.3])


def test_labels_are_voted_among_the_runs_that_chose_the_arc():
    # All three attach "bien" to "dort"; labels advmod (A), obl (B), obl (C) -> obl, 2/3.
    # "Jean": A and B say nsubj under 2, C says obj under 2 with a heavier weight: the arc has 3/3.
    a = parse([2, 0, 2], ["nsubj", "root", "advmod"], ["PROPN", "VERB", "ADV"])
    b = parse([2, 0, 2], ["nsubj", "root", "obl"], ["PROPN", "VERB", "ADV"])
    c = parse([2, 0, 2], ["obj", "root", "obl"], ["NOUN", "VERB", "ADV"])
    result = deps.combine_sentence(a, [a, b, c], normalised([1, 1, 1.5], 3))
    assert [w.deprel for w in result.sentence.words] == ["nsubj", "root", "obl"]  # nsubj 2/3.5 > obj 1.5/3.5
    assert [w.upos for w in result.sentence.words] == ["PROPN", "VERB", "ADV"]


def test_always_one_tree_with_one_root():
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(1, 9)
        runs = []
        for _ in range(rng.randint(2, 5)):
            order = list(range(1, n + 1))
            rng.shuffle(order)
            heads = [0] * n
            for k, d in enumerate(order[1:], 1):
                heads[d - 1] = rng.choice(order[:k])
            runs.append(DepSentence(words=[Word(i, f"w{i}", head=h, deprel="dep") for i, h in enumerate(heads, 1)]))
        result = deps.combine_sentence(runs[0], runs, normalised([rng.random() + 0.1 for _ in runs], len(runs)))
        heads = [w.head for w in result.sentence.words]
        assert heads.count(0) == 1
        for d in range(1, n + 1):  # every word reaches the root without a cycle
            seen, x = set(), d
            while x:
                assert x not in seen
                seen.add(x)
                x = heads[x - 1]


def test_runs_on_other_tokens_are_refused_with_the_sentence():
    other = DepSentence(words=[Word(1, "Jean", head=0, deprel="root"), Word(2, "dort-bien", head=1, deprel="dep")])
    with pytest.raises(InputError, match="tokens"):
        deps.combine_sentence(parse([2, 0, 2]), [parse([2, 0, 2]), other], normalised(None, 2))
