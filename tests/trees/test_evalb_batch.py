"""The block reader of the evalb preset (parseval/evaluation/trees/evalb_batch.py) against the line-by-line reading.

Every pair the block path scores must get the row the exact reader and scorer give; every other
pair is left to them. Both are run on Sequoia lines (shipped in data/) damaged in the ways parser
output and hand-edited files differ from the gold: relabelled, removed and added brackets,
changed tags and words, other whitespace, an outer unlabelled pair, odd and malformed lines.
"""
from __future__ import annotations

import io
import random
import re

import numpy as np
import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.detect import LayoutCounter
from parseval.evaluation.trees import evalb_batch, evalb_files
from parseval.evaluation.trees.evalb import COLLINS, EvalbParams, EvalbScorer, load_prm, read_evalb_lines
from tests.conftest import SEQUOIA_TREES

TOKEN = re.compile(r"\(|\)|[^\s()]+")
TERMINAL = r"\([^\s()]+ [^\s()]+\)"
SHIFT = re.compile(rf"\(([^\s()]+) ({TERMINAL}) ({TERMINAL})\) ({TERMINAL})")
# shapes the block path leaves to the exact reading: "(X )", "(X)", "(X a b)", two spaces in a
# terminal, a NUL byte, a tag of more than eight bytes, a word of more than 64
ODD = re.compile(r"\([^\s()]*\s+\)|\([^\s()]*\)|\([^\s()]*\s+[^\s()]+\s+[^\s()]+\)|\([^\s()]+\s{2,}[^\s()]+\)|\x00"
                 r"|VERYLONGTAG|w{65}")


def _sequoia(count: int, seed: int = 0) -> list[str]:
    lines = SEQUOIA_TREES.read_text(encoding="utf-8").splitlines()
    rng = random.Random(seed)
    return rng.sample(lines, count)


def _damage(line: str, rng: random.Random) -> str:
    """A parser's reading of the same words: brackets relabelled, dropped or added, tags changed."""
    tokens = TOKEN.findall(line)
    out: list[str] = []
    dropped: list[bool] = []  # per open bracket: its close is dropped too
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "(" and i + 2 < len(tokens) and tokens[i + 2] not in "()" and tokens[i + 3:i + 4] == [")"]:
            tag, word = tokens[i + 1], tokens[i + 2]
            if rng.random() < 0.08:
                tag = rng.choice(["N", "V", "ADJ", "PONCT", "ADV"])
            elif rng.random() < 0.003:
                tag = "-NONE-"  # deleted by some parameters: a length that differs
            if rng.random() < 0.03:
                out += ["(", "XP", "(", tag, " ", word, ")", ")"]
            else:
                out += ["(", tag, " ", word, ")"]
            i += 4
            continue
        if tok == "(":
            label = tokens[i + 1] if tokens[i + 1] not in "()" else ""
            drop = bool(out) and rng.random() < 0.1
            dropped.append(drop)
            if not drop:
                if label and rng.random() < 0.1:
                    label = rng.choice(["NP", "VP", "PP-MOD", "SENT", "AP=2", "ADVP", "PRT"])
                out += ["(", label, " "]
            i += 2 if label or tokens[i + 1] not in "()" else 1
            continue
        if tok == ")":
            if not dropped.pop():
                out.append(")")
            i += 1
            continue
        out.append(tok)
        i += 1
    text = re.sub(r" \)", ")", re.sub(r"\) \(", ") (", "".join(out).replace(")(", ") (")))
    if rng.random() < 0.4:  # (X (A a) (B b)) (C c) -> (A a) (X (B b) (C c)): brackets that cross
        text = SHIFT.sub(r"\2 (\1 \3 \4)", text, count=1)
    return text


