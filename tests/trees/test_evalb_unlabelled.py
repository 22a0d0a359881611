"""evalb-unlabelled: evalb with LABELED 0, figures worked out by hand on two tiny sentences."""
from __future__ import annotations

import json

import pytest

from parseval.annotations.trees.penn import parse_penn
from parseval.evaluation import metrics
from parseval.evaluation.figure_sets import metric_figures
from parseval.evaluation.stats import ALL
from parseval.evaluation.trees import score_files

from .test_cli import run

GOLD = ("(S (NP (D le) (N chat)) (VP (V dort)))\n"
        "(S (NP (D un) (N chien)) (VP (V aboie) (ADV fort)))\n")
# Sentence 1: every label wrong, every span right. Sentence 2: labels right, NP and VP cut one word late.
TEST = ("(X (Y (D le) (N chat)) (Z (V dort)))\n"
        "(S (NP (D un) (N chien) (V aboie)) (VP (ADV fort)))\n")


@pytest.fixture
def files(tmp_path, shared_data):
    (tmp_path / "gold.mrg").write_text(GOLD)
    (tmp_path / "test.mrg").write_text(TEST)
    prm = (shared_data / "evalb-sample" / "COLLINS.prm").read_text(encoding="latin-1")
    assert "\nLABELED 1" in prm
    (tmp_path / "unlabelled.prm").write_text(prm.replace("\nLABELED 1", "\nLABELED 0"), encoding="latin-1")
    return tmp_path / "gold.mrg", tmp_path / "test.mrg", tmp_path / "unlabelled.prm"


def _score(name: str) -> dict:
    doc, rows = metrics.get(name).score_with_rows(parse_penn(GOLD), parse_penn(TEST))
    assert len(rows) == 2
    return doc


def test_hand_worked_figures():
    # gold brackets: S[0,3] NP[0,2] VP[2,3] | S[0,4] NP[0,2] VP[2,4]; test: X[0,3] Y[0,2] Z[2,3] | S[0,4] NP[0,3] VP[3,4]
    labelled, unlabelled = _score("evalb")["sentences"], _score("evalb-unlabelled")["sentences"]
    assert [(r["matched"], r["gold_brackets"], r["test_brackets"]) for r in labelled] == [(0, 3, 3), (1, 3, 3)]
    assert [(r["matched"], r["gold_brackets"], r["test_brackets"]) for r in unlabelled] == [(3, 3, 3), (1, 3, 3)]
    one = _score("evalb-unlabelled")["summary"]["all"]
    # unlabelled: 3 + 1 = 4 of 6 on either side: R = P = F = 4/6; sentence 1 complete: exact 1/2;
    # NP[0,3] crosses VP[2,4]: 1 crossing over 2 sentences
    assert one["recall"] == one["precision"] == pytest.approx(4 / 6)
    assert one["f"] == pytest.approx(2 / 3)
    assert one["exact_match"] == 0.5 and one["avg_crossing"] == 0.5
    lab = _score("evalb")["summary"]["all"]
    assert lab["f"] == pytest.approx(1 / 6) and lab["exact_match"] == 0.0  # only S[0,4] keeps its label
    # the first sentence alone: labelled F 0, unlabelled F 1
    first = [parse_penn(GOLD)[0]], [parse_penn(TEST)[0]]
    assert metrics.get("evalb").score_with_rows(*first)[0]["summary"]["all"]["f"] == 0.0
    assert metrics.get("evalb-unlabelled").score_with_rows(*first)[0]["summary"]["all"]["f"] == 1.0


def test_rows_give_the_engine_figures():
    metric = metrics.get("evalb-unlabelled")
    doc, rows = metric.score_with_rows(parse_penn(GOLD), parse_penn(TEST))
    sums = dict(zip(metric.columns, rows.sum(axis=0)))
    figures = metric.figures(sums)
    assert figures["summary.all.f"] == doc["summary"]["all"]["f"]
    assert figures["summary.all.exact_match"] == doc["summary"]["all"]["exact_match"]


def test_signature_and_registry():
    doc = _score("evalb-unlabelled")
    assert doc["signature"].startswith("metric:evalb|labeled:no|") and doc["params"]["LABELED"] == 0
    assert _score("evalb")["signature"].startswith("metric:evalb|labeled:yes|")
    assert "evalb-unlabelled" in metrics.TREE_METRICS
    layers = metrics.layers()
    assert layers["evalb-unlabelled"].label == "evalb F (unlabelled brackets)"
    assert "LABELED 0" in layers["evalb-unlabelled"].description
    assert layers["evalb-unl-exact"].f == "summary.all.exact_match"
    # the paired tests take the headline of every published layer from the registry
    (figures,) = metric_figures(["evalb-unlabelled"])
    assert figures.keys == (("micro", "evalb-unlabelled", "", "", ALL), ("micro", "evalb-unl-exact", "", "", ALL))


def test_equals_evalb_with_a_labeled_0_parameter_file(files):
    gold, test, prm = files
    library = score_files(gold, test, "evalb-unlabelled")
    # the same document, under its own name
    assert library["metric"] == "evalb-unlabelled"
    assert library == {**score_files(gold, test, "evalb", params=str(prm)), "metric": "evalb-unlabelled"}
    assert library["summary"] == _score("evalb-unlabelled")["summary"]
    reference = run("trees", "--metric", "evalb", "--param", str(prm), "--gold", str(gold), "--test", str(test),
                    "--json", "-")
    ours = run("trees", "--metric", "evalb-unlabelled", "--gold", str(gold), "--test", str(test), "--json", "-")
    assert reference.returncode == ours.returncode == 0, ours.stderr
    assert ours.stdout == reference.stdout.replace('"metric": "evalb"', '"metric": "evalb-unlabelled"', 1)
    assert json.loads(ours.stdout)["summary"] == library["summary"]
    text = [run("trees", "--metric", *m, "--gold", str(gold), "--test", str(test)).stdout
            for m in (("evalb-unlabelled",), ("evalb", "--param", str(prm)))]
    assert text[0] == text[1] and "Bracketing FMeasure       =  66.67" in text[0]
    # a parameter file saying LABELED 1 is still scored by span only
    labelled_prm = prm.with_name("labelled.prm")
    labelled_prm.write_text(prm.read_text(encoding="latin-1").replace("\nLABELED 0", "\nLABELED 1"), encoding="latin-1")
    assert score_files(gold, test, "evalb-unlabelled", params=str(labelled_prm))["summary"] == library["summary"]
