"""Penn reader/writer: layouts, round trip on the real sample, malformed input."""
from __future__ import annotations

import re

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import BadSentence, Forest, parse_penn, parse_penn_lines, read_penn, write_penn
from parseval.annotations.trees.tree import Tree
from tests.conftest import sequoia_mrg


def test_outer_unlabelled_pair_removed_top_kept():
    (t,) = parse_penn("( (S (NP (DT the) (NN cat)) (VP (VBD sat))) )")
    assert t.label == "S"
    (t,) = parse_penn("(TOP (S (NP (DT the) (NN cat))))")
    assert t.label == "TOP"
    (t,) = parse_penn("(ROOT (S (NP (DT the) (NN cat))))")
    assert t.label == "ROOT"


def test_unlabelled_nodes_none_and_function_tags_kept():
    (t,) = parse_penn("(VP ((VPAST did) (NEG not)) (NP-SBJ-1 (-NONE- *T*-1)))")
    assert t.children[0].label == ""
    assert [c.label for c in t.children[0].children] == ["VPAST", "NEG"]
    assert t.children[1].label == "NP-SBJ-1"
    assert t.children[1].children[0].label == "-NONE-"
    assert t.children[1].children[0].children[0].word == "*T*-1"


def test_many_trees_per_line_and_spread_over_lines():
    trees = parse_penn("(A (x a)) (B (y b))\n(C\n  (z c)\n)\n")
    assert [t.label for t in trees] == ["A", "B", "C"]
    assert trees[2].words() == ["c"]


def test_round_trip_whole_treebank(shared_data):
    trees = read_penn(shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict")
    assert len(trees) == 3099
    assert parse_penn(write_penn(trees)) == trees


def test_round_trip_keeps_every_token(tmp_path):
    path = tmp_path / "annodis.mrg"
    path.write_text(sequoia_mrg("annodis", 12), encoding="utf-8")
    text = path.read_text()
    assert "\n\n" in text  # multi-line trees, as treebanks lay them out
    written = write_penn(read_penn(path, strip_outer=False))
    tokens = re.compile(r"[()]|[^\s()]+").findall
    assert tokens(written) == tokens(text)  # same tokens, only whitespace changed


@pytest.mark.parametrize(
    "text, line, sentence",
    [
        ("(S (A a))\n(S (B b)))\n", 2, "2"),  # one ')' too many on line 2
        ("(S (A a))\n(S (B b))\n(S\n (C c)\n", 3, "3"),  # tree 3 never closed
        ("(S (A a)) stray\n", 1, "2"),
    ],
)
def test_malformed_reports_file_line_sentence(text, line, sentence):
    with pytest.raises(InputError) as info:
        parse_penn(text, file="gold.mrg")
    problem = info.value.problems[0]
    assert (problem.file, problem.line, problem.sentence) == ("gold.mrg", line, sentence)
    assert "gold.mrg" in str(info.value) and f"line {line}" in str(info.value)


def test_empty_file_is_an_error():
    with pytest.raises(InputError, match="empty"):
        parse_penn("  \n\n", file="empty.mrg")
    with pytest.raises(InputError, match="empty"):
        parse_penn_lines("", file="empty.tst")


def test_line_layout_like_evalb(shared_data):
    sents = parse_penn_lines((shared_data / "evalb-sample" / "sample.tst").read_text())
    assert len(sents) == 24
    assert isinstance(sents[7], Forest) and sents[7].words() == ["this", "is", "a", "test"]
    assert isinstance(sents[10], Forest) and sents[10].children == []  # empty line
    assert sents[14].label == "TOP"


def test_line_layout_lenient_keeps_going():
    sents = parse_penn_lines("(S (A a))\n(S (A a)))\n(S (B b))\n", file="t", lenient=True)
    assert isinstance(sents[1], BadSentence)
    assert sents[1].problem.line == 2 and sents[1].problem.sentence == "2"
    assert sents[2] == Tree("S", [Tree("B", [Tree.leaf("b")])])
    with pytest.raises(InputError):
        parse_penn_lines("(S (A a))\n(S (A a)))\n", file="t")
