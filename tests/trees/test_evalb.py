"""The evalb preset against evalb's own sample files and its classic cases."""
from __future__ import annotations

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.penn import parse_penn_lines
from parseval.evaluation.trees import score_files, score_trees
from parseval.evaluation.trees.evalb import COLLINS, EvalbParams, format_evalb, load_prm, parse_prm, read_evalb_text, score_evalb

GOLD = "(S (A (P this)) (B (Q is) (A (R a) (T test))))"

# What evalb prints for `evalb -p sample.prm sample.gld sample.tst`, worked out line by line
# from evalb.c (sample.prm deletes TOP -NONE- , : `` '' but not "."; EQ_LABEL T TT;
# EQ_WORD This this). Every gold line has S(0,4) A(0,1) B(1,4) A(2,4) = 4 brackets.
#  2: C for A(2,4) -> 3 matched.   3: tag U for T -> brackets right, 3/4 tags.
#  4: both.                        5: A(3,4) instead of A(2,4): inside it, so no crossing.
#  6: A(0,2) crosses gold B(1,4) -> 1 crossing; 3 test brackets, 2 matched.
#  7: only S.                      8: four trees on one line, no bracket at all: 0/0 -> 0.00.
#  9/10: unary chains A(2,4) twice / five times: one match, the copies only lower precision.
# 11, 14: empty test line -> skip (2).  12: "was" for "is" -> error (1).
# 13, 16, 17: one or two more test words ((U not), (NONE *) is not -NONE-) -> length error.
# 15: TOP deleted.  18: TT = T for tags.  19: This = this (EQ_WORD).  20: That -> error.
# 21: function tags A-SBJ-1, B-WHATEVER cut.  22: 44 words, 34 brackets: only in "All".
# 23: (-NONE- *) deleted and not counted in the length.  24: (: *) deleted but counts: length 5.
# Totals over the 17 valid sentences: gold 10*4 + 6*4 + 34 = 98, test 37 + 24 + 34 = 95,
# matched 28 + 24 + 34 = 86, words 16*4 + 44 = 108, tags 106; complete match 9/17;
# len<=40 drops sentence 22: 64 gold, 61 test, 52 matched, 64 words, 62 tags, 8/16 complete.
EXPECTED_SAMPLE = """\
  Sent.                        Matched  Bracket   Cross        Correct Tag
 ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy
============================================================================
   1    4    0  100.00 100.00     4      4    4      0      4     4   100.00
   2    4    0   75.00  75.00     3      4    4      0      4     4   100.00
   3    4    0  100.00 100.00     4      4    4      0      4     3    75.00
   4    4    0   75.00  75.00     3      4    4      0      4     3    75.00
   5    4    0   75.00  75.00     3      4    4      0      4     4   100.00
   6    4    0   50.00  66.67     2      4    3      1      4     4   100.00
   7    4    0   25.00 100.00     1      4    1      0      4     4   100.00
   8    4    0    0.00   0.00     0      4    0      0      4     4   100.00
   9    4    0  100.00  80.00     4      4    5      0      4     4   100.00
  10    4    0  100.00  50.00     4      4    8      0      4     4   100.00
  11    4    2    0.00   0.00     0      0    0      0      0     0     0.00
  12    4    1    0.00   0.00     0      0    0      0      0     0     0.00
  13    4    1    0.00   0.00     0      0    0      0      0     0     0.00
  14    4    2    0.00   0.00     0      0    0      0      0     0     0.00
  15    4    0  100.00 100.00     4      4    4      0      4     4   100.00
  16    4    1    0.00   0.00     0      0    0      0      0     0     0.00
  17    4    1    0.00   0.00     0      0    0      0      0     0     0.00
  18    4    0  100.00 100.00     4      4    4      0      4     4   100.00
  19    4    0  100.00 100.00     4      4    4      0      4     4   100.00
  20    4    1    0.00   0.00     0      0    0      0      0     0     0.00
  21    4    0  100.00 100.00     4      4    4      0      4     4   100.00
  22   44    0  100.00 100.00    34     34   34      0     44    44   100.00
  23    4    0  100.00 100.00     4      4    4      0      4     4   100.00
  24    5    0  100.00 100.00     4      4    4      0      4     4   100.00
============================================================================
                 87.76  90.53     86    98    95      1    108   106    98.15
=== Summary ===

-- All --
Number of sentence        =     24
Number of Error sentence  =      5
Number of Skip  sentence  =      2
Number of Valid sentence  =     17
Bracketing Recall         =  87.76
Bracketing Precision      =  90.53
Bracketing FMeasure       =  89.12
Complete match            =  52.94
Average crossing          =   0.06
No crossing               =  94.12
2 or less crossing        = 100.00
Tagging accuracy          =  98.15

-- len<=40 --
Number of sentence        =     23
Number of Error sentence  =      5
Number of Skip  sentence  =      2
Number of Valid sentence  =     16
Bracketing Recall         =  81.25
Bracketing Precision      =  85.25
Bracketing FMeasure       =  83.20
Complete match            =  50.00
Average crossing          =   0.06
No crossing               =  93.75
2 or less crossing        = 100.00
Tagging accuracy          =  96.88
"""


