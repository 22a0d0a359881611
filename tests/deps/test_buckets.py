"""The dependency bucket analysis (issue 38, part 1): figures worked out by hand, buckets that add up to the
headline on real data, and the ``analyse`` command."""
from __future__ import annotations

import copy
import json

import pytest

from evaluation.__main__ import main
from parseval.__main__ import main as parseval_main
from parseval.annotations.conllu import parse_conllu, read_conllu
from parseval.evaluation import buckets
from parseval.evaluation.deps.buckets import analyse
from parseval.evaluation.deps.metrics import ROW_COLUMNS, score_dependencies
from tests.conftest import DATA


def row(i, form, upos, head, rel):
    return "\t".join([str(i), form, "_", upos, "_", "_", str(head), rel, "_", "_"])


GOLD = "\n".join([
    "# sent_id = s1",
    row(1, "Le", "DET", 2, "det"),
    row(2, "chat", "NOUN", 3, "nsubj"),
    row(3, "dort", "VERB", 0, "root"),
    row(4, "sur", "ADP", 5, "case"),
    row(5, "canapé", "NOUN", 3, "obl"),
    row(6, ".", "PUNCT", 3, "punct"),
    "", ""])
# w2: head right, relation wrong; w4: head wrong (2 instead of 5, an arc that crosses the root's word 3);
# w6 is punctuation (left out whatever it says)
RUN = "\n".join([
    "# sent_id = s1",
    row(1, "Le", "DET", 2, "det"),
    row(2, "chat", "NOUN", 3, "obj"),
    row(3, "dort", "VERB", 0, "root"),
    row(4, "sur", "ADP", 2, "case"),
    row(5, "canapé", "NOUN", 3, "obl"),
    row(6, ".", "PUNCT", 5, "punct"),
    "", ""])


def table(doc, name):
    (attribute,) = [a for a in doc["attributes"] if a["name"] == name]
    return {b["bucket"]: b for b in attribute["buckets"]}


def counts(bucket):
    return tuple(bucket[k] for k in ("gold", "head", "correct", "test", "correct_test"))


@pytest.fixture(scope="module")
def small():
    return analyse(parse_conllu(GOLD), parse_conllu(RUN), bootstrap=0)


def test_the_registry_lists_the_dependency_attributes_and_refuses_an_unknown_one():
    assert [a.name for a in buckets.attributes_for("deps")] == [
        "sentence_length", "genre", "arc_length", "root_distance", "head_upos", "dependent_upos", "relation",
        "projectivity"]
    with pytest.raises(Exception, match="no attribute 'colour' for the kind deps: choose among sentence_length"):
        buckets.get("deps", "colour")


def test_headline_by_hand(small):
    # scored words 1-5; head right for 1, 2, 3, 5 (4 of 5); head and relation right for 1, 3, 5 (3 of 5)
    h = small["headline"]
    assert (h["gold"], h["head"], h["correct"], h["test"]) == (5, 4, 3, 5)
    assert h["uas"] == pytest.approx(4 / 5) and h["las"] == pytest.approx(3 / 5)


def test_arc_length_by_hand(small):
    # gold arcs: 1->2 |1|, 2->3 |1|, 3 root, 4->5 |1|, 5->3 |2|
    # run arcs:  1->2 |1|, 2->3 |1|, 3 root, 4->2 |2|, 5->3 |2|
    t = table(small, "arc_length")
    assert list(t) == ["root", "1", "2"]
    # "1": gold words 1, 2, 4; heads right 1, 2 -> 2; both right 1 -> 1; run words 1, 2, of which 1 right
    assert counts(t["1"]) == (3, 2, 1, 2, 1)
    assert t["1"]["uas"] == pytest.approx(2 / 3) and t["1"]["las"] == pytest.approx(1 / 3)
    # P = 1/2, R = LAS = 1/3, F = 2 * 1/2 * 1/3 / (1/2 + 1/3) = (1/3) / (5/6) = 2/5
    assert t["1"]["precision"] == pytest.approx(1 / 2) and t["1"]["f"] == pytest.approx(2 / 5)
    # "2": gold word 5 (right); run words 4 (wrong) and 5 (right): P 1/2, R 1, F = 1 / 1.5 = 2/3
    assert counts(t["2"]) == (1, 1, 1, 2, 1)
    assert t["2"]["f"] == pytest.approx(2 / 3)
    assert counts(t["root"]) == (1, 1, 1, 1, 1)


