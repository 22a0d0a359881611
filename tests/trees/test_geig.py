"""geig1991: Black et al. (1991) worked examples."""
from __future__ import annotations

import json

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import parse_penn, parse_penn_lines
from parseval.annotations.trees.square import parse_square
from parseval.evaluation.trees import score_trees
from parseval.evaluation.trees.flatten import parse_rules
from parseval.evaluation.trees.geig import BLACK1991_EXAMPLE, PENN, erasures, geig_sentence, geig_summary, load_table, reduced, to_unlabelled

STANDARD = "[ [ The prospect ] [ of [ cutting back spending ] ] ]"
CANDIDATE = "[ The [ prospect [ of [ [ cutting back ] spending ] ] ] ]"


def test_paper_example():
    (s,) = parse_square(STANDARD)
    (c,) = parse_square(CANDIDATE)
    row = geig_sentence(s, c)
    assert (row["standard"], row["candidate"], row["matched"]) == (4, 5, 3)
    assert round(row["recall"], 3) == 0.750 and round(row["precision"], 3) == 0.600
    assert row["crossing"] == 1  # "prospect of cutting back spending" crosses "The prospect"


def test_five_sentence_macro_average():
    recalls = [(3, 4), (7, 8), (2, 4), (5, 8), (3, 4)]
    precisions = [(3, 5), (7, 10), (2, 5), (5, 10), (3, 5)]
    rows = [
        {"recall": r[0] / r[1], "precision": p[0] / p[1], "crossing": k}
        for r, p, k in zip(recalls, precisions, [1, 0, 2, 1, 0])
    ]
    summary = geig_summary(rows)
    assert round(summary["mean_recall"], 3) == 0.700
    assert round(summary["mean_precision"], 3) == 0.560
    assert summary["crossing_distribution"] == {"0": 2, "1": 2, "2": 1}
    # the macro average is not the pooled ratio: 20/28 = 0.714, 20/40 = 0.5
    assert round(sum(r[0] for r in recalls) / sum(r[1] for r in recalls), 3) != 0.700


ERASURE = (
    "(S (NP-s (PNP (PNP Miss) (PNP Xydis))) (VP (VPAST was) (ADJP (ADJ best))) "
    "(S (COMP (WHADVP (WHADV when))) (NP-s (PRO she)) (VP ((VPAST did) (NEG not) (V need)) "
    "(VP ((X to) (V be)) (ADJP (ADV too) (ADJ probing)))))) (? (FIN .))"
)


@pytest.mark.parametrize("text", [ERASURE, f"( {ERASURE} )"])
def test_erasure_example(text):
    # As printed in the spec the S closes before "(? (FIN .))": read the line as one sentence
    # (a forest of two trees in evalb's line layout), or wrapped in an outer unlabelled pair.
    (tree,) = parse_penn_lines(text + "\n")
    erase, moves = erasures(tree, BLACK1991_EXAMPLE)
    words = tree.words()
    assert [words[i] for i in sorted(erase)] == ["did", "not", "to", "."]
    result, spans = reduced(tree, erase, moves)
    assert to_unlabelled(result) == "((Miss Xydis) (was best) (when she (need (be (too probing)))))"
    assert len(spans) == 7


@pytest.mark.parametrize(
    "penn, erased, bracketing",
    [
        ("(S (NP (PRP he)) (VP (VBZ has) (VP (VBN been) (VP (VBG laughing)))))", ["has", "been"], "(he laughing)"),
        ("(S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ blue))))", [], "(it (is blue))"),
        ("(S (NP (PRP he)) (VP (VBZ has) (NP (DT a) (NN dollar))))", [], "(he (has (a dollar)))"),
        ("(S (NP (PRP he)) (VP (MD would) (VP (VB go))))", ["would"], "(he go)"),
        (  # the stranded adverb joins the verb phrase
            "(S (NP (PRP he)) (VP (MD will) (ADVP (RB probably)) (VP (VB go) (ADVP (RB home)))) (. .))",
            ["will", "."],
            "(he (probably go home))",
        ),
        (
            "(S (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB want) (S (VP (TO to) (VP (VB go)))))))",
            ["do", "n't", "to"],
            "(I (want go))",
        ),
        ("(NP (NP (NNP John) (POS 's)) (NN book) (-NONE- *))", ["'s", "*"], "(John book)"),
        ("(S (NP (PRP I)) (VP (VBD went) (PP (TO to) (NP (NNP Paris)))))", [], "(I (went (to Paris)))"),
    ],
)
def test_penn_erasure_rules(penn, erased, bracketing):
    (tree,) = parse_penn(penn)
    erase, moves = erasures(tree, PENN)
    assert [tree.words()[i] for i in sorted(erase)] == erased
    assert to_unlabelled(reduced(tree, erase, moves)[0]) == bracketing