@pytest.fixture(scope="module")
def sample(shared_data):
    d = shared_data / "evalb-sample"
    return score_files(d / "sample.gld", d / "sample.tst", "evalb", params=d / "sample.prm")


def test_sample_text_report_is_evalbs(sample):
    assert format_evalb(sample) == EXPECTED_SAMPLE


def test_sample_summary_figures(sample):
    a, c = sample["summary"]["all"], sample["summary"]["cutoff"]
    assert (a["sentences"], a["errors"], a["skipped"], a["valid"]) == (24, 5, 2, 17)
    assert (a["matched"], a["gold_brackets"], a["test_brackets"]) == (86, 98, 95)
    assert a["recall"] == pytest.approx(86 / 98)
    assert a["precision"] == pytest.approx(86 / 95)
    assert round(100 * a["f"], 2) == 89.12
    assert a["exact_match"] == pytest.approx(9 / 17)
    assert a["avg_crossing"] == pytest.approx(1 / 17)
    assert a["no_crossing"] == pytest.approx(16 / 17)
    assert a["two_or_less_crossing"] == 1.0
    assert a["tagging_accuracy"] == pytest.approx(106 / 108)
    assert (c["sentences"], c["valid"], c["matched"], c["gold_brackets"], c["test_brackets"]) == (23, 16, 52, 64, 61)
    assert c["tagging_accuracy"] == pytest.approx(62 / 64)


def test_sample_statuses(sample):
    status = {row["index"]: row["status"] for row in sample["sentences"]}
    assert [i for i, s in status.items() if s == "error"] == [12, 13, 16, 17, 20]
    assert [i for i, s in status.items() if s == "skip"] == [11, 14]
    assert sample["sentences"][11]["message"] == "Words unmatch (is|was)"
    assert sample["sentences"][12]["message"] == "Length unmatch (4|5)"


def _one(gold: str, test: str, params: EvalbParams = COLLINS) -> dict:
    doc = score_evalb(parse_penn_lines(gold + "\n"), parse_penn_lines(test + "\n"), params)
    # evalb's line reader (kept brackets built while reading, or not, by EQ_LABEL) scores alike
    lines = score_evalb(read_evalb_text(gold + "\n", params), read_evalb_text(test + "\n", params), params)
    assert lines["sentences"] == doc["sentences"]
    return doc["sentences"][0]


def test_unary_chain_counts_as_a_multiset():
    row = _one(GOLD, "(S (A (P this)) (B (Q is) (A (A (A (R a) (T test))))))")
    assert (row["matched"], row["gold_brackets"], row["test_brackets"]) == (4, 4, 6)
    assert row["precision"] == pytest.approx(4 / 6) and row["recall"] == 1.0


