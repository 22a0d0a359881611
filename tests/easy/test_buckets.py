"""The EASY bucket analysis (issue 38): figures worked out by hand, buckets that add up to the scorer's headline
on the reference, the pairwise test against the comparison's, confusion tables and common errors, the command."""
from __future__ import annotations

import json
import random

import pytest

from benchmarks.easy_corpus import perturb
from evaluation.__main__ import main
from parseval.annotations.easy.model import Document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA
from parseval.annotations.easy.writer import write_document
from parseval.evaluation import bucket_pairs, buckets, paired
from parseval.evaluation.confusions import common_errors
from parseval.evaluation.easy import buckets as easy_buckets
from parseval.evaluation.easy.counting import Plan
from parseval.evaluation.easy.ranges import MATCHES, MODES
from parseval.evaluation.easy.scoring import score_corpus, score_corpus_with_rows
from parseval.evaluation.stats import ALL
from tests.easy.conftest import load, sentence

# E1 "Le chat dort sur le canapé": gold GN[1-2] NV[3] GP[4-6], SUJ-V(GN, NV), CPL-V(GP, NV).
# The run has GN[1-2] NV[3] GN[5-6] and form 4 bare: SUJ-V right; CPL-V(F4, NV) has the range of form 4, not
# the gold GP's: one relation missed, one wrong.
# E2 "Il mange": gold GN[1] NV[2], SUJ-V(GN, NV). The run has NV[2] only and SUJ-V(F1, NV): form 1 is bare in
# the run, its range (one form) is the gold GN's: right, though the gold calls the argument a GN and the run a form.
WORDS1 = ["Le", "chat", "dort", "sur", "le", "canapé"]
GOLD = (sentence("E1", WORDS1, {(1, 2): ("G1", "GN"), (3, 3): ("G2", "NV"), (4, 6): ("G3", "GP")},
                 [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}), ("R2", "CPL-V", {"complement": "G3", "verbe": "G2"})])
        + sentence("E2", ["Il", "mange"], {(1, 1): ("G1", "GN"), (2, 2): ("G2", "NV")},
                   [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"})]))
RUN = (sentence("E1", WORDS1, {(1, 2): ("G1", "GN"), (3, 3): ("G2", "NV"), (5, 6): ("G3", "GN")},
                [("R1", "SUJ-V", {"sujet": "G1", "verbe": "G2"}), ("R2", "CPL-V", {"complement": "F4", "verbe": "G2"})])
       + sentence("E2", ["Il", "mange"], {(2, 2): ("G1", "NV")}, [("R1", "SUJ-V", {"sujet": "F1", "verbe": "G1"})]))
NAME = "general_small.xml"


def table(doc, name):
    (attribute,) = [a for a in doc["attributes"] if a["name"] == name]
    return {b["bucket"]: b for b in attribute["buckets"]}


def counts(bucket):
    return tuple(bucket[k] for k in ("gold", "test", "correct", "correct_test"))


@pytest.fixture(scope="module")
def small_docs():
    return [load(GOLD, name=NAME, gold=True)], [load(RUN, name=NAME)]


@pytest.fixture(scope="module")
def small(small_docs):
    gold, run = small_docs
    return easy_buckets.analyse(gold, run, bootstrap=0, confusions=True,
                                sentence_genres={"general_small/E2": "oral"})


def test_the_registry_lists_easy_attributes_apart_from_the_dependency_ones():
    import parseval.evaluation.deps.buckets  # noqa: F401  (both kinds registered: names shared, entries apart)
    assert [a.name for a in buckets.attributes_for("easy")] == [
        "sentence_length", "genre", "relation", "first_argument", "second_argument", "argument_kinds", "distance"]
    assert buckets.get("easy", "relation") is not buckets.get("deps", "relation")
    with pytest.raises(Exception, match="no attribute 'arc_length' for the kind easy"):
        buckets.get("easy", "arc_length")


def test_headline_by_hand_is_the_scorers(small, small_docs):
    # gold relations 2 + 1 = 3, run relations 2 + 1 = 3, matched SUJ-V in E1 and E2 = 2: F = 2*2 / (3 + 3)
    h = small["headline"]
    assert (h["gold"], h["test"], h["correct"]) == (3, 3, 2)
    assert h["f"] == pytest.approx(2 / 3) and h["recall"] == pytest.approx(2 / 3)
    result = score_corpus(*small_docs, bootstrap=0)
    (cell,) = [c for c in result["cells"] if (c["layer"], c["mode"], c["match"], c["genre"], c["type"])
               == ("relations", "HYP", "EQUAL", ALL, ALL)]
    assert (cell["cr"], cell["fp"], cell["fc"], cell["f"]) == (3, 3, 2, h["f"])
    assert small["sentence_ids"] == ["general_small/E1", "general_small/E2"]


def test_relation_and_genre_by_hand(small):
    t = table(small, "relation")
    assert counts(t["SUJ-V"]) == (2, 2, 2, 2) and t["SUJ-V"]["f"] == 1.0
    assert counts(t["CPL-V"]) == (1, 1, 0, 0) and t["CPL-V"]["f"] == 0.0
    assert t["SUJ-V"]["sentences"] == [0, 1] and t["SUJ-V"]["error_sentences"] == []
    assert t["CPL-V"]["error_sentences"] == [0]
    g = table(small, "genre")  # E2's genre given per sentence
    assert counts(g["general"]) == (2, 2, 1, 1) and counts(g["oral"]) == (1, 1, 1, 1)


def test_argument_attributes_by_hand(small):
    # gold first arguments: GN (E1 SUJ-V, matched), GP (E1 CPL-V, missed), GN (E2, matched)
    # run first arguments: GN (E1 SUJ-V, right), form 4 (E1 CPL-V, wrong), form 1 (E2, right)
    t = table(small, "first_argument")
    assert counts(t["GN"]) == (2, 1, 2, 1)
    assert counts(t["GP"]) == (1, 0, 0, 0)
    assert counts(t["form"]) == (0, 2, 0, 1)
    # GN: recall 2/2, precision 1/1, F = 2·2·1 / (1·2 + 2·1) = 1; form: no gold, precision 1/2, F 0
    assert t["GN"]["f"] == 1.0 and t["form"]["recall"] is None and t["form"]["precision"] == 0.5
    assert t["form"]["f"] == 0.0
    assert counts(table(small, "second_argument")["NV"]) == (3, 3, 2, 2)
    k = table(small, "argument_kinds")
    assert counts(k["group/group"]) == (3, 1, 2, 1) and counts(k["form/group"]) == (0, 2, 0, 1)
    # every pair of arguments is adjacent: SUJ-V [1-2][3], CPL-V [4-6][3] and [4][3], E2 [1][2]
    assert counts(table(small, "distance")["0"]) == (3, 3, 2, 2)
    assert counts(table(small, "sentence_length")["1-10"]) == (3, 3, 2, 2)


def test_confusions_by_hand(small):
    rel, groups = small["confusions"]
    rows = {r["gold"]: r for r in rel["rows"]}
    assert {k: c["count"] for k, c in rows["SUJ-V"]["cells"].items()} == {"SUJ-V": 2}
    assert {k: c["count"] for k, c in rows["CPL-V"]["cells"].items()} == {"missing": 1}
    assert {k: c["count"] for k, c in rows["extra"]["cells"].items()} == {"CPL-V": 1}  # CPL-V(F4, NV)
    assert rel["columns"][-1] == "missing" and rows["extra"]["cells"]["CPL-V"]["sentences"] == [0]
    g = {r["gold"]: {k: c["count"] for k, c in r["cells"].items()} for r in groups["rows"]}
    # GN[1-2] kept, GN[1] of E2 gone; GP[4-6] gone; NV twice kept; the run's GN[5-6] is extra
    assert g == {"GN": {"GN": 1, "missing": 1}, "NV": {"NV": 2}, "GP": {"missing": 1}, "extra": {"GN": 1}}


def test_a_bad_run_is_refused_with_its_location(small_docs, tmp_path):
    gold, _ = small_docs
    bad = tmp_path / NAME
    bad.write_text(RUN.replace('type="NV"', 'type="XX"', 1).join(['<?xml version="1.0"?>\n<DOCUMENT '
                   'xmlns:xlink="http://www.w3.org/1999/xlink">\n', "</DOCUMENT>\n"]), encoding="utf-8")
    with pytest.raises(Exception) as info:
        easy_buckets.analyse(gold, [bad], bootstrap=0)
    assert "XX" in str(info.value) and NAME in str(info.value)


# -- the reference with perturbed runs ------------------------------------------------------------------------

def runs_of(gold_docs, seed):
    rnd = random.Random(seed)
    return [Document(name=d.name, sentences=[perturb(s, rnd) for s in d.sentences], has_constituents=True,
                     has_relations=True) for d in gold_docs]


@pytest.fixture(scope="module")
def reference(gold_docs):
    return gold_docs, runs_of(gold_docs, 7), runs_of(gold_docs, 8)


def test_buckets_add_up_to_the_scorers_headline_for_every_attribute(reference):
    gold, run, _ = reference
    result = score_corpus(gold, run, bootstrap=200, matches=("EQUAL",), modes=("HYP",))
    (cell,) = [c for c in result["cells"] if (c["layer"], c["genre"], c["type"]) == ("relations", ALL, ALL)]
    doc = easy_buckets.analyse(gold, run, bootstrap=200, confusions=True)
    assert 0.6 < cell["f"] < 0.9
    h = doc["headline"]
    assert (h["gold"], h["test"], h["correct"], h["f"]) == (cell["cr"], cell["fp"], cell["fc"], cell["f"])
    assert h["f_ci"] == cell["ci"]  # the same genre-stratified draws as the scorer's interval
    assert len(doc["attributes"]) == 7
    for attribute in doc["attributes"]:
        total = tuple(sum(b[k] for b in attribute["buckets"]) for k in ("gold", "test", "correct", "correct_test"))
        assert total == (cell["cr"], cell["fp"], cell["fc"], cell["fc"]), attribute["name"]
    # the genre buckets are the scorer's per-genre cells
    for genre, bucket in table(doc, "genre").items():
        (c,) = [c for c in result["cells"] if (c["layer"], c["genre"], c["type"]) == ("relations", genre, ALL)]
        assert (bucket["gold"], bucket["test"], bucket["correct"], bucket["f"]) == (c["cr"], c["fp"], c["fc"], c["f"])
    # the relation buckets are the scorer's per-type cells
    for rtype, bucket in table(doc, "relation").items():
        (c,) = [c for c in result["cells"] if (c["layer"], c["genre"], c["type"]) == ("relations", ALL, rtype)]
        assert (bucket["gold"], bucket["test"], bucket["correct"]) == (c["cr"], c["fp"], c["fc"])
    # confusion rows sum to the gold counts of their type and group type
    rel, groups = doc["confusions"]
    gold_types = {k: b["gold"] for k, b in table(doc, "relation").items()}
    assert {r["gold"]: r["count"] for r in rel["rows"] if r["gold"] != "extra"} == gold_types
    for row in rel["rows"]:
        assert sum(c["count"] for c in row["cells"].values()) == row["count"]
    group_cells = [c for c in result["cells"] if (c["layer"], c["genre"], c["match"]) == ("constituents", ALL, "EQUAL")]
    assert {r["gold"]: r["count"] for r in groups["rows"] if r["gold"] != "extra"} == {
        c["type"]: c["cr"] for c in group_cells if c["type"] != ALL and c["cr"]}
    # from the number to its sentences: every sentence listed with an error in a bucket has one there
    ids = doc["sentence_ids"]
    assert len(ids) == 3585 and len(set(ids)) == len(ids)
    for bucket in table(doc, "relation").values():
        assert set(bucket["error_sentences"]) <= set(bucket["sentences"])


def test_the_pairwise_test_of_a_bucket_of_every_item_is_the_comparisons(reference):
    """One genre's documents: the genre's bucket holds every item of both runs, and its test is the comparison
    page's test of the headline figure (the scorer's rows, the page's figure set, the same draws)."""
    from evaluation.kinds.easy.figures import easy_figures
    gold, run_a, run_b = (docs[:4] for docs in reference)  # general_elda, _lemonde, _mlcc, _senat
    assert {d.name.split("_")[0] for d in gold} == {"general"}
    ca, cb = easy_buckets.count(gold, run_a), easy_buckets.count(gold, run_b)
    section = bucket_pairs.compare(ca, cb, by=["genre", "relation"], resamples=500, seed=3)
    (whole,) = section["attributes"][0]["buckets"]
    plan = Plan(DEFAULT_SCHEMA, MATCHES, MODES)
    rows = {}
    for name, run in (("a", run_a), ("b", run_b)):
        _, (keys, genres, x), _ = score_corpus_with_rows(gold, run, bootstrap=0)
        rows[name] = x
    assert keys == ca.keys and genres == ca.strata
    page = paired.compare_all(rows, genres, easy_figures(plan), resamples=500, seed=3)[("a", "b")]
    k = page.keys.index(("micro", "relations", "HYP", "EQUAL", ALL))
    assert whole["diff"] == page.diff[ALL][k]
    assert whole["se"] == pytest.approx(page.se[ALL][k], rel=1e-12)
    assert whole["p"] == pytest.approx(page.p[ALL][k], rel=1e-9)
    assert whole["ci"] == pytest.approx([page.low[ALL][k], page.high[ALL][k]], rel=1e-12)
    assert whole["mde"] == pytest.approx(paired.detectable(page.se[ALL][k]), rel=1e-12)
    # a family of one: Benjamini–Hochberg leaves its p as it is
    assert whole["p_bh"] == whole["p"]
    # the relation buckets: one family, adjusted together
    rel = section["attributes"][1]["buckets"]
    assert [b["p_bh"] for b in rel] == pytest.approx(paired.benjamini_hochberg([b["p"] for b in rel]))
    for b in rel:
        assert b["verdict"] in (("A", "B") if b["significant"] else ("no difference", "too few to tell"))
        assert set(b["differing_sentences"]) <= set(b["sentences"])


def test_pairwise_refuses_runs_on_other_sentences(reference):
    gold, run_a, _ = reference
    ca = easy_buckets.count(gold[:2], run_a[:2], by=["relation"])
    cb = easy_buckets.count(gold[:3], run_a[:3], by=["relation"])
    with pytest.raises(Exception, match="not analysed on the same sentences"):
        bucket_pairs.compare(ca, cb)


def test_common_errors_of_three_runs(reference):
    gold, run_a, run_b = (docs[:2] for docs in reference)
    errors = [easy_buckets.count(gold, run, by=["relation"], errors=True).errors for run in (run_a, run_b, gold)]
    assert errors[2] == []  # the gold itself makes none
    out = common_errors(errors, names=["a", "b", "gold"])
    assert out["threshold"] == 2  # more than half of three runs
    shared = set(errors[0]) & set(errors[1])
    assert out["hard_for_everyone"] == len(shared) > 0
    assert out["single_run"] == {"a": len(set(errors[0]) - shared), "b": len(set(errors[1]) - shared), "gold": 0}
    assert all(e["runs"] == ["a", "b"] for e in out["hard"])
    assert sum(entry["errors"] for entry in out["labels"]) == out["errors"]


def test_common_errors_by_hand():
    a = [(0, "missed", "SUJ-V", "x"), (1, "spurious", "COD-V", "y"), (2, "missed", "SUJ-V", "z")]
    b = [(0, "missed", "SUJ-V", "x"), (2, "missed", "SUJ-V", "z")]
    c = [(0, "missed", "SUJ-V", "x"), (3, "missed", "MOD-N", "w")]
    out = common_errors([a, b, c], names=["a", "b", "c"])
    # x: 3 runs, z: 2 runs (at least half of 3), y and w: one run each
    assert [(e["item"], e["runs"]) for e in out["hard"]] == [("x", ["a", "b", "c"]), ("z", ["a", "b"])]
    assert out["single_run"] == {"a": 1, "b": 0, "c": 1}
    assert {d["label"]: (d["errors"], d["hard"], d["single"]) for d in out["labels"]} == {
        "SUJ-V": (2, 2, 0), "COD-V": (1, 0, 1), "MOD-N": (1, 0, 1)}


def test_the_command(reference, tmp_path, capsys):
    gold, run_a, run_b = (docs[:3] for docs in reference)
    folders = {}
    for name, docs in (("gold", gold), ("runA", run_a), ("runB", run_b)):
        folders[name] = tmp_path / name
        folders[name].mkdir()
        for d in docs:
            write_document(d, folders[name] / d.name)
    genres = tmp_path / "genres.txt"
    # documents by name, one sentence by its document/sentence id
    genres.write_text("general_elda press\ngeneral_lemonde.xml press\ngeneral_mlcc other\ngeneral_mlcc/E14 odd\n",
                      encoding="utf-8")
    out = tmp_path / "a.json"
    assert main(["analyse", "--kind", "easy", "--gold", str(folders["gold"]), "--run", str(folders["runA"]),
                 "--against", str(folders["runB"]), "--by", "genre", "--by", "relation", "--genres", str(genres),
                 "--confusions", "--common", "--bootstrap", "50", "--resamples", "50", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "by genre" in text and "pairwise: runA - runB" in text and "confusions, relations" in text
    assert "common errors of 2 runs" in text
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["schema"] == "parseval-analysis/1" and doc["kind"] == "easy"
    assert set(table(doc, "genre")) == {"press", "other", "odd"} and doc["bootstrap"]["strata"] == "genre"
    assert table(doc, "genre")["odd"]["sentences"] == [doc["sentence_ids"].index("general_mlcc/E14")]
    assert [a["name"] for a in doc["pairwise"]["attributes"]] == ["genre", "relation"]
    assert doc["files"] == {"gold": str(folders["gold"]), "run": str(folders["runA"]),
                            "against": str(folders["runB"]), "also": []}
    assert main(["analyse", "--kind", "easy", "--gold", str(folders["gold"]), "--run", str(folders["runA"]),
                 "--by", "colour"]) == 2
    assert "no attribute 'colour' for the kind easy" in capsys.readouterr().err


def test_hard_for_everyone_means_a_majority():
    error = [(0, "missed", "SUJ-V", "x")]
    assert common_errors([error, error, [], []])["hard_for_everyone"] == 0  # two of four: not a majority
    assert common_errors([error, error, error, []])["hard_for_everyone"] == 1
    assert common_errors([error, error])["threshold"] == 2


def test_a_run_in_memory_with_other_forms_is_refused(small_docs):
    gold, _ = small_docs
    other = load(RUN.replace(">canapé<", ">lit<"), name=NAME)
    with pytest.raises(Exception, match="lit"):
        easy_buckets.count(gold, [other])


def test_a_genre_for_an_unknown_sentence_is_refused(small_docs):
    with pytest.raises(Exception, match="a genre is given for 1 sentence.* general_small/E9"):
        easy_buckets.count(*small_docs, sentence_genres={"general_small/E9": "oral"})