def _reshape(line: str, rng: random.Random) -> str:
    """The same tree written another way (whitespace, outer pair), or a line of an odd shape."""
    choice = rng.randrange(24)
    if choice == 0:
        return "( " + line + " )"  # an outer unlabelled pair, as some parsers write
    if choice == 1:
        return line.replace(" (", "\t(")
    if choice == 2:
        return line.replace(") ", ")")
    if choice == 3:
        return "  " + line + " \r"
    if choice == 4:
        return line.replace(")", ") ", 3)
    if choice == 5:
        return line.replace(" ", "  ", 1)  # two spaces: a label then "(", or inside a terminal
    if choice == 6:
        return ""  # a parser's failure
    if choice == 7:
        return line[:-1]  # unbalanced
    if choice == 8:
        return line + ")"
    if choice == 9:
        return line.replace(")", " )", 1)  # "(X a )": evalb's error
    if choice == 10:
        return re.sub(r"\(([^\s()]+) ([^\s()]+)\)", r"(\1 \2 x)", line, count=1)
    if choice == 11:
        return line.replace("(", "(VERYLONGPHRASE ", 1)
    if choice == 12:
        return re.sub(r"\(([^\s()]+) ", "(VERYLONGTAG ", line, count=1) if rng.random() < 0.5 else \
            line.replace("(", "(NP-WITH-FUNCTION ", 1)
    if choice == 13:
        return re.sub(r" ([^\s()]+)\)", " " + "w" * 70 + ")", line, count=1)
    if choice == 14:
        return line.replace("(", "(X)(", 1) if rng.random() < 0.5 else line.replace("(", "(X )(", 1)
    if choice == 15:
        return re.sub(r"\(([^\s()]+) ", "( ", line, count=1)  # a terminal without a tag
    if choice == 16:
        return line.replace(" ", "\x00", 1)
    if choice == 17:
        return line + " stray"
    if choice == 18:
        return "(" + line + ")"  # an outer pair with no space
    if choice == 19:
        return re.sub(r"\(([^\s()]+) ([^\s()]+)\)", r"(\1 \2)) ((", line, count=1)
    return line


PARAMS = {
    "collins": COLLINS,
    "defaults": EvalbParams(),
    "unlabelled": EvalbParams(labeled=False, delete_labels=COLLINS.delete_labels),
    "eq": EvalbParams(delete_labels=("PONCT", "SENT"), delete_labels_for_length=("PONCT",),
                      eq_labels=(("NP", "VP"), ("ADJ", "N")), eq_words=(("de", "du"),), max_error=10_000),
    "long delete label": EvalbParams(delete_labels=("VERYLONGPHRASE", "P", "P+D"), eq_labels=(("VN", "VPinf"),)),
}