def test_punctuation_deleted_with_its_word_but_counts_for_length():
    gold = "(S (NP (DT the) (NN cat)) (, ,) (VP (VBD sat)) (. .))"
    test = "(S (NP (DT the) (NN cat) (, ,)) (VP (VBD sat) (. .)))"
    row = _one(gold, test)  # COLLINS.prm: "," and "." deleted: NP(0,2) VP(2,3) S(0,3) on both sides
    assert (row["matched"], row["gold_brackets"], row["test_brackets"]) == (3, 3, 3)
    assert row["words"] == 3 and row["length"] == 5
    # with sample.prm "." is kept: the test VP now spans "sat ." and no longer matches
    row = _one(gold, test, EvalbParams(delete_labels=("TOP", "-NONE-", ",", ":", "``", "''")))
    assert (row["matched"], row["words"]) == (2, 4)


def test_eq_label_pairs():
    gold = "(S (NP (PRP he)) (VP (VBD gave) (PRT (RP up))))"
    test = "(S (NP (PRP he)) (VP (VBD gave) (ADVP (RP up))))"
    assert _one(gold, test)["matched"] == 4  # ADVP = PRT in COLLINS.prm
    assert _one(gold, test, EvalbParams())["matched"] == 3
    # pairwise, not transitive; also applies to tags
    params = parse_prm("EQ_LABEL A B\nEQ_LABEL B C\n")
    row = _one("(S (A (X x)) (D (Y y)))", "(S (C (X x)) (D (Y y)))", params)
    assert row["matched"] == 2
    row = _one("(S (A (X x)) (D (Y y)))", "(S (B (X x)) (D (C y)))", params)
    assert row["matched"] == 3
    row = _one("(S (X (A x)) (Y (B y)))", "(S (X (B x)) (Y (C y)))", params)
    assert row["correct_tags"] == 2


def test_eq_word_and_words_that_differ():
    params = parse_prm("EQ_WORD This this\n")
    assert _one(GOLD, GOLD.replace("this", "This"), params)["status"] == "ok"
    row = _one(GOLD, GOLD.replace("this", "That"), params)
    assert row["status"] == "error" and row["matched"] == 0


def test_cutoff_length_uses_gold_words_minus_delete_label_for_length():
    words = " ".join(f"(N w{i})" for i in range(41))
    long = f"(S (NP {words}) (-NONE- *))"
    params = EvalbParams(delete_labels=("-NONE-",), delete_labels_for_length=("-NONE-",), cutoff_len=40)
    doc = score_evalb(parse_penn_lines(long + "\n" + GOLD + "\n"), parse_penn_lines(long + "\n" + GOLD + "\n"), params)
    assert doc["sentences"][0]["length"] == 41
    assert doc["summary"]["all"]["sentences"] == 2 and doc["summary"]["cutoff"]["sentences"] == 1
    short = f"(S (NP {' '.join(f'(N w{i})' for i in range(40))}) (-NONE- *))"
    doc = score_evalb(parse_penn_lines(short + "\n"), parse_penn_lines(short + "\n"), params)
    assert doc["sentences"][0]["length"] == 40 and doc["summary"]["cutoff"]["sentences"] == 1


def test_quote_label_reinserts_a_quote_deleted_on_one_side(shared_data):
    new = load_prm(shared_data / "evalb-sample" / "new.prm")
    gold = "(S (NP (NP (NNS parents) ('' ')) (NN house)) (VP (VBZ is) (ADJP (JJ big))))"
    test = "(S (NP (NP (NNS parents) (POS ')) (NN house)) (VP (VBZ is) (ADJP (JJ big))))"
    row = _one(gold, test, new)
    assert row["status"] == "ok"
    assert (row["matched"], row["gold_brackets"], row["test_brackets"], row["words"]) == (5, 5, 5, 5)
    assert row["correct_tags"] == 4  # the re-inserted '' against POS
    assert _one(gold, test, COLLINS)["status"] == "error"  # COLLINS.prm has no QUOTE_LABEL