def test_erasure_in_either_tree_applies_to_both():
    (g,) = parse_penn("(S (NP (PRP he)) (VP (VBZ has) (VP (VBN gone))))")
    (t,) = parse_penn("(S (NP (PRP he)) (VP (VBZ has) (NP (NN gone))))")  # candidate: "has" a main verb
    row = geig_sentence(g, t)
    # "has" erased in both: standard (he gone); candidate (he gone) after reduction
    assert row["recall"] == 1.0 and row["precision"] == 1.0


def test_rewrite_rules_and_table_file(tmp_path):
    (g,) = parse_penn("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))")
    (t,) = parse_penn("(S (NP (DT the) (NN cat)) (VP (VBD sat) (IN on) (NP (DT the) (NN mat))))")
    plain = geig_sentence(g, t)
    assert plain["recall"] == pytest.approx(4 / 5)
    rules = parse_rules("(VP VBD PP^)")  # this grammar does not bracket PPs under VP
    assert geig_sentence(g, t, rules=rules)["recall"] == 1.0
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"verbal_tags": ["VPAST", "V"], "negation_tags": ["NEG"], "punctuation_tags": ["FIN"]}))
    table = load_table(path)
    assert table.verbal_tags == frozenset({"VPAST", "V"}) and table.name == "table.json"
    path.write_text(json.dumps({"verbs": ["V"]}))
    with pytest.raises(InputError, match="unknown erasure table keys"):
        load_table(path)


def test_score_trees_document():
    gold = parse_square(STANDARD + "\n" + STANDARD)
    test = parse_square(CANDIDATE + "\n" + STANDARD)
    doc = score_trees(gold, test, "geig1991")
    assert doc["metric"] == "geig1991" and doc["signature"].startswith("metric:geig1991|")
    assert [r["index"] for r in doc["sentences"]] == [1, 2]
    assert set(doc["sentences"][0]) >= {"index", "recall", "precision", "crossing"}
    s = doc["summary"]
    assert s["mean_recall"] == pytest.approx((0.75 + 1) / 2)
    assert s["mean_precision"] == pytest.approx((0.6 + 1) / 2)
    assert s["crossing_distribution"] == {"0": 1, "1": 1}


def test_words_differ_is_reported():
    gold = parse_square(STANDARD)
    test = parse_square(CANDIDATE.replace("spending", "spendings"))
    with pytest.raises(InputError) as info:
        score_trees(gold, test, "geig1991", test_file="cand.txt", test_lines=[3])
    p = info.value.problems[0]
    assert (p.file, p.line, p.sentence) == ("cand.txt", 3, "1")
    doc = score_trees(gold, test, "geig1991", on_error="skip")
    assert doc["sentences"][0]["status"] == "error" and doc["summary"]["errors"] == 1


GEIG_PROBABLY_NOT = "(S (NP (PRP He)) (VP (MD could) (ADVP (RB probably)) (RB not) (VP (VB go) (ADVP (RB home)))))"


