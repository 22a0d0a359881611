"""Flat keys and conformance (Gaizauskas, Hepple & Huyck 1998)."""
from __future__ import annotations

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import parse_penn
from parseval.evaluation.trees import score_trees
from parseval.evaluation.trees.flatten import conformance_sentence, flatten, parse_rule, parse_rules

PENN = (
    "(S (NP-SBJ (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting) "
    "(NP (NNS records)) (NP-TMP (NP (DT every) (NN month)) (PP (IN since) (NP (NNP March))))))) (. .))"
)
FLAT = (
    "(S (NP (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VBN been) (VBG setting) (NNS records) "
    "(NP (DT every) (NN month) (PP (IN since) (NNP March)))) (. .))"
)
RULES = "(VP VBN VP^)\n(VP VBP VP^)\n(NP NP^ PP)\n"


def test_flattening_example():
    (tree,) = parse_penn(PENN)
    flat = flatten(tree, parse_rules(RULES))
    assert flat.to_penn() == FLAT
    assert tree.to_penn() == parse_penn(PENN)[0].to_penn()  # the input is untouched


def test_conformance_both_directions():
    (penn,) = parse_penn(PENN)
    (flat,) = parse_penn(FLAT)
    row = conformance_sentence(flat, penn)  # flat key, Penn response
    assert (row["key"], row["response"], row["matched"], row["violated"]) == (5, 10, 5, 0)
    assert (round(row["recall"], 3), round(row["precision"], 3), round(row["conformance"], 3)) == (1.0, 0.5, 1.0)
    row = conformance_sentence(penn, flat)  # Penn key, flat response
    assert (row["key"], row["response"], row["matched"], row["violated"]) == (10, 5, 5, 0)
    assert (round(row["recall"], 3), round(row["precision"], 3), round(row["conformance"], 3)) == (0.5, 1.0, 1.0)


def test_crossing_lowers_conformance():
    (key,) = parse_penn("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))")
    (resp,) = parse_penn("(S (X (DT the) (NN cat) (VBD sat)) (PP (IN on) (NP (DT the) (NN mat))))")
    row = conformance_sentence(key, resp)
    # key spans: S, NP(0,2), VP(2,6), PP(3,6), NP(4,6); X(0,3) crosses VP(2,6) only
    assert (row["key"], row["violated"]) == (5, 1)
    assert row["conformance"] == pytest.approx(4 / 5)


def test_rule_forms_and_errors():
    assert parse_rule("NP^").kind == "label"
    r = parse_rule("(VP^ VBN VP)")
    assert (r.kind, r.label, r.children) == ("node", "VP", ("VBN", "VP"))
    r = parse_rule("(NP NP^ PP)")
    assert (r.kind, r.children, r.index) == ("child", ("NP", "PP"), 0)
    with pytest.raises(InputError) as info:
        parse_rules("(VP VBN VP^)\n(NP NP PP)\n", file="rules.txt")
    assert (info.value.problems[0].file, info.value.problems[0].line) == ("rules.txt", 2)


def test_label_rule_never_deletes_root_and_empty_unary_removal():
    (tree,) = parse_penn("(S (NP (NP (DT a) (NN b)) (-NONE- *)) (VP (VB c)))")
    flat = flatten(tree, parse_rules("S^\n"))
    # -NONE- removed, then NP over a single NP collapses; S is the root and stays
    assert flat.to_penn() == "(S (NP (DT a) (NN b)) (VB c))"


def test_score_trees_conformance_with_rules(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES)
    gold = parse_penn(PENN + "\n" + PENN)
    test = parse_penn(PENN + "\n" + FLAT)
    doc = score_trees(gold, test, "conformance", rules=str(rules))
    assert doc["metric"] == "conformance"
    assert set(doc["sentences"][0]) >= {"key", "response", "matched", "violated", "recall", "precision", "conformance"}
    s = doc["summary"]
    assert (s["key"], s["response"], s["matched"]) == (10, 15, 10)
    assert s["recall"] == 1.0 and s["precision"] == pytest.approx(10 / 15) and s["conformance"] == 1.0


def test_child_rule_on_a_preterminal_is_ignored():
    (tree,) = parse_penn("(S (NP (DT a) (NN b)) (VP (VB c) (NP (NN d))))")
    flat = flatten(tree, parse_rules("(VP VB^ NP)\n"))
    assert flat.to_penn() == "(S (NP (DT a) (NN b)) (VP (VB c) (NN d)))"
