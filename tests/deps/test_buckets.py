"""The dependency bucket analysis (issue 38, part 1): figures worked out by hand, buckets that add up to the
headline on real data, and the ``analyse`` command."""
from __future__ import annotations

import copy
import json

import numpy as np
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


def test_confusions_by_hand():
    doc = analyse(parse_conllu(GOLD), parse_conllu(RUN), bootstrap=0, confusions=True)
    (relations,) = doc["confusions"]
    rows = {r["gold"]: {k: c["count"] for k, c in r["cells"].items()} for r in relations["rows"]}
    # w1 det right; w2 nsubj: head right, said obj; w3 root right; w4 case: head wrong; w5 obl right
    assert rows == {"case": {"wrong head": 1}, "det": {"det": 1}, "nsubj": {"obj": 1}, "obl": {"obl": 1},
                    "root": {"root": 1}}
    assert relations["rows"][0]["cells"][next(iter(relations["rows"][0]["cells"]))]["sentences"] == [0]


def test_genres_and_confusion_rows_on_sequoia(sequoia):
    gold, run = sequoia
    strata = ["a" if k % 3 else "b" for k in range(len(gold))]
    doc = analyse(gold, run, by=["genre", "relation"], bootstrap=100, strata=strata, confusions=True)
    genre = table(doc, "genre")
    assert set(genre) == {"a", "b"} and doc["bootstrap"]["strata"] == "genre"
    rows = []
    score_dependencies([gold[k] for k in range(len(gold)) if k % 3 == 0],
                       [run[k] for k in range(len(run)) if k % 3 == 0], rows=rows)
    b = dict(zip(ROW_COLUMNS, map(sum, zip(*rows))))
    assert (genre["b"]["gold"], genre["b"]["head"], genre["b"]["correct"]) == (b["words"], b["head"], b["head_label"])
    (relations,) = doc["confusions"]
    assert {r["gold"]: r["count"] for r in relations["rows"]} == {k: v["gold"] for k, v in table(doc, "relation").items()
                                                                  if v["gold"]}
    for row in relations["rows"]:
        assert sum(c["count"] for c in row["cells"].values()) == row["count"]
        assert row["cells"].get(row["gold"], {"count": 0})["count"] == table(doc, "relation")[row["gold"]]["correct"]
    assert doc["sentence_ids"][0] == gold[0].sent_id


def test_the_pairwise_test_of_a_bucket_of_every_word_is_the_comparisons(sequoia):
    from parseval.evaluation import bucket_pairs, paired
    from parseval.evaluation.deps.buckets import count
    from parseval.evaluation.figure_sets import metric_figures
    from parseval.evaluation.metrics import get as metric
    gold, run = sequoia
    other = perturbed(perturbed(gold))
    for w in (w for s in other[::2] for w in s.words if w.id % 4 == 0):
        w.deprel = "dep"
    one = ["all"] * len(gold)
    ca, cb = count(gold, run, strata=one), count(gold, other, strata=one)
    section = bucket_pairs.compare(ca, cb, by=["genre", "relation"], resamples=300, seed=9)
    assert section["figure"] == "las"
    (whole,) = section["attributes"][0]["buckets"]
    m = metric("dependency")
    rows = {}
    for name, test in (("a", run), ("b", other)):
        r = []
        score_dependencies(gold, test, rows=r)
        rows[name] = np.asarray(r, dtype=np.int64)
    assert m.columns[:len(ROW_COLUMNS)] == ROW_COLUMNS
    page = paired.compare_all(rows, one, metric_figures(["dependency"]), resamples=300, seed=9)[("a", "b")]
    k = page.keys.index(("micro", "deps-las", "", "", "ALL"))
    assert whole["diff"] == page.diff["ALL"][k]
    assert whole["se"] == pytest.approx(page.se["ALL"][k], rel=1e-12)
    assert whole["p"] == pytest.approx(page.p["ALL"][k], rel=1e-9)
    rel = section["attributes"][1]["buckets"]
    assert [b["p_bh"] for b in rel] == pytest.approx(paired.benjamini_hochberg([b["p"] for b in rel]))
    assert {b["bucket"]: b["verdict"] for b in rel}["obj"] == "A"  # the other run said dep for many objects


def test_the_command_compares_two_runs(tmp_path, capsys, sequoia):
    from parseval.annotations.conllu import write_conllu
    gold, run = sequoia
    paths = {}
    for name, sentences in (("gold", gold), ("a", run), ("b", perturbed(run))):
        paths[name] = tmp_path / f"{name}.conllu"
        paths[name].write_text(write_conllu(sentences), encoding="utf-8")
    out = tmp_path / "pairs.json"
    assert main(["analyse", "--kind", "deps", "--gold", str(paths["gold"]), "--run", str(paths["a"]), "--against",
                 str(paths["b"]), "--by", "arc_length", "--no-cycle-check", "--bootstrap", "0", "--resamples", "50",
                 "--confusions", "--common", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pairwise: a.conllu - b.conllu, LAS" in text and "confusions, relations" in text
    doc = json.loads(out.read_text())
    assert doc["pairwise"]["attributes"][0]["name"] == "arc_length"
    assert doc["common_errors"]["runs"] == ["a.conllu", "b.conllu"]
