"""The evalb preset on the cases where it used to differ from evalb.c (issue: exactly evalb).

Each expected line is derived from evalb.c (the 2006 distribution with Mark Johnson's
QUOTE_LABEL code, as in nikitakit/self-attentive-parser EVALB/); the reasoning is written
beside it. evalb's per-sentence line is

    printf("%4d  %3d    %d  ", Line, r_wn1, Status);
    printf("%6.2f %6.2f   %3d    %3d  %3d    %3d", recall, precision, match, r_bn1, r_bn2, crossing);
    printf("   %4d  %4d   %6.2f\\n", wn1, correct_tag, tag accuracy);
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.detect import detect_layout, read_sentences
from parseval.annotations.trees.penn import parse_penn, parse_penn_lines
from parseval.evaluation.trees import score_files
from parseval.evaluation.trees.evalb import COLLINS, EvalbParams, EvalbScorer, _read_line, _read_plain, format_evalb, load_prm, parse_prm, read_evalb_text, score_evalb
from tests.conftest import sequoia_mrg

REPO = Path(__file__).resolve().parents[2]
GOLD = "(S (A (P this)) (B (Q is) (A (R a) (T test))))"


def _evalb(tmp_path, gold: str, test: str, prm: str | None = None, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "g").write_bytes(gold.encode("utf-8", "surrogateescape") if isinstance(gold, str) else gold)
    (tmp_path / "t").write_bytes(test.encode("utf-8", "surrogateescape") if isinstance(test, str) else test)
    args = [sys.executable, "-m", "evaluation", "trees", "--metric", "evalb",
            "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), *extra]
    if prm is not None:
        (tmp_path / "p.prm").write_bytes(prm.encode("utf-8") if isinstance(prm, str) else prm)
        args += ["--param", str(tmp_path / "p.prm")]
    return subprocess.run(args, cwd=REPO, capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def _rows(stdout: bytes) -> list[str]:
    lines = stdout.decode("utf-8", "surrogateescape").splitlines()
    return lines[3:lines.index("=" * 76, 3)]


# -- 1. quote repair with QUOTE_LABEL ------------------------------------------------------
def test_quote_repair_compares_with_the_saved_index(tmp_path, shared_data):
    """new.prm deletes '' but not POS; QUOTE_LABEL lists both.

    gold  (S (NP (NN x)) (X (POS ') (POS ')) (NP (NN y)))   words x ' ' y, quotes POS@1, POS@2
    test  (S (NP (NN x)) (X ('' ') (POS ')) (NP (NN y)))    words x ' y,   quotes ''@1 (deleted), POS@1

    4 != 3 words: fix_quote. Test quote 0 (''), ind = 1 saved: gold quote 0 (POS@1) has that index
    and another label, the test one is deleted and the gold one is not: re-insert "'" into the
    test at 1 (test quotes move to 2, 2). Gold quote 1 (POS@2) is compared with the *saved* 1:
    no match. Test quote 1 (POS, now 2) meets gold POS@2: same label, nothing. 4 = 4 words.
    (Comparing with the moving index, 2, re-inserted the quote a second time: Length unmatch
    (4|5), the old behaviour.) The re-insertion shifts the test brackets opened after the quote
    (the last NP: (2,3) -> (3,4)) and the ends of those open around it (S, X): S(0,4) NP(0,1)
    X(1,3) NP(3,4) on both sides, 4/4 matched; the tags differ at the quote ('' vs POS): 3/4.
    """
    prm = (shared_data / "evalb-sample" / "new.prm").read_text()
    proc = _evalb(tmp_path, "(S (NP (NN x)) (X (POS ') (POS ')) (NP (NN y)))\n",
                  "(S (NP (NN x)) (X ('' ') (POS ')) (NP (NN y)))\n", prm)
    assert proc.returncode == 0, proc.stderr
    assert _rows(proc.stdout) == ["   1    4    0  100.00 100.00     4      4    4      0      4     3    75.00"]


# -- 2. MAX_ERROR --------------------------------------------------------------------------
def test_max_error_tolerates_one_more_error_than_its_value(tmp_path):
    """Error(): `if (Error_count++ > Max_error) exit(1)`. With MAX_ERROR 10 the n-th error sees a
    count of n - 1: errors 1..11 see 0..10 (not > 10) and evalb goes on to print the full report;
    the 12th sees 11 > 10 and stops. Eleven error lines and one good line: a complete report."""
    bad = GOLD.replace("this", "that")
    proc = _evalb(tmp_path, (GOLD + "\n") * 12, (bad + "\n") * 11 + GOLD + "\n", "MAX_ERROR 10\n")
    out = proc.stdout.decode()
    assert proc.returncode == 0
    assert len(_rows(proc.stdout)) == 12
    assert "Number of Error sentence  =     11" in out and "Number of Valid sentence  =      1" in out
    # twelve errors: the twelfth stops the run (we still print the summary of what was read, exit 1)
    proc = _evalb(tmp_path, (GOLD + "\n") * 13, (bad + "\n") * 12 + GOLD + "\n", "MAX_ERROR 10\n")
    assert proc.returncode == 1
    assert len(_rows(proc.stdout)) == 12
    assert b"stopped at sentence 12" in proc.stderr


# -- 3. white space: C isspace only ----------------------------------------------------------
NBSP = "\u00a0"


def test_no_break_space_is_part_of_a_word():
    """isspace() in the C locale is true for " \\t\\n\\v\\f\\r" only. A no-break space (UTF-8 C2 A0)
    is two ordinary bytes for evalb: `(CD 10 000)` with U+00A0 is one word of length 1."""
    line = f"(S (NP (CD 10{NBSP}000) (NNS euros)) (VP (VBP arrive)))"
    (side,) = read_evalb_text(line + "\n", COLLINS)
    assert side.words == [f"10{NBSP}000", "euros", "arrive"] and side.length == 3
    gold = parse_penn_lines(line + "\n")
    test = parse_penn_lines(line.replace(f"10{NBSP}000", f"10{NBSP}001") + "\n")
    row = score_evalb(gold, test, COLLINS)["sentences"][0]
    assert row["message"] == f"Words unmatch (10{NBSP}000|10{NBSP}001)"


@pytest.mark.parametrize("char", [NBSP, "\u202f", "\u2028", "\u0085", "\x1c", "\x1f"])
def test_penn_reader_splits_on_c_space_only(char):
    """The Penn reader in general: the same six separators; other characters stay in the token,
    and U+2028 / U+0085 do not end a line of a tree-layout file either."""
    (tree,) = parse_penn(f"(S (NP (NN a{char}b))\n (VP (VB c\td)))")
    assert tree.words() == [f"a{char}b", "c", "d"] or tree.words() == [f"a{char}b", "c\td"]
    assert tree.words()[0] == f"a{char}b"
    (line,) = parse_penn_lines(f"(S (NN a{char}b) (VB c))\n")
    assert line.words() == [f"a{char}b", "c"]


# -- 4. "( )" --------------------------------------------------------------------------------
def test_empty_parse_line_is_one_empty_word(tmp_path):
    """read_line on "( )": '(' then an empty label (a space follows); isspace(*q): skip it, read a
    word up to the next terminator: "" and *q == ')': a terminal with an empty word. wn2 = 1, so
    not a skip (wn2 == 0); 4 != 1 words: "Length unmatch (4|1)", status 1, zeros, length r_wn1 = 4.
    An empty line (wn2 = 0) is a skip, status 2."""
    proc = _evalb(tmp_path, (GOLD + "\n") * 2, "( )\n\n", None)
    assert _rows(proc.stdout) == [
        "   1    4    1    0.00   0.00     0      0    0      0      0     0     0.00",
        "   2    4    2    0.00   0.00     0      0    0      0      0     0     0.00",
    ]
    assert b"1 : Length unmatch (4|1)" in proc.stderr


# -- 5. malformed gold line over CUTOFF_LEN -------------------------------------------------------
def test_malformed_long_gold_line_keeps_its_length(tmp_path):
    """A 41-word gold line whose S is never closed. read_line reads all 41 terminals (len = 41),
    then reports "Bracketing is unbalanced (too many open bracket)" (status 1) and the pair is
    still scored: gold brackets S(0,-1) (end left at init's -1) and NP(0,41), test S(0,41) and
    NP(0,41). NP matches, S(0,-1) matches nothing: 1 of 2 and 1 of 2 = 50.00 / 50.00; no
    crossing (an end of -1 crosses nothing); 41 words, 41 tags. r_wn1 = 41 > 40: the sentence
    is counted in "All" only, not in the len<=40 block (it used to be counted there with length 0)."""
    words = " ".join(f"(N w{i})" for i in range(41))
    proc = _evalb(tmp_path, f"(S (NP {words})\n", f"(S (NP {words}))\n", None)
    assert _rows(proc.stdout) == ["   1   41    1   50.00  50.00     1      2    2      0     41    41   100.00"]
    out = proc.stdout.decode()
    cut = out[out.index("-- len<=40 --"):]
    assert "Number of sentence        =      0" in cut
    assert "Number of Error sentence  =      1" in out[:out.index("-- len<=40 --")]


# -- 6. layout ------------------------------------------------------------------------------------
def test_indented_line_and_empty_line_stay_line_layout(tmp_path):
    """A parser's output: one line starts with spaces, one line is empty (a failure). Every
    line is balanced on its own, so it is evalb's layout: the empty line stays sentence 2
    (a skip) and sentence 3 is still paired with gold line 3."""
    test = f"  {GOLD}\n\n{GOLD}\n"
    assert detect_layout(test) == "lines"
    (tmp_path / "g").write_text((GOLD + "\n") * 3)
    (tmp_path / "t").write_text(test)
    doc = score_files(tmp_path / "g", tmp_path / "t", "evalb")
    assert [r["status"] for r in doc["sentences"]] == ["ok", "skip", "ok"]


def test_ambiguous_layout_is_refused(tmp_path, shared_data):
    """Mostly one-line sentences, an empty line, and a tree broken over two lines: line layout
    (empty line = a sentence, two malformed lines) and tree layout (empty line = separator)
    pair the sentences differently. No guess: an error that asks for --layout."""
    text = f"{GOLD}\n\n(S (A (P this))\n (B (Q is) (A (R a) (T test))))\n{GOLD}\n{GOLD}\n"
    (tmp_path / "t").write_text(text)
    with pytest.raises(InputError, match="--layout"):
        read_sentences(tmp_path / "t")
    sents, _ = read_sentences(tmp_path / "t", layout="trees")
    assert len(sents) == 4
    # a real .mrg file (indented, blank lines between multi-line trees) is still tree layout
    assert detect_layout(sequoia_mrg("annodis", 4)) == "trees"
    proc = _evalb(tmp_path, (GOLD + "\n") * 5, text, None)
    assert proc.returncode == 2 and b"--layout" in proc.stderr


def test_layout_guessed_from_the_first_lines_is_confirmed_to_the_end(tmp_path):
    """The layout is guessed from the first 64 KiB and confirmed while streaming; what comes later can
    still overrule the guess, and then the result is what deciding on the whole file gives, with nothing
    of the guessed run written before it."""
    head = (GOLD + "\n") * 2000  # 94 KB of line layout
    broken = "(S (A (P this))\n (B (Q is) (A (R a) (T test))))\n"
    gold = head + GOLD + "\n"
    # a tree over two lines at the end: the whole file is balanced, so it is tree layout
    as_trees = _evalb(tmp_path, gold, head + broken.rstrip("\n"))
    told = _evalb(tmp_path, gold, head + broken.rstrip("\n"), None, "--layout", "trees")
    assert as_trees.returncode == told.returncode == 0 and as_trees.stdout == told.stdout
    assert as_trees.stderr == told.stderr and len(_rows(as_trees.stdout)) == 2001
    # the same with a final line end, which the tree reader counts as an empty line: ambiguous, refused,
    # and no report was written
    ambiguous = _evalb(tmp_path, gold, head + broken)
    assert ambiguous.returncode == 2 and b"--layout" in ambiguous.stderr and ambiguous.stdout == b""
    # a malformed line at the end of a line file: the guess holds (one error sentence)
    malformed = _evalb(tmp_path, gold, head + "(S (A (P this)\n", None, "--json", str(tmp_path / "j.json"))
    json_guessed = (tmp_path / "j.json").read_bytes()
    told = _evalb(tmp_path, gold, head + "(S (A (P this)\n", None, "--layout", "lines", "--json",
                  str(tmp_path / "j.json"))
    assert malformed.stdout == told.stdout and malformed.stderr == told.stderr and malformed.returncode == 0
    assert json_guessed == (tmp_path / "j.json").read_bytes() and b'"error"' in json_guessed
    assert _rows(malformed.stdout)[-1].split()[:3] == ["2001", "4", "1"]  # sentence 2001: an error of its own


# -- 7. Latin-1 ------------------------------------------------------------------------------
def test_latin1_files_score_as_bytes(tmp_path):
    """evalb reads bytes: a Latin-1 "été" is the bytes E9 74 E9, equal to itself and different
    from "ete". No decoding error, no traceback; the message shows the bytes as read."""
    gold = "(S (NP (NN \xe9t\xe9)) (VP (VB fini)))\n" * 2
    test = "(S (NP (NN \xe9t\xe9)) (VP (VB fini)))\n(S (NP (NN ete)) (VP (VB fini)))\n"
    proc = _evalb(tmp_path, gold.encode("latin-1"), test.encode("latin-1"), None, "--json", str(tmp_path / "o.json"))
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert _rows(proc.stdout) == [
        "   1    2    0  100.00 100.00     3      3    3      0      2     2   100.00",
        "   2    2    1    0.00   0.00     0      0    0      0      0     0     0.00",
    ]
    assert b"2 : Words unmatch (\xe9t\xe9|ete)" in proc.stderr
    doc = json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))  # valid UTF-8 JSON
    assert doc["sentences"][1]["message"] == "Words unmatch (\udce9t\udce9|ete)"


def test_latin1_with_transform_is_a_located_error(tmp_path):
    (tmp_path / "g").write_bytes(b"(S (NN x))\n(S (NN \xe9))\n")
    with pytest.raises(InputError, match="not UTF-8") as info:
        read_sentences(tmp_path / "g")
    assert info.value.problems[0].line == 2


# -- 8. .prm lines ---------------------------------------------------------------------------------
def test_prm_leading_space_or_tab_names_no_keyword():
    """read_parameter_file: `for(i=0;!isspace(buff[i]);i++);` stops at once on a leading blank,
    so set_param() gets the whole line as keyword: no STRNCMP matches, "Unknown keyword ( ...)
    in parameter file", and the line is ignored (no garbage label "L X", no error)."""
    p = parse_prm(" DELETE_LABEL X\n\tDELETE_LABEL Y\n MAX_ERROR 3\nDELETE_LABEL Z\n")
    assert p.delete_labels == ("Z",) and p.max_error == 10
    messages = [w.message for w in p.warnings]
    assert messages == ["Unknown keyword ( DELETE_LABEL X) in parameter file",
                        "Unknown keyword (\tDELETE_LABEL Y) in parameter file",
                        "Unknown keyword ( MAX_ERROR 3) in parameter file"]


def test_prm_values_read_like_evalb():
    """atoi: "5 # five" is 5; the value after a tab is the value; an empty DELETE_LABEL value is
    warned about and still added (it deletes unlabelled brackets); DEBUG 1 is said unsupported."""
    p = parse_prm("MAX_ERROR 5 # five\nDELETE_LABEL\tTOP\nDELETE_LABEL\nDEBUG 1\nCUTOFF_LEN x\n")
    assert p.max_error == 5 and p.delete_labels == ("TOP", "") and p.cutoff_len == 0
    messages = " | ".join(w.message for w in p.warnings)
    assert "MAX_ERROR value '5 # five' read as 5" in messages
    assert "Empty value in parameter file" in messages
    assert "DEBUG 1: evalb's debug tables are not supported" in messages
    assert "CUTOFF_LEN value 'x' read as 0" in messages


def test_prm_warnings_reach_stderr(tmp_path):
    proc = _evalb(tmp_path, GOLD + "\n", GOLD + "\n", " DELETE_LABEL X\nDEBUG 1\n")
    assert proc.returncode == 0
    assert b"Unknown keyword ( DELETE_LABEL X) in parameter file" in proc.stderr
    assert b"not supported" in proc.stderr


# -- 9. the line-count warning -------------------------------------------------------------------
def test_too_many_lines_names_the_file_that_has_them(tmp_path):
    """evalb: "Number of lines unmatch (too many lines in test file)" after the last gold line.
    The warning points at the test file, at its first extra line (gold has 1 line: line 2)."""
    proc = _evalb(tmp_path, GOLD + "\n", (GOLD + "\n") * 3, None)
    err = proc.stderr.decode()
    assert f"warning: {tmp_path / 't'}, line 2: different numbers of sentences" in err
    assert "(too many lines in test file)" in err
    proc = _evalb(tmp_path, (GOLD + "\n") * 3, GOLD + "\n", None)
    err = proc.stderr.decode()
    assert f"warning: {tmp_path / 'g'}, line 2: different numbers of sentences" in err
    assert "(too many lines in gold file)" in err


# -- the streamed command line and the two readers ------------------------------------------------
def test_streamed_json_is_the_document(tmp_path, shared_data):
    """The command line writes the JSON row by row; it is byte for byte json.dumps(doc, indent=1)
    of the in-memory document, and its text report is format_evalb of that document."""
    d = shared_data / "evalb-sample"
    out = tmp_path / "o.json"
    proc = subprocess.run(
        [sys.executable, "-m", "evaluation", "trees", "--metric", "evalb", "--gold", str(d / "sample.gld"),
         "--test", str(d / "sample.tst"), "--param", str(d / "sample.prm"), "--json", str(out)],
        cwd=REPO, capture_output=True,
    )
    doc = score_files(d / "sample.gld", d / "sample.tst", "evalb", params=d / "sample.prm")
    assert out.read_text() == json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    assert proc.stdout.decode() == format_evalb(doc)


def test_plain_reader_equals_the_general_reader(shared_data):
    """_read_plain (str methods) and _read_line (one regex) read every line alike: Sequoia lines
    (as shipped and as re-written by our writer), plus damaged copies (tabs, an extra or missing bracket, "( )", a word
    outside a terminal, "(X )", a space before a closing bracket)."""
    import random

    from parseval.annotations.trees.penn import read_penn

    seq = (shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict").read_text(encoding="utf-8")
    lines = [t.to_penn() for t in read_penn(shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict",
                                            strip_outer=False)[1500:2500]]
    lines += [s for s in seq.split("\n") if s.strip()][:1500]
    rng = random.Random(12)
    damaged = []
    for line in lines:
        r = rng.random()
        if r < 0.1:
            damaged.append(line.replace(" ", "\t", 2))
        elif r < 0.15:
            damaged.append(line + ")")
        elif r < 0.2:
            damaged.append(line[:-1])
        elif r < 0.25:
            damaged.append(line.replace(")", " )", 3))
        elif r < 0.3:
            damaged.append(line.replace(") (", ") w (", 1))
        elif r < 0.35:
            damaged.append(line.replace("(", "( ", 2))
    damaged += ["( )", "(X )", "(X)", "()", "(S (X a b))", "", "   ", "(S (X a ))", "(S (NN  cat))",
                "(S (X a) b)", "(S (X a)b)", "(S (X a)(Y b))", "(S(X a))", "w (S (X a))", "(S (X a)))", "(S (X a)",
                "(S(X a b))", "(NP  (DT a))", "(S (X ))", "  (S (X a))", "(S (X a)) ", "(S (X) a)", "(S (X) (Y a b))",
                "( (S (X a) ) )", "(S (X a(Y) b))", "(S (X a)) (T (Y b))", "(S (, ,) (TOP x) (-NONE- *))", "(S ( a))"]
    params = load_prm(shared_data / "evalb-sample" / "COLLINS.prm")
    delete, delete_len = frozenset(params.delete_labels), frozenset(params.delete_labels_for_length)
    scorer = EvalbScorer(params)
    assert scorer._canon is not None  # COLLINS.prm's one EQ_LABEL pair: bracket order does not matter
    plain_used = 0
    for line in lines + damaged:
        slow = _read_line(line, delete, delete_len, frozenset())
        fast = _read_plain(line, delete, delete_len)
        if fast is None:
            continue
        plain_used += 1
        got = (fast.words, fast.tags, fast.brackets, fast.length, fast.error)
        assert got == (slow.words, slow.tags, slow.brackets, slow.length, slow.error), line
        # with the label table, the scorer's kept brackets come straight from the reader (closing order)
        direct = _read_plain(line, delete, delete_len, kept=scorer._kept_cache)
        assert direct.brackets is None and direct.kept_by is scorer._kept_cache
        assert (direct.words, direct.tags, direct.length) == (slow.words, slow.tags, slow.length), line
        assert sorted(direct.kept) == sorted(scorer._kept(slow)), line
    assert plain_used > len(lines) * 0.95


def test_c_space_separators_are_not_line_breaks_for_evalb(tmp_path):
    """Only \\n ends an evalb line: a form feed or U+2028 inside a line leaves it one sentence."""
    proc = _evalb(tmp_path, f"(S (A (P th\u2028is)) (B (Q is)))\n{GOLD}\n", f"(S (A (P th\u2028is))\f(B (Q is)))\n{GOLD}\n")
    assert proc.returncode == 0
    assert [r.split()[2] for r in _rows(proc.stdout)] == ["0", "0"]


def test_default_params_collins(tmp_path):
    # no --param: COLLINS.prm's values, and the stream gives what score_files gives
    (tmp_path / "g").write_text((GOLD + "\n") * 2)
    (tmp_path / "t").write_text(GOLD + "\n" + GOLD.replace("(A (R a)", "(C (R a)") + "\n")
    doc = score_files(tmp_path / "g", tmp_path / "t", "evalb")
    assert doc["params"] == COLLINS.as_dict() and EvalbParams().as_dict() != COLLINS.as_dict()
    proc = _evalb(tmp_path, (GOLD + "\n") * 2, GOLD + "\n" + GOLD.replace("(A (R a)", "(C (R a)") + "\n")
    assert proc.stdout.decode() == format_evalb(doc)


# -- 10. a test file with no tree, lines over evalb's buffer, a keyword with no value -------------
_SKIP_ROW = "   {}    {}    2    0.00   0.00     0      0    0      0      0     0     0.00"


@pytest.mark.parametrize("layout", [(), ("--layout", "lines")])
def test_a_test_file_of_failures_only_is_scored_as_evalb_does(tmp_path, layout):
    """evalb.c main(): for each gold line, fgets a test line; calc_result: wn2 == 0 -> Status 2,
    individual_result(0, ...): a skip row with r_wn1 the gold length (4, then 2). The blank and the
    whitespace-only test lines are both wn2 = 0. The third gold line finds no test line: Error
    ("Number of lines unmatch (too many lines in gold file)") and break, so no row and no error
    sentence (TOTAL_error_sent counts rows only), then print_total: 2 sentences, 2 skips, 0 valid,
    every figure 0.00 (evalb prints nan for the F-measure, we print 0.00). Exit 0."""
    gold = GOLD + "\n(S (A (P one)) (B (Q two)))\n" + GOLD + "\n"
    proc = _evalb(tmp_path, gold, "\n \t \n", None, *layout)
    assert proc.returncode == 0, proc.stderr
    assert _rows(proc.stdout) == [_SKIP_ROW.format(1, 4), _SKIP_ROW.format(2, 2)]
    out = proc.stdout.decode()
    assert "Number of sentence        =      2\nNumber of Error sentence  =      0\n" \
           "Number of Skip  sentence  =      2\nNumber of Valid sentence  =      0\n" in out
    err = proc.stderr.decode()
    assert f"warning: {tmp_path / 'g'}, line 3: different numbers of sentences" in err
    assert "(too many lines in gold file)" in err


def test_a_0_byte_test_file_gives_evalbs_warning_and_a_zero_summary(tmp_path):
    """0 bytes: the first fgets on the test file returns NULL at gold line 1, so evalb prints
    "1 : Number of lines unmatch (too many lines in gold file)" on stderr, breaks, and prints the
    table with no row and a summary of zeros: 0 sentences; the totals line has no bracket part
    (TOTAL_bn1 = 0) and reads "      0     0     0.00". An empty gold file stays refused (exit 2)."""
    proc = _evalb(tmp_path, GOLD + "\n", "", None)
    assert proc.returncode == 0, proc.stderr
    assert _rows(proc.stdout) == []
    out = proc.stdout.decode()
    assert "=" * 76 + "\n      0     0     0.00\n=== Summary ===" in out
    assert "Number of sentence        =      0\n" in out
    assert f"warning: {tmp_path / 'g'}, line 1: different numbers of sentences" in proc.stderr.decode()
    assert "(too many lines in gold file)" in proc.stderr.decode()
    proc = _evalb(tmp_path, "", GOLD + "\n", None)
    assert proc.returncode == 2 and "empty input: no tree found" in proc.stderr.decode()
    # in memory too (the path the bootstrap takes): no sentence, the mismatch a problem, no row
    (tmp_path / "g").write_text(GOLD + "\n")
    (tmp_path / "t").write_text("")
    doc = score_files(tmp_path / "g", tmp_path / "t", "evalb")
    assert doc["sentences"] == [] and doc["summary"]["all"]["sentences"] == 0
    assert "too many lines in gold file" in doc["summary"]["problems"][0]["message"]


def _line_of(nbytes: int) -> str:
    """A well-formed line of exactly ``nbytes`` bytes (newline not included)."""
    head, tail = "(S ", ")"
    body = "(X ab) " * ((nbytes - len(head) - len(tail)) // 7 - 1)
    word = "w" * (nbytes - len(head) - len(tail) - len(body) - len("(X )"))
    line = head + body + f"(X {word})" + tail
    assert len(line.encode()) == nbytes
    return line


def test_a_line_over_evalbs_buffer_is_scored_whole_with_a_located_warning(tmp_path):
    """evalb reads with fgets(buff, 5000, fd): at most 4,999 bytes, newline included. A line of
    4,998 bytes plus its newline fits; one of 4,999 bytes plus its newline does not (evalb reads
    the 4,999 bytes, then the newline alone as the next sentence, and every later pair shifts).
    We score it as one sentence and warn with the file and the line, for each file that has it."""
    fits, too_long = _line_of(4998), _line_of(4999)
    proc = _evalb(tmp_path, f"{GOLD}\n{fits}\n{too_long}\n", f"{GOLD}\n{fits}\n{too_long}\n", None)
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert [row[13] for row in rows] == ["0", "0", "0"]  # three ok sentences
    err = proc.stderr.decode()
    warned = [line for line in err.splitlines() if "longer than 4,999 bytes" in line]
    assert warned == [f"warning: {tmp_path / name}, line 3: line longer than 4,999 bytes with its newline: "
                      "evalb's fgets reads it in pieces, the rest as the next sentence, so that every later "
                      "pair shifts; scored here as one sentence" for name in ("g", "t")]
    # the in-memory path (score_files, the bootstrap's) says the same in the document's problems
    doc = score_files(tmp_path / "g", tmp_path / "t", "evalb")
    assert [(p["file"], p["line"]) for p in doc["summary"]["problems"]] == [
        (str(tmp_path / "g"), 3), (str(tmp_path / "t"), 3)]
    assert all("longer than 4,999 bytes" in p["message"] for p in doc["summary"]["problems"])


def test_a_keyword_with_no_value_is_read_our_way_with_a_located_warning():
    """evalb.c read_parameter_file cuts trailing space ("DELETE_LABEL \\n" -> "DELETE_LABEL"),
    then scans the keyword with for(i=0;!isspace(buff[i]);i++): '\\0' is not a space, so the scan
    runs past the line's end into the buffer's older bytes. What evalb deletes is undefined; we
    read an empty label (deleting unlabelled brackets) and 0 for a number, and say so, located."""
    p = parse_prm("LABELED 1\nDELETE_LABEL \nMAX_ERROR\n", file="p.prm")
    assert p.delete_labels == ("",) and p.max_error == 0
    found = [(w.line, w.file, w.message) for w in p.warnings]
    assert [(line, file) for line, file, _ in found] == [(2, "p.prm"), (3, "p.prm")]
    assert all("evalb reads past the end of this line" in m and "this project's choice" in m for *_, m in found)
    assert "an empty label (the unlabelled brackets are deleted)" in found[0][2]