def _pairs(count: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    gold = _sequoia(count, seed)
    test = [_damage(line, rng) for line in gold]
    gold = [_reshape(line, rng) if rng.random() < 0.25 else line for line in gold]
    test = [_reshape(line, rng) if rng.random() < 0.35 else line for line in test]
    for i in range(0, count, 37):  # a word that differs (the pair is an error) and a Latin-1 byte
        test[i] = test[i].replace(" de)", " du)", 1)
    gold[5] = gold[5].replace(" de)", " d\udce9)", 1)
    test[5] = test[5].replace(" de)", " d\udce9)", 1)
    return gold, test


def _raw(lines: list[str]) -> list[bytes]:
    return [(line + "\n").encode("utf-8", "surrogateescape") for line in lines]


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_block_rows_are_the_exact_rows(name):
    params = PARAMS[name]
    gold, test = _pairs(1200, seed=len(name))
    scorer = EvalbScorer(params)
    expected = [scorer.pair(g, t) for g, t in zip(read_evalb_lines(gold, params), read_evalb_lines(test, params))]
    tables = evalb_batch.Tables(params)
    rows: list = []
    for start in range(0, len(gold), 300):
        g = evalb_batch.read_block(_raw(gold[start:start + 300]), tables)
        t = evalb_batch.read_block(_raw(test[start:start + 300]), tables)
        rows += evalb_batch.score_blocks(g, t, tables, len(gold[start:start + 300]))
    scored = [i for i, row in enumerate(rows) if row is not None]
    assert [rows[i] for i in scored] == [expected[i] for i in scored]
    # most pairs take the block path, and the odd ones do not
    assert len(scored) > 0.35 * len(rows)
    statuses = {rows[i][0] for i in scored}
    assert 0 in statuses and statuses <= {0, 2} and len(scored) < len(rows)
    assert sum(rows[i][5] > 0 for i in scored) >= 10  # crossing brackets counted
    odd = {i for i, (g, t) in enumerate(zip(gold, test)) if ODD.search(g) or ODD.search(t)}
    assert odd and not odd & set(scored)


def test_block_path_keeps_multiset_and_crossing_counts():
    """Unary chains of one label (a multiset), crossing brackets, deleted and empty brackets."""
    gold = ["(S (NP (NP (D le) (N chat))) (VP (V dort)) (PONCT .))",
            "(S (A (B (C (P x) (Q y)) (R z)) (T w)))",
            "(TOP (S (NP (-NONE- *)) (VP (V va))))",
            "(S (V va) (PONCT .))"]
    test = ["(S (NP (D le) (N chat)) (VP (V dort)) (PONCT .))",
            "(S (A (P x) (B (Q y) (R z) (T w))))",
            "(TOP (S (NP (-NONE- *)) (VP (V va))))",
            "(S (PONCT .))"]
    params = EvalbParams(delete_labels=("TOP", "-NONE-", "PONCT"), delete_labels_for_length=("-NONE-",))
    tables = evalb_batch.Tables(params)
    rows = evalb_batch.score_blocks(evalb_batch.read_block(_raw(gold), tables),
                                    evalb_batch.read_block(_raw(test), tables), tables, 4)
    scorer = EvalbScorer(params)
    expected = [scorer.pair(g, t) for g, t in zip(read_evalb_lines(gold, params), read_evalb_lines(test, params))]
    assert rows == expected
    assert rows[0][2:5] == (3, 4, 3)  # the NP unary chain: two gold NPs over one span, one matched
    assert rows[1][5] == 1  # one test bracket crosses
    assert rows[2][:2] == (0, 1)  # -NONE- left out of the length
    assert rows[3] == (2, 2, 0, 0, 0, 0, 0, 0, None)  # no word left in the test line: a skip sentence


def _run(tmp_path, gold: list[str], test: list[str], params, monkeypatch, blocks: bool, block: int = 7,
         on_error: str = "skip") -> tuple:
    (tmp_path / "g").write_bytes(b"".join(_raw(gold)))
    (tmp_path / "t").write_bytes(b"".join(_raw(test)))
    monkeypatch.setattr(evalb_files, "BLOCK", block)
    if not blocks:
        monkeypatch.setattr(evalb_batch, "usable", lambda params: False)
    report, js, messages = io.StringIO(), io.StringIO(), []
    layouts = (LayoutCounter(), LayoutCounter())
    try:
        summary = evalb_files.evalb_files(tmp_path / "g", tmp_path / "t", params, report=report.write,
                                          json_write=js.write, message=messages.append, layouts=layouts,
                                          on_error=on_error)
    except InputError as error:
        summary = error.problems[0].as_dict()
    monkeypatch.undo()
    counts = [tuple(getattr(c, name) for name in LayoutCounter.__slots__) for c in layouts]
    return summary, report.getvalue(), js.getvalue(), messages, counts


@pytest.mark.parametrize("case", ["same length", "more gold", "more test", "stopped", "long lines"])
def test_streamed_blocks_equal_the_pair_by_pair_stream(tmp_path, monkeypatch, case):
    """Report, JSON, messages, summary and the layout counts are those of the pair-by-pair stream at
    every block boundary: extra lines on either side, MAX_ERROR reached inside a block, long lines."""
    gold, test = _pairs(60, seed=7)
    params = PARAMS["eq"]
    if case == "more gold":
        gold += gold[:10]
    elif case == "more test":
        test += ["", "(S (N x))"]
    elif case == "stopped":
        params = COLLINS
    elif case == "long lines":
        gold[3] = gold[40] = "(S " + " ".join(f"(N w{i})" for i in range(600)) + ")"
        test[3] = test[40] = gold[3]
        params = EvalbParams(max_error=2)
    by_pair = _run(tmp_path, gold, test, params, monkeypatch, blocks=False)
    for block in (1, 7, 64):
        assert _run(tmp_path, gold, test, params, monkeypatch, blocks=True, block=block) == by_pair
    if case == "stopped":
        assert by_pair[0]["stopped"] and by_pair[0]["all"]["sentences"] < 60
    if case == "long lines":
        # both files' line 4; line 41 comes after the stop, where evalb has read no further
        assert by_pair[0]["stopped"]["index"] < 41
        assert sorted((p["file"][-1], p["line"]) for p in by_pair[0]["problems"] if "longer" in p["message"]) == [
            ("g", 4), ("t", 4)]


def test_raise_mode_writes_the_rows_before_the_error(tmp_path, monkeypatch):
    """--on-error raise: the first error pair raises, located, after the rows before it were written."""
    gold, test = _pairs(60, seed=3)
    test[20] = test[20].replace(")", ") stray)", 1)
    by_pair = _run(tmp_path, gold, test, COLLINS, monkeypatch, blocks=False, on_error="raise")
    assert by_pair[0]["line"] <= 21 and by_pair[1].count("\n") > 3
    for block in (1, 7, 64):  # (the layout counts do not matter here: the command stops on the error)
        raised = _run(tmp_path, gold, test, COLLINS, monkeypatch, blocks=True, block=block, on_error="raise")
        assert raised[:4] == by_pair[:4]


def test_quote_label_and_overlapping_eq_labels_stay_pair_by_pair(shared_data):
    assert evalb_batch.usable(COLLINS)
    assert not evalb_batch.usable(load_prm(shared_data / "evalb-sample" / "new.prm"))  # QUOTE_LABEL
    assert not evalb_batch.usable(EvalbParams(eq_labels=(("A", "B"), ("B", "C"))))


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_the_one_walk_reader_reads_as_the_array_reader(name):
    """``evalb_scan`` (compiled where it was built, else as Python) refuses the same lines and gives the
    same arrays as the array operations; brackets, only counted, may come in another order."""
    from parseval.evaluation.trees import evalb_scan

    params = PARAMS[name]
    gold, test = _pairs(600, seed=len(name) + 7)
    odd = ["(S (NP (D le)) (N chat)))", "(S (NP (D le) (N chat)", ")(S (V va))", "  ", "", "(S\x00 (V va))",
           "( (S (V va)) )", "(S (X-1=2 (V va)) (VERYLONGLABEL-2 (V va)) (VERYLONGLA=2 (V va)) (VERYLONGLAB (V va)))",
           "(S (V va) ) (S (V vient))", "(S (V  va))", "(S (V va)x)", "(S (V va) (PONCT .)) trailing",
           "(" * 300, "(" * 299 + "(A a)" + ")" * 299, "(A a)(B b)(C c)(D d)(E e)",
           "\t(S\t(V\tva)\r(N\fx)\v)", "(S (V\t\tva))", "\t", "\x0b(S (V va))"]
    tables = evalb_batch.Tables(params)
    refused = 0
    for lines in (gold, test, odd):
        for start in range(0, len(lines), 150):
            raw = _raw(lines[start:start + 150])
            raw[-1] = raw[-1].removesuffix(b"\n")  # a file's last line may have no line end
            arrays, bad = evalb_batch._read_arrays(raw, tables)
            walked, walked_bad = evalb_batch._scan(raw, tables)
            assert (bad is None) == (walked_bad is None)
            if bad is not None:
                assert walked_bad.tolist() == bad.tolist()
                refused += len(bad)
                arrays, walked = evalb_batch._read_arrays([raw[i] for i in range(len(raw)) if i not in set(bad.tolist())],
                                                          tables)[0], evalb_batch._scan(
                    [raw[i] for i in range(len(raw)) if i not in set(bad.tolist())], tables)[0]
            for field in ("length", "words", "indented", "blank", "w_line", "w_tag", "w_start", "w_len"):
                a, b = getattr(arrays, field), getattr(walked, field)
                assert a.dtype == b.dtype and a.tolist() == b.tolist(), field
            order_a = np.lexsort((arrays.b_end, arrays.b_start, arrays.b_class, arrays.b_line))
            order_b = np.lexsort((walked.b_end, walked.b_start, walked.b_class, walked.b_line))
            for field in ("b_line", "b_class", "b_start", "b_end"):
                a, b = getattr(arrays, field), getattr(walked, field)
                assert a.dtype == b.dtype and a[order_a].tolist() == b[order_b].tolist(), field
            # the words' bytes, eight at a time (the array reader made other C-space spaces, the walk reads it
            # as it is: only the words are read from it)
            for offset in range(0, int(arrays.w_len.max(initial=0)), 8):
                some = arrays.w_len > offset
                low = evalb_batch._LOW[np.minimum(arrays.w_len[some] - offset, 8)]
                assert ((arrays.u64[arrays.w_start[some] + offset] & low).tolist()
                        == (walked.u64[walked.w_start[some] + offset] & low).tolist())
    assert refused >= 10
    assert evalb_batch.SCAN == (evalb_scan.__loader__.__class__.__name__ == "ExtensionFileLoader")