def test_max_error_stops_after_the_summary():
    gold = "\n".join([GOLD] * 6) + "\n"
    test = "\n".join([GOLD] + [GOLD.replace("this", "that")] * 5) + "\n"
    params = EvalbParams(max_error=2)
    doc = score_evalb(parse_penn_lines(gold), parse_penn_lines(test), params)
    # evalb.c Error(): `if (Error_count++ > Max_error) exit(1)`: errors 1, 2, 3 see a count of 0, 1, 2
    # (not > 2) and go on; the fourth sees 3 > 2 and stops. Sentences 2-4 are errors 1-3, sentence 5
    # is error 4: the run stops there.
    assert doc["summary"]["stopped"]["index"] == 5
    assert len(doc["sentences"]) == 5
    assert doc["summary"]["all"]["errors"] == 4 and doc["summary"]["all"]["valid"] == 1
    assert "MAX_ERROR=2" in doc["summary"]["stopped"]["message"]


def test_raise_mode_reports_file_line_sentence():
    g = parse_penn_lines(GOLD + "\n" + GOLD + "\n")
    t = parse_penn_lines(GOLD + "\n" + GOLD.replace("is", "was") + "\n")
    with pytest.raises(InputError) as info:
        score_trees(g, t, "evalb", on_error="raise", gold_file="g.txt", test_file="t.txt")
    p = info.value.problems[0]
    assert (p.file, p.line, p.sentence) == ("t.txt", 2, "2")
    with pytest.raises(InputError, match="different numbers of sentences"):
        score_trees(g, t[:1], "evalb", on_error="raise", gold_file="g.txt", test_file="t.txt")


def test_count_mismatch_in_skip_mode_scores_the_common_part():
    g = parse_penn_lines(GOLD + "\n" + GOLD + "\n")
    doc = score_trees(g, g[:1], "evalb")
    assert len(doc["sentences"]) == 1
    assert "too many lines in gold file" in doc["summary"]["problems"][0]["message"]


def test_malformed_line_is_an_error_sentence_in_skip_mode(tmp_path):
    (tmp_path / "g").write_text(GOLD + "\n" + GOLD + "\n")
    (tmp_path / "t").write_text(GOLD + ")\n" + GOLD + "\n")
    doc = score_files(tmp_path / "g", tmp_path / "t", "evalb")
    assert [r["status"] for r in doc["sentences"]] == ["error", "ok"]
    with pytest.raises(InputError) as info:
        score_files(tmp_path / "g", tmp_path / "t", "evalb", on_error="raise")
    assert info.value.problems[0].line == 1 and info.value.problems[0].file.endswith("t")


def test_collins_prm_file_equals_builtin(shared_data):
    assert load_prm(shared_data / "evalb-sample" / "COLLINS.prm") == COLLINS


def test_unlabelled_mode():
    row = _one(GOLD, "(S (C (P this)) (B (Q is) (D (R a) (T test))))", EvalbParams(labeled=False))
    assert row["matched"] == 4


