"""The library entry point the web app calls: score_trees / score_files and the transformation hook."""
from __future__ import annotations

import pytest

from parseval.annotations.trees.penn import parse_penn
from parseval.annotations.trees.square import parse_square
from parseval.evaluation.trees import METRICS, score_files, score_trees
from parseval.evaluation.version import SCORER_VERSION

GOLD = "(S (NP-SBJ (DT the) (NN cat)) (VP (VBD sat) (ADVP-TMP (RB today))) (. .))"
TEST = "(S (NP (DT the) (NN cat)) (VP (VBD sat)) (ADVP (RB today)) (. .))"


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_returns_the_document(metric):
    doc = score_trees(parse_penn(GOLD), parse_penn(TEST), metric)
    assert set(doc) >= {"metric", "signature", "sentences", "summary"}
    assert doc["metric"] == metric and doc["sentences"][0]["index"] == 1
    assert doc["signature"].endswith(f"version:{SCORER_VERSION}")


def test_transform_hook_applies_to_copies_only():
    gold, test = parse_penn(GOLD), parse_penn(TEST)
    before = [t.to_penn() for t in gold + test]

    def flatten_vp_advp(tree):  # stands in for a named transformation of parseval.annotations.trees.transforms
        for node in tree.subtrees():
            if node.label == "S":
                kids = []
                for child in node.children:
                    if child.label == "VP":
                        kids.extend(child.children)
                    else:
                        kids.append(child)
                node.children = kids
        return tree

    plain = score_trees(gold, test, "evalb")["summary"]["all"]
    hooked = score_trees(gold, test, "evalb", transform=flatten_vp_advp)["summary"]["all"]
    assert plain["recall"] < 1.0 and hooked["recall"] == 1.0
    assert [t.to_penn() for t in gold + test] == before


def test_unknown_metric_and_parameter():
    with pytest.raises(ValueError):
        score_trees([], [], "bleu")
    with pytest.raises(TypeError):
        score_trees(parse_penn(GOLD), parse_penn(GOLD), "evalb", costs="strict")


def test_score_files_square_and_penn_agree(tmp_path):
    (tmp_path / "g.sq").write_text("[S [N1 two [N1 tax revision ] bills ] were passed ]\n")
    (tmp_path / "t.sq").write_text("[S [NP two tax revision bills ] were passed ]\n")
    sq = score_files(tmp_path / "g.sq", tmp_path / "t.sq", "leaf-ancestor")
    g = parse_square((tmp_path / "g.sq").read_text())
    t = parse_square((tmp_path / "t.sq").read_text())
    assert score_trees(g, t, "leaf-ancestor")["summary"] == sq["summary"]
    ev = score_files(tmp_path / "g.sq", tmp_path / "t.sq", "evalb")
    # brackets: gold S N1 N1, test S NP (bare words carry the empty tag)
    row = ev["sentences"][0]
    assert (row["matched"], row["gold_brackets"], row["test_brackets"], row["words"]) == (1, 3, 2, 6)