def test_root_distance_and_projectivity_by_hand(small):
    # gold depths: 3 -> 1; 2, 5 -> 2; 1 (1->2->3), 4 (4->5->3) -> 3. Run: the same, 4 going 4->2->3
    t = table(small, "root_distance")
    assert counts(t["1"]) == (1, 1, 1, 1, 1)
    assert counts(t["2"]) == (2, 2, 1, 2, 1)  # word 2 has the wrong relation
    assert counts(t["3"]) == (2, 1, 1, 2, 1)  # word 4 has the wrong head
    # the run's arc 4->2 spans word 3, the root, which word 2 does not dominate: the one crossed arc
    t = table(small, "projectivity")
    assert counts(t["projective"]) == (5, 4, 3, 4, 3)
    assert counts(t["non-projective"]) == (0, 0, 0, 1, 0)
    assert t["non-projective"]["las"] is None and t["non-projective"]["precision"] == 0.0


def test_relation_and_head_upos_by_hand(small):
    t = table(small, "relation")
    assert counts(t["nsubj"]) == (1, 1, 0, 0, 0)  # gold nsubj, the run said obj: nothing predicted as nsubj
    assert t["nsubj"]["precision"] is None and t["nsubj"]["las"] == 0.0 and t["nsubj"]["f"] is None
    assert counts(t["obj"]) == (0, 0, 0, 1, 0)
    assert counts(t["case"]) == (1, 0, 0, 1, 0)
    assert "punct" not in t
    # heads: word 1 -> chat NOUN, 2 -> dort VERB, 3 -> ROOT, 4 -> canapé NOUN (run: chat NOUN), 5 -> VERB
    t = table(small, "head_upos")
    assert counts(t["NOUN"]) == (2, 1, 1, 2, 1)
    assert counts(t["VERB"]) == (2, 2, 1, 2, 1)
    assert counts(t["ROOT"]) == (1, 1, 1, 1, 1)
    assert counts(table(small, "sentence_length")["1-10"]) == (5, 4, 3, 5, 3)


def perturbed(sentences):
    """A real-ish run: heads moved to the root, relations and tags changed, words left unattached, a cycle."""
    run = copy.deepcopy(sentences)
    for s, sentence in enumerate(run):
        for w in sentence.words:
            if w.id % 7 == 0:
                w.head = 0
            if w.id % 5 == 0:
                w.deprel = "dep"
            if w.id % 11 == 0:
                w.upos = "X"
            if w.id % 13 == 0:
                w.head = None
        if s % 17 == 0 and len(sentence.words) > 2:
            sentence.words[0].head, sentence.words[1].head = 2, 1
    return run


@pytest.fixture(scope="module")
def sequoia():
    gold = read_conllu(DATA / "ud-french" / "fr_sequoia-ud-test.conllu")
    return gold, perturbed(gold)


def test_buckets_add_up_to_the_headline_for_every_attribute(sequoia):
    gold, run = sequoia
    rows = []
    headline = score_dependencies(gold, run, rows=rows)
    sums = dict(zip(ROW_COLUMNS, map(sum, zip(*rows))))
    assert 0.5 < headline["totals"]["las"] < 0.9  # a real-ish run, not a copy of the gold
    doc = analyse(gold, run, bootstrap=0)
    assert len(doc["attributes"]) == 8
    for attribute in doc["attributes"]:
        total = {k: sum(b[k] for b in attribute["buckets"]) for k in ("gold", "head", "correct", "test", "correct_test")}
        assert total == {"gold": headline["totals"]["words"], "head": sums["head"], "correct": sums["head_label"],
                         "test": headline["totals"]["test"], "correct_test": sums["head_label"]}, attribute["name"]
    assert table(doc, "root_distance")["cycle"]["test"] > 0
    assert table(doc, "projectivity")["non-projective"]["test"] > table(doc, "projectivity")["non-projective"]["gold"]
    assert headline["unattached"]["test"] > 0  # left out of the run's items, as of the Lin test triples