def test_whole_treebank_against_itself(shared_data):
    from parseval.annotations.trees.penn import read_penn

    trees = read_penn(shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict")
    doc = score_trees(trees, trees, "evalb")
    a = doc["summary"]["all"]
    assert a["errors"] == 0 and a["recall"] == 1.0 and a["precision"] == 1.0 and a["tagging_accuracy"] == 1.0


def test_line_reader_keeps_outer_pair_as_evalb_does():
    (t,) = parse_penn_lines("( (S (A (P x)) (B (Q y))) )\n")
    doc = score_evalb([t], [t], EvalbParams())
    # evalb counts the outer pair as a bracket with an empty label: "" S A B
    assert doc["sentences"][0]["gold_brackets"] == 4
    (t,) = parse_penn_lines("( (S (A (P x)) (B (Q y))) )\n", strip_outer=True)
    assert score_evalb([t], [t], EvalbParams())["sentences"][0]["gold_brackets"] == 3


@pytest.mark.parametrize(
    "index, status, length, matched, gold, test, words, tags, why",
    [
        (9, "ok", 4, 4, 4, 5, 4, 4, "unary chain: A(2,4) twice, one copy unmatched"),
        (10, "ok", 4, 4, 4, 8, 4, 4, "unary chain of five A(2,4)"),
        (12, "error", 4, 0, 0, 0, 0, 0, "words differ: was / is"),
        (15, "ok", 4, 4, 4, 4, 4, 4, "TOP deleted"),
        (18, "ok", 4, 4, 4, 4, 4, 4, "EQ_LABEL T TT on the tag"),
        (19, "ok", 4, 4, 4, 4, 4, 4, "EQ_WORD This this"),
        (22, "ok", 44, 34, 34, 34, 44, 44, "longer than CUTOFF_LEN"),
        (23, "ok", 4, 4, 4, 4, 4, 4, "-NONE- deleted, not counted in the length"),
        (24, "ok", 5, 4, 4, 4, 4, 4, "':' deleted but counted in the length"),
    ],
)
def test_sample_classic_cases(sample, index, status, length, matched, gold, test, words, tags, why):
    row = sample["sentences"][index - 1]
    got = (row["status"], row["length"], row["matched"], row["gold_brackets"], row["test_brackets"],
           row["words"], row["correct_tags"])
    assert got == (status, length, matched, gold, test, words, tags), why


def test_sample_cutoff_excludes_only_the_long_sentence(sample):
    a, c = sample["summary"]["all"], sample["summary"]["cutoff"]
    assert a["sentences"] - c["sentences"] == 1
    assert a["gold_brackets"] - c["gold_brackets"] == 34


def test_punctuation_deletion_collins_versus_sample_prm(shared_data):
    # sample.prm does not delete ".", COLLINS.prm does: a test tree that attaches the final stop
    # inside the VP loses the VP and S matches only under sample.prm
    gold = "(S (NP (DT the) (NN cat)) (VP (VBD sat)) (. .))"
    test = "(S (NP (DT the) (NN cat)) (VP (VBD sat) (. .)))"
    d = shared_data / "evalb-sample"
    collins = _one(gold, test, load_prm(d / "COLLINS.prm"))
    sample_prm = _one(gold, test, load_prm(d / "sample.prm"))
    assert (collins["matched"], collins["words"]) == (3, 3)
    assert (sample_prm["matched"], sample_prm["words"]) == (2, 4)


def test_fast_text_path_equals_the_tree_path(shared_data, tmp_path):
    """read_evalb_text (used by score_files and the CLI) gives what parse_penn_lines + trees give.

    Well-formed lines only: a malformed line is read by evalb's rules on the text path only
    (see test_evalb_cases.py); the tree reader turns it into a BadSentence.
    """
    import random

    from parseval.annotations.trees.penn import read_penn
    from parseval.evaluation.trees.evalb import read_evalb_text

    d = shared_data / "evalb-sample"
    texts = [((d / "sample.gld").read_text(), (d / "sample.tst").read_text())]
    trees = read_penn(shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict", strip_outer=False)[:600]
    rng = random.Random(5)
    gold_lines = [t.to_penn() for t in trees]
    test_lines = []
    for line in gold_lines:  # damage some lines: drop a bracket pair, break the line, change a word
        r = rng.random()
        if r < 0.1:
            line = line.replace("(NP ", "(", 1).replace("(", "(XP ", 1)
        elif r < 0.16:
            line = line.replace(" le)", " el)", 1)
        elif r < 0.2:
            line = line.replace("(PONCT ,)", "(PONCT ')", 1).replace("(DET l')", "(DET ')", 1)
        test_lines.append(line)
    texts.append(("\n".join(gold_lines) + "\n", "\n".join(test_lines) + "\n\n"))
    for prm in ("sample.prm", "COLLINS.prm", "new.prm"):
        params = load_prm(d / prm)
        params.max_error = 10**6
        for gold_text, test_text in texts:
            slow = score_evalb(parse_penn_lines(gold_text, lenient=True), parse_penn_lines(test_text, lenient=True), params)
            fast = score_evalb(read_evalb_text(gold_text, params), read_evalb_text(test_text, params), params)
            assert fast == slow
