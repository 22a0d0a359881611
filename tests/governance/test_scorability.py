"""Validation proves scorability: what scoring could not handle is refused for every sentence, with where.

Scoring reads only the test sentences, validation reads them all; a sentence that passes validation but
breaks or stalls scoring would tell a team whether it is a test sentence. So every reader refuses what is
beyond :mod:`parseval.annotations.limits`, the tree walks do not recurse, and a tree at the limits is scored by every
metric with a small stack.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from parseval.annotations.easy.validate import validate_run
from parseval.annotations.errors import InputError
from parseval.annotations.limits import MAX_SENTENCE_RELATIONS, MAX_SENTENCE_WORDS, MAX_TREE_DEPTH, MAX_TREE_NODES
from parseval.annotations.trees.penn import parse_penn, parse_penn_lines
from parseval.annotations.trees.square import parse_square
from parseval.annotations.trees.tree import Tree
from evaluation.kinds.sentence import Parsed
from evaluation.kinds.constituency import ConstituencyKind
from evaluation.kinds.sentence.tokens import TextSentence
from parseval.evaluation.trees import METRICS
from tests.conftest import REPO_ROOT

SIDE = "(VP (VB y) (NP (DT the) (NN z)))"


def deep(depth: int) -> str:
    """A tree whose word x is enclosed by exactly ``depth`` brackets (S, then depth - 2 S, then NN)."""
    return f"(S {SIDE} " + "(S " * (depth - 2) + "(NN x)" + ")" * (depth - 2) + ")"


# -- the readers ------------------------------------------------------------------------------------------

def test_penn_and_square_readers_refuse_a_tree_deeper_than_the_limit_with_where():
    text = "(S (NN a))\n" + deep(MAX_TREE_DEPTH + 1) + "\n"
    with pytest.raises(InputError) as caught:
        parse_penn(text, file="run.mrg")
    problem = caught.value.problems[0]
    assert (problem.file, problem.line, problem.sentence) == ("run.mrg", 2, "2")
    assert f"the limit is {MAX_TREE_DEPTH}" in problem.message
    # line layout (evalb's): the same, and lenient reading keeps it as an error sentence
    with pytest.raises(InputError, match="line 2, sentence 2"):
        parse_penn_lines(text, file="run.mrg")
    assert type(parse_penn_lines(text, lenient=True)[1]).__name__ == "BadSentence"
    square = "[S [NP a ] ]\n" + "[S " * (MAX_TREE_DEPTH + 1) + "x" + " ]" * (MAX_TREE_DEPTH + 1) + "\n"
    with pytest.raises(InputError, match="run.txt, line 2, sentence 2"):
        parse_square(square, file="run.txt")


def test_a_tree_at_the_depth_limit_is_read():
    tree = parse_penn(deep(MAX_TREE_DEPTH))[0]
    assert tree.words() == ["y", "the", "z", "x"]


def test_tree_walks_do_not_recurse():
    """Trees built in code (not read) can be deeper than any stack: every walk of Tree is iterative."""
    depth = 50_000
    leaf = Tree("NN", [Tree.leaf("x")])
    root = leaf
    for _ in range(depth):
        root = Tree("S", [root, Tree("DT", [Tree.leaf("d")])])
    assert len(root.words()) == depth + 1 and len(list(root.leaves())) == depth + 1
    assert root.tagged_words()[0] == ("x", "NN") and len(list(root.preterminals())) == depth + 1
    assert len(list(root.subtrees())) == 2 * depth + 1
    spans = root.spans()
    assert spans[0] == ("S", 0, depth + 1) and len(spans) == depth
    copied = root.copy()
    assert copied == root and copied is not root
    text = root.to_penn()
    # brackets: 50,000 S, 50,000 DT and one NN
    assert text.startswith("(S (S (S ") and text.count("(") == 2 * depth + 1
    copied.children[1].label = "NN"
    assert copied != root


# -- scoring within the limits never fails, with a small stack ----------------------------------------------

def frames_in_use() -> int:
    frame, n = sys._getframe(), 0
    while frame is not None:
        n += 1
        frame = frame.f_back
    return n


@pytest.mark.parametrize("transform", ["", "strip-functions,remove-null,remove-unary,remove-root,no-np-in-pp"])
def test_trees_at_the_limits_are_scored_by_every_metric_with_a_small_stack(transform):
    """Every metric (and the head-rule dependency conversion) on a tree at the depth limit, with only
    3 x MAX_TREE_DEPTH + 50 frames of stack left: under two thirds of Python's default 1,000, so a worker or
    the command line, whose own stack is far smaller than the remaining third, never meets the limit."""
    kind = ConstituencyKind()
    gold = parse_penn(deep(3))[0]
    test = parse_penn(deep(MAX_TREE_DEPTH))[0]
    params = {"transform": transform, "head_rules": "penn"}
    budget = 3 * MAX_TREE_DEPTH + 50
    saved = sys.getrecursionlimit()
    for metric in list(METRICS) + ["dependency"]:
        for pair in ([gold], [test]), ([test], [test]):
            sys.setrecursionlimit(frames_in_use() + budget)
            try:
                doc = kind.score_metric(metric, *pair, params)
            finally:
                sys.setrecursionlimit(saved)
            assert doc, metric


# -- validation reports every sentence beyond a limit, with file, line and sentence -------------------------

def test_constituency_validation_reports_too_many_nodes_and_empty_brackets():
    kind = ConstituencyKind()
    words = [f"w{i}" for i in range(1000)]
    # 19 U, the NN and the word: 21 nodes a word, 21,000 with the root's 1 makes 21,001
    wide = "(S " + " ".join("(U " * 19 + f"(NN {w})" + ")" * 19 for w in words) + ")"
    small = "(S (NP ) (NN a))"
    parsed = [Parsed(t, [w for w, _ in t.tagged_words()], str(i), i) for i, t in
              enumerate(parse_penn(wide + "\n" + small), 1)]
    problems = kind.scorability_problems(parsed, "doc.mrg")
    assert [(p.file, p.line, p.sentence) for p in problems] == [("doc.mrg", 1, "1"), ("doc.mrg", 2, "2")]
    assert MAX_TREE_NODES < 21_001 and "21001 tree nodes" in problems[0].message
    assert "no word under it" in problems[1].message


def test_constituency_check_file_reports_a_too_deep_tree_like_any_problem(tmp_path):
    path = tmp_path / "doc.mrg"
    path.write_text("(S (NN a))\n" + deep(MAX_TREE_DEPTH + 1) + "\n", encoding="utf-8")
    expected = [TextSentence("1", ("a",)), TextSentence("2", ("y", "the", "z", "x"))]
    problems = ConstituencyKind().check_file(path, "doc.mrg", expected)
    assert [(p.file, p.line, p.sentence) for p in problems] == [("doc.mrg", 2, "2")]


def test_dependency_validation_counts_words_and_empty_nodes():
    from parseval.annotations.conllu import parse_conllu
    from evaluation.kinds.dependency import DependencyKind

    rows = ["1\ta\ta\tNOUN\t_\t_\t0\troot\t_\t_"]
    rows += [f"1.{k}\tv\tv\tNOUN\t_\t_\t_\t_\t1:dep\t_" for k in range(1, MAX_SENTENCE_WORDS)]
    text = "# sent_id = s1\n" + "\n".join(rows) + "\n\n# sent_id = s2\n" + "\n".join(
        rows + [f"1.{MAX_SENTENCE_WORDS}\tv\tv\tNOUN\t_\t_\t_\t_\t1:dep\t_"]) + "\n\n"
    kind = DependencyKind()
    parsed = [Parsed(s, [w.form for w in s.words], s.sent_id, s.line) for s in parse_conllu(text, file="d.conllu")]
    problems = kind.scorability_problems(parsed, "d.conllu")
    # s1: 1 word + 1,999 empty nodes = the limit; s2: one more
    # s2's first row: s1's comment and 2,000 rows, a blank line, s2's comment, then line 2,004
    assert [(p.sentence, p.line) for p in problems] == [("s2", MAX_SENTENCE_WORDS + 4)]
    assert f"{MAX_SENTENCE_WORDS + 1} words" in problems[0].message


def easy_file(relations: dict[str, int], *, canonical: bool) -> bytes:
    """An EASY document of two sentences; ``relations[sid]`` JUXT relations between its two groups."""
    nl = "\n" if canonical else "  \n "
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<DOCUMENT xmlns:xlink="http://www.w3.org/1999/xlink">']
    for sid in ("E1", "E2"):
        out.append(f'<E id="{sid}">')
        out.append(f' <Groupe type="GN" id="{sid}G1">{nl}<F id="{sid}F1">a</F>{nl} </Groupe>')
        out.append(f' <Groupe type="GN" id="{sid}G2">{nl}<F id="{sid}F2">b</F>{nl} </Groupe>')
        out.append("<relations>")
        for k in range(relations.get(sid, 0)):
            out.append(f'<relation xlink:type="extended" type="JUXT" id="{sid}R{k + 1}">{nl}'
                       f'<premier  xlink:type="locator" xlink:href="{sid}G1"/>{nl}'
                       f'<suivant  xlink:type="locator" xlink:href="{sid}G2"/>{nl}</relation>')
        out.append("</relations>")
        out.append("</E>")
    out.append("</DOCUMENT>")
    return ("\n".join(out) + "\n").encode("utf-8")


@pytest.mark.parametrize("canonical", [True, False])
def test_easy_validation_reports_a_sentence_with_too_many_relations(tmp_path, canonical):
    forms = {"E1": (("E1F1", "a"), ("E1F2", "b")), "E2": (("E2F1", "a"), ("E2F2", "b"))}
    path = tmp_path / "doc.xml"
    path.write_bytes(easy_file({"E1": MAX_SENTENCE_RELATIONS, "E2": MAX_SENTENCE_RELATIONS + 1},
                               canonical=canonical))
    problems = validate_run(path, forms)
    assert [(p.file, p.sentence, p.element) for p in problems] == [("doc.xml", "E2", "E")]
    assert problems[0].line and f"{MAX_SENTENCE_RELATIONS + 1} relations" in problems[0].message
    # never depending on which sentences are scored: the same with every sentence wanted
    path.write_bytes(easy_file({"E1": MAX_SENTENCE_RELATIONS}, canonical=canonical))
    assert validate_run(path, forms) == []


# -- the command line ----------------------------------------------------------------------------------------

def test_command_line_scoring_of_a_too_deep_tree_gives_a_located_error(tmp_path):
    gold, test = tmp_path / "gold.mrg", tmp_path / "test.mrg"
    gold.write_text("(S (NN x))\n(S (NN y))\n", encoding="utf-8")
    test.write_text("(S (NN x))\n" + "(S " * 5000 + "(NN y)" + ")" * 5000 + "\n", encoding="utf-8")
    for metric in ("geig1991", "leaf-ancestor", "conformance"):
        done = subprocess.run([sys.executable, "-m", "evaluation", "trees", "--gold", str(gold), "--test", str(test),
                               "--metric", metric], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (metric, done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
        assert f"{test}, line 2, sentence 2" in done.stderr and "limit" in done.stderr, done.stderr


def test_easy_matching_follows_augmenting_paths_of_any_length():
    from parseval.evaluation.easy.matching import maximum_matching

    # h0 may match r0 only, h_i r_(i-1) or r_i: h_i tries r_(i-1) first, so the search for h_i walks back
    # through all of h_(i-1) ... h0 before it takes r_i; n items of one type make a path n long. Twice the
    # recursion limit proves the search iterative; the work grows with n squared, so no longer than that.
    n = 2 * sys.getrecursionlimit()
    assert maximum_matching([[0]] + [[i - 1, i] for i in range(1, n)]) == n
    # small cases by hand: h0 {r0, r1}, h1 {r0}: h1 takes r0 by moving h0 to r1, 2 matches
    assert maximum_matching([[0, 1], [0]]) == 2
    # h0, h1, h2 all {r0, r1}: only 2 reference items, 2 matches; nobody: 0
    assert maximum_matching([[0, 1], [0, 1], [0, 1]]) == 2
    assert maximum_matching([[], []]) == 0