def test_a_bucket_of_every_word_has_the_headline_interval(sequoia, tmp_path, capsys):
    gold, run = sequoia
    doc = analyse(gold, run, by=["sentence_length"], bootstrap=200, seed=7)
    # the headline's intervals are the deps command's: the same seeded draws of the same sentences
    gold_path, run_path = tmp_path / "g.conllu", tmp_path / "r.conllu"
    from parseval.annotations.conllu import write_conllu
    gold_path.write_text(write_conllu(gold), encoding="utf-8")
    run_path.write_text(write_conllu(run), encoding="utf-8")
    out = tmp_path / "deps.json"
    assert main(["deps", "--gold", str(gold_path), "--test", str(run_path), "--bootstrap", "200", "--seed", "7",
                 "--no-cycle-check", "--json", str(out)]) == 0
    totals = json.loads(out.read_text())["totals"]
    assert doc["headline"]["las_ci"] == pytest.approx(totals["las_ci"])
    assert doc["headline"]["uas_ci"] == pytest.approx(totals["uas_ci"])
    lo, hi = doc["headline"]["las_ci"]
    assert lo < doc["headline"]["las"] < hi
    # a bucket of few words (the short sentences') gets a wider interval than the whole set's, from the same draws
    short = table(doc, "sentence_length")["1-10"]
    assert short["las_ci"][1] - short["las_ci"][0] > hi - lo


def test_the_command_prints_the_tables_and_writes_the_document(tmp_path, capsys):
    gold, run = tmp_path / "gold.conllu", tmp_path / "run.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    run.write_text(RUN, encoding="utf-8")
    out = tmp_path / "analysis.json"
    assert main(["analyse", "--kind", "deps", "--gold", str(gold), "--run", str(run), "--by", "arc_length",
                 "--bootstrap", "0", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "UAS  80.00   LAS  60.00" in text
    assert "by arc_length:" in text and "by relation" not in text
    lines = {line.split()[0]: line.split() for line in text.splitlines() if line[:1] in ("r", "1", "2")}
    assert lines["1"][1:6] == ["3", "2", "1", "66.67", "33.33"]
    doc = json.loads(out.read_text())
    assert doc["schema"] == "parseval-analysis/1" and doc["kind"] == "deps"
    assert [b["bucket"] for b in doc["attributes"][0]["buckets"]] == ["root", "1", "2"]
    assert doc["files"] == {"gold": str(gold), "run": str(run)}
    # the library's own command line has the same command
    assert parseval_main(["analyse", "--kind", "deps", "--gold", str(gold), "--run", str(run), "--by", "arc_length",
                          "--bootstrap", "0"]) == 0
    assert capsys.readouterr().out == text


def test_the_command_refuses_an_unknown_attribute_and_unpaired_files(tmp_path, capsys):
    gold, run = tmp_path / "gold.conllu", tmp_path / "run.conllu"
    gold.write_text(GOLD, encoding="utf-8")
    run.write_text(RUN + RUN.replace("s1", "s2"), encoding="utf-8")
    assert main(["analyse", "--kind", "deps", "--gold", str(gold), "--run", str(gold), "--by", "colour"]) == 2
    assert "error: no attribute 'colour' for the kind deps" in capsys.readouterr().err
    assert main(["analyse", "--kind", "deps", "--gold", str(gold), "--run", str(run)]) == 2
    err = capsys.readouterr().err
    assert "gold has 1 sentences, the run has 2" in err and "Traceback" not in err