def test_stranded_adverb_before_negation():
    """Black et al. (1991): *He could probably not go home* -> (He (probably go home)), two brackets.

    Erasure positions are numbered on the original words: He 0, could 1, probably 2, not 3, go 4,
    home 5; "could" (auxiliary before the VP) and "not" (negation) are erased: {1, 3}. The stranded
    adverb "probably" then moves to the front of the inner VP; had the positions been counted again
    after the move (He, could, not, probably, ...), position 3 would be "probably" and "not" would
    stay. Reduction: ADVP(probably) and ADVP(home) are one word each, the outer VP is left with one
    constituent; what remains is S(0,4) = (He ...) and the inner VP(1,4) = (probably go home).
    """
    (tree,) = parse_penn(GEIG_PROBABLY_NOT)
    erase, moves = erasures(tree, PENN)
    assert [tree.words()[i] for i in sorted(erase)] == ["could", "not"]
    reduced_tree, spans = reduced(tree, erase, moves)
    assert to_unlabelled(reduced_tree) == "(He (probably go home))"
    assert spans == {(0, 4), (1, 4)}
    row = geig_sentence(tree, tree)
    assert (row["standard"], row["candidate"], row["matched"]) == (2, 2, 2)


# -- the readings this project takes where Black et al. (1991) are silent ----------------------------
def test_negation_is_recognised_by_its_word_whatever_its_tag_in_the_penn_table():
    """The penn table has no negation tag, so *not* tagged NN (a tagger's slip) is still negation:
    erased, and looked past by the auxiliary rule ("do" before "not go" is an auxiliary). The
    paper's example table has a NEG tag: there *not* must be tagged NEG or an adverb, or be
    untagged, to count, and a *not* tagged NN stays (and stops "do" being an auxiliary)."""
    (tree,) = parse_penn("(S (NP (PRP I)) (VP (VBP do) (NN not) (VP (VB go))))")
    erase, moves = erasures(tree, PENN)
    assert [tree.words()[i] for i in sorted(erase)] == ["do", "not"]
    assert to_unlabelled(reduced(tree, erase, moves)[0]) == "(I go)"
    assert erasures(tree, BLACK1991_EXAMPLE)[0] == set()


def test_untagged_possessive_and_to_are_read_as_such():
    """A bare word (no preterminal) has the empty tag: an untagged *'s* is a possessive ending
    (erased), an untagged *to* before a verbal sister is infinitival *to* (erased), and an untagged
    *to* before a noun phrase is a preposition (kept)."""
    cases = [
        ("(S (NP (NP (NNP John) 's) (NN book)))", ["'s"], "(John book)"),
        ("(S (NP (PRP I)) (VP (VBP want) (S (VP to (VP (VB go))))))", ["to"], "(I (want go))"),
        ("(S (NP (PRP I)) (VP (VBD went) (PP to (NP (NNP Paris)))))", [], "(I (went (to Paris)))"),
    ]
    for penn, erased, bracketing in cases:
        (tree,) = parse_penn(penn)
        erase, moves = erasures(tree, PENN)
        assert [tree.words()[i] for i in sorted(erase)] == erased, penn
        assert to_unlabelled(reduced(tree, erase, moves)[0]) == bracketing, penn


def test_a_side_with_no_bracket_left_scores_one():
    """After reduction a one-word sentence has no bracket on either side: recall = precision = 1.0
    (nothing missed, nothing wrong), and these 1.0s enter the macro means. A candidate that is two
    trees on one line (a forest: the line is no bracket) against the gold (John sleeps): recall
    0/1 = 0, precision 1.0 (no candidate bracket, so none is wrong). Means over the two sentences:
    recall (1 + 0) / 2 = 0.5, precision (1 + 1) / 2 = 1.0."""
    (one,) = parse_penn("(S (UH Yes))")
    row1 = geig_sentence(one, one.copy())
    assert (row1["standard"], row1["candidate"], row1["recall"], row1["precision"]) == (0, 0, 1.0, 1.0)
    (gold,) = parse_penn("(S (NP (NNP John)) (VP (VBZ sleeps)))")
    (forest,) = parse_penn_lines("(NNP John) (VBZ sleeps)\n")
    row2 = geig_sentence(gold, forest)
    assert (row2["standard"], row2["candidate"], row2["recall"], row2["precision"]) == (1, 0, 0.0, 1.0)
    summary = geig_summary([row1, row2])
    assert (summary["mean_recall"], summary["mean_precision"]) == (0.5, 1.0)
