"""The statistics layer: figures from summed per-sentence rows are the engines' own; bootstrap intervals."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from parseval.annotations.conllu import read_conllu
from parseval.annotations.trees.detect import read_sentences
from parseval.evaluation import metrics, stats
from parseval.evaluation.deps.errorlab import insert_errors
from parseval.evaluation.metrics.base import value_at, with_intervals
from parseval.evaluation.trees import score_trees
from tests.conftest import sequoia_trees

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tree_pair(tmp_path_factory):
    """300 Sequoia trees as gold, and the same trees with attachment and label errors inserted."""
    path = tmp_path_factory.mktemp("trees") / "europar.mrg"
    path.write_text(sequoia_trees("europar", 300), encoding="utf-8")
    gold = read_sentences(path)[0]
    test = list(gold)
    for error in ("ATTACH I", "LABEL I"):
        out = insert_errors(test, error, seed=4, per_type=15)
        for i, tree in zip(out["indices"], out["damaged"]):
            test[i] = tree
    return gold, test


@pytest.mark.parametrize("name", metrics.TREE_METRICS)
def test_tree_figures_from_summed_rows_are_the_engines(name, tree_pair):
    gold, test = tree_pair
    metric = metrics.get(name)
    doc = score_trees(gold, test, name)
    rows = metric.rows(doc)
    assert rows.shape == (len(doc["sentences"]), len(metric.columns))
    figures = metric.figures(stats.column_sums(rows, metric.columns))
    assert set(metric.ratios) <= set(figures)
    for key, value in figures.items():
        # pooled ratios are the same divisions as the engine's; means may differ in the last binary digit
        assert value == pytest.approx(value_at(doc, key), rel=1e-12, abs=1e-15), key
    assert any(value_at(doc, key) < 1.0 for key in metric.ratios)  # the inserted errors show


def test_dependency_figures_from_summed_rows_are_the_engines(shared_data, tmp_path):
    gold = read_conllu(shared_data / "ud-french" / "fr_sequoia-ud-dev.conllu")
    # every fourth word re-attached to its sentence's first word (a wrong head unless it already was)
    text = (shared_data / "ud-french" / "fr_sequoia-ud-dev.conllu").read_text(encoding="utf-8")
    lines = []
    for line in text.split("\n"):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit() and int(cols[0]) % 4 == 0 and cols[6] not in ("0", "1"):
            cols[6] = "1"
        lines.append("\t".join(cols))
    (tmp_path / "test.conllu").write_text("\n".join(lines), encoding="utf-8")
    test = read_conllu(tmp_path / "test.conllu", check_cycles=False)
    metric = metrics.get("dependency")
    doc, rows = metric.score_with_rows(gold, test)
    assert rows.shape == (len(gold), len(metric.columns))
    figures = metric.figures(stats.column_sums(rows, metric.columns))
    for key in metric.ratios:
        assert figures[key] == value_at(doc, key), key  # integer counts: exactly the engine's divisions
    assert doc["totals"]["las"] < 1.0


def test_stratified_bootstrap_keeps_each_genre_whole():
    # Genre a: 10 sentences with 1 of 1 gold bracket found; genre b: 10 with 0 of 1.
    # Resampling within genres always draws 10 of each, so recall over ALL is always 10/20 = 0.5;
    # each genre alone never varies either.
    rows = np.array([[1, 1, 1]] * 10 + [[0, 1, 1]] * 10, dtype=np.int64)
    columns = ("matched", "gold", "test")

    def figures(s):
        return {"recall": stats.ratio(s["matched"], s["gold"])}

    out = stats.bootstrap_intervals(rows, columns, ["a"] * 10 + ["b"] * 10, figures, bootstrap=200, seed=1)
    assert out["ALL"]["recall"] == [0.5, 0.5]
    assert out["a"]["recall"] == [1.0, 1.0] and out["b"]["recall"] == [0.0, 0.0]
    # One stratum: the share of genre-a sentences in a resample varies, and so does recall.
    one = stats.bootstrap_intervals(rows, columns, ["x"] * 20, figures, bootstrap=200, seed=1)
    low, high = one["ALL"]["recall"]
    assert low < 0.5 < high


def test_undefined_figures_are_none_never_zero():
    # No test bracket at all: precision 0/0 is undefined, recall 0/3 is 0, and F is undefined with P.
    rows = np.array([[0, 3, 0]], dtype=np.int64)
    assert stats.prf(0, 0, 3) == (None, 0.0, 0.0)
    assert stats.prf(0, 0, 0) == (None, None, None)
    assert math.isnan(stats.ratio(0, 0)) and stats.defined(stats.ratio(0, 0)) is None
    figures = stats.aggregate(rows, ("matched", "gold", "test"), ["g"], lambda s: {
        "p": stats.ratio(s["matched"], s["test"]), "r": stats.ratio(s["matched"], s["gold"])})
    assert figures["ALL"] == {"p": None, "r": 0.0} and figures["g"] == {"p": None, "r": 0.0}


def test_intervals_are_placed_beside_their_figure():
    doc = {"totals": {"gold": 4, "recall": 0.5, "words": 4, "uas": 0.25}}
    with_intervals(doc, {"totals.recall": [0.25, 0.75], "totals.uas": None})
    assert list(doc["totals"]) == ["gold", "recall", "recall_ci", "words", "uas", "uas_ci"]
    assert doc["totals"]["recall_ci"] == [0.25, 0.75] and doc["totals"]["uas_ci"] is None


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluation", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("name", metrics.TREE_METRICS)
def test_trees_bootstrap_adds_an_interval_beside_every_ratio(name, tree_pair, tmp_path):
    from parseval.annotations.trees.penn import write_penn

    gold, test = tree_pair
    (tmp_path / "gold.mrg").write_text(write_penn(gold), encoding="utf-8")
    (tmp_path / "test.mrg").write_text(write_penn(test), encoding="utf-8")
    base = ["trees", "--gold", str(tmp_path / "gold.mrg"), "--test", str(tmp_path / "test.mrg"), "--metric", name,
            "--json", "-"]
    plain = _cli(*base)
    with_ci = _cli(*base, "--bootstrap", "300", "--seed", "7")
    again = _cli(*base, "--bootstrap", "300", "--seed", "7")
    other = _cli(*base, "--bootstrap", "300", "--seed", "8")
    assert plain.returncode == with_ci.returncode == 0, with_ci.stderr
    assert with_ci.stdout == again.stdout  # seeded: the same intervals every time
    assert with_ci.stdout != other.stdout
    plain_doc, doc = json.loads(plain.stdout), json.loads(with_ci.stdout)
    assert "_ci" not in plain.stdout and "bootstrap" not in plain_doc
    assert doc["bootstrap"] == {"resamples": 300, "seed": 7, "ci_level": 0.95, "strata": "none"}
    for key in metrics.get(name).ratios:
        value, ci = value_at(doc, key), value_at(doc, key + "_ci")
        assert ci is not None and ci[0] <= value <= ci[1], (key, value, ci)
    # Apart from the intervals, the document is the one without --bootstrap.
    for block in ("all", "cutoff") if name.startswith("evalb") else (None,):
        summary = doc["summary"][block] if block else doc["summary"]
        for key in [k for k in summary if k.endswith("_ci")]:
            del summary[key]
    del doc["bootstrap"]
    assert doc == plain_doc


def test_deps_bootstrap_puts_intervals_in_totals(shared_data):
    gold = str(shared_data / "ud-french" / "fr_sequoia-ud-dev.conllu")
    # the gold against itself: every figure 1.0, and so is every resample
    proc = _cli("deps", "--gold", gold, "--test", gold, "--json", "-", "--bootstrap", "100")
    assert proc.returncode == 0, proc.stderr
    totals = json.loads(proc.stdout)["totals"]
    assert list(totals)[:5] == ["gold", "test", "matched", "precision", "precision_ci"]
    for key in ("precision", "recall", "f", "uas", "las", "label_accuracy"):
        assert totals[key] == 1.0 and totals[f"{key}_ci"] == [1.0, 1.0]
    assert "words_ci" not in totals and "gold_ci" not in totals  # counts get no interval
