"""Leaf-ancestor metric (Sampson & Babarczy 2003)."""
from __future__ import annotations

import random

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import parse_penn
from parseval.annotations.trees.square import parse_square
from parseval.evaluation.trees import score_trees
from parseval.evaluation.trees.leaf_ancestor import SAMPSON2003, STRICT, Costs, la_sentence, lineage_distance, lineages, load_costs, parse_costs
from tests.conftest import sequoia_trees

GOLD = "[S [N1 two [N1 tax revision ] bills ] were passed ]"
TEST = "[S [NP two tax revision bills ] were passed ]"
TABLE = [
    ("two", 0.917, "N1 [ S", "NP [ S"),
    ("tax", 0.583, "[ N1 N1 S", "NP S"),
    ("revision", 0.583, "N1 ] N1 S", "NP S"),
    ("bills", 0.917, "N1 ] S", "NP ] S"),
    ("were", 1.000, "S", "S"),
    ("passed", 1.000, "S ]", "S ]"),
]


def test_worked_example_table():
    (g,) = parse_square(GOLD)
    (t,) = parse_square(TEST)
    row = la_sentence(g, t, SAMPSON2003)
    got = [(w["word"], round(w["score"], 3), w["gold"], w["test"]) for w in row["words"]]
    assert got == TABLE
    assert round(row["score"], 3) == 0.833
    assert round(row["geig_unlabelled_f"], 3) == 0.800
    assert round(row["geig_labelled_f"], 3) == 0.400


def test_same_example_in_penn_notation():
    g = parse_penn("(S (N1 (CD two) (N1 (NN tax) (NN revision)) (NNS bills)) (VBD were) (VBN passed))")
    t = parse_penn("(S (NP (CD two) (NN tax) (NN revision) (NNS bills)) (VBD were) (VBN passed))")
    doc = score_trees(g, t, "leaf-ancestor")
    assert round(doc["summary"]["sentence_mean"], 3) == 0.833
    assert round(doc["summary"]["word_mean"], 3) == 0.833
    row = doc["sentences"][0]
    assert set(row) >= {"index", "score", "words", "geig_unlabelled_f", "geig_labelled_f"}
    assert set(row["words"][0]) == {"word", "score", "gold", "test"}


def test_strict_costs_are_indel_distance():
    # "tax": [ N1 N1 S vs NP S -> delete [ N1 N1, NP; keep S: 4 indels over 6 symbols
    assert lineage_distance(["NP", "S"], ["[", "N1", "N1", "S"], STRICT) == 4
    (g,) = parse_square(GOLD)
    (t,) = parse_square(TEST)
    # two 4/6, tax 2/6, revision 2/6, bills 4/6, were 1, passed 1
    assert round(la_sentence(g, t, STRICT)["score"], 3) == round((4 + 2 + 2 + 4 + 6 + 6) / 36, 3) == 0.667


def test_rapidfuzz_indel_equals_the_general_dp():
    """The strict table through the weighted DP gives rapidfuzz's Indel distance."""
    general = Costs("strict-dp", default=2.0, pairs={frozenset(("x", "y")): 2.0})  # forces the DP path
    assert not general.is_indel and STRICT.is_indel
    trees = parse_penn(sequoia_trees("frwiki", 30))
    seqs = [lin for t in trees for _, lin in lineages(t)]
    rng = random.Random(7)
    for _ in range(300):
        a, b = rng.choice(seqs), rng.choice(seqs)
        assert lineage_distance(a, b, STRICT) == lineage_distance(a, b, general)


def test_cost_file(tmp_path):
    path = tmp_path / "costs.txt"
    path.write_text("# my table\ndefault 2\nfirst-char 0.5\nNP N1 0\n")
    costs = load_costs(path)
    assert costs.sub("NP", "N1") == 0 and costs.sub("NP", "NN") == 0.5 and costs.sub("NP", "S") == 2
    (g,) = parse_square(GOLD)
    (t,) = parse_square(TEST)
    assert la_sentence(g, t, costs)["words"][0]["score"] == 1.0
    assert load_costs("sampson2003") is SAMPSON2003
    with pytest.raises(InputError) as info:
        parse_costs("default 2\nNP N1 3\n", file="c.txt")
    assert info.value.problems[0].line == 2
    with pytest.raises(InputError):
        parse_costs("NP N1\n", file="c.txt")


def test_null_elements_and_function_tags_are_dropped_by_default():
    g = parse_penn("(S (NP-SBJ (-NONE- *)) (VP (VBD sat) (ADVP-TMP (RB today))))")
    t = parse_penn("(S (VP (VBD sat) (ADVP (RB today))))")
    doc = score_trees(g, t, "leaf-ancestor")
    assert doc["summary"]["word_mean"] == 1.0


def test_words_differ_reported_with_location():
    g = parse_square(GOLD)
    t = parse_square(TEST.replace("bills", "bill"))
    with pytest.raises(InputError) as info:
        score_trees(g, t, "leaf-ancestor", test_file="t.txt", test_lines=[4])
    assert (info.value.problems[0].line, info.value.problems[0].sentence) == (4, "1")


def test_sampson_shortcut_is_exact():
    """The rapidfuzz shortcut used for sampson2003 gives the plain DP's distance."""
    from parseval.evaluation.trees.leaf_ancestor import _memo, _weighted

    trees = parse_penn(sequoia_trees("emea", 40))
    seqs = [lin for t in trees for _, lin in lineages(t)]
    rng = random.Random(11)
    extra = [["S", "[", "SBAR", "]"], ["SBAR", "S", "]"], ["NP", "N1", "[", "S"], ["[", "NX", "NP", "S", "]"]]
    for _ in range(500):
        a, b = rng.choice(seqs + extra), rng.choice(seqs + extra)
        _memo.clear()
        assert lineage_distance(a, b, SAMPSON2003) == _weighted(a, b, SAMPSON2003)
