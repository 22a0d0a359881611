"""python -m evaluation trees / flatten: exit codes, text and JSON contract."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import sequoia_mrg
from tests.trees.test_evalb import EXPECTED_SAMPLE

REPO = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evaluation", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def sample(shared_data):
    d = shared_data / "evalb-sample"
    return str(d / "sample.gld"), str(d / "sample.tst"), str(d / "sample.prm")


def test_evalb_text_and_json(sample, tmp_path):
    gold, test, prm = sample
    out = tmp_path / "evalb.json"
    proc = run("trees", "--gold", gold, "--test", test, "--metric", "evalb", "--param", prm, "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EXPECTED_SAMPLE
    assert "12 : Words unmatch (is|was)" in proc.stderr
    doc = json.loads(out.read_text())
    assert set(doc) >= {"metric", "signature", "sentences", "summary"} and doc["metric"] == "evalb"
    row = doc["sentences"][0]
    assert row["index"] == 1
    assert set(row) >= {"length", "matched", "gold_brackets", "test_brackets", "crossing", "recall", "precision",
                        "words", "correct_tags", "status"}
    for block in ("all", "cutoff"):
        assert set(doc["summary"][block]) >= {
            "sentences", "errors", "skipped", "recall", "precision", "f", "exact_match", "avg_crossing",
            "no_crossing", "two_or_less_crossing", "tagging_accuracy"}
    assert doc["summary"]["all"]["errors"] == 5


@pytest.mark.parametrize(
    "metric, sentence_keys, summary_keys",
    [
        ("geig1991", {"recall", "precision", "crossing"}, {"mean_recall", "mean_precision", "crossing_distribution"}),
        ("conformance", {"key", "response", "matched", "violated", "recall", "precision", "conformance"},
         {"recall", "precision", "conformance"}),
        ("leaf-ancestor", {"score", "words", "geig_unlabelled_f", "geig_labelled_f"}, {"word_mean", "sentence_mean"}),
    ],
)
def test_other_metrics_json_keys(tmp_path, metric, sentence_keys, summary_keys):
    (tmp_path / "two.mrg").write_text(sequoia_mrg("annodis", 2, skip=1), encoding="utf-8")
    mrg = str(tmp_path / "two.mrg")
    proc = run("trees", "--gold", mrg, "--test", mrg, "--metric", metric, "--json", "-")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["metric"] == metric and doc["signature"].startswith(f"metric:{metric}|")
    assert [r["index"] for r in doc["sentences"]] == [1, 2]
    assert set(doc["sentences"][0]) >= sentence_keys
    assert set(doc["summary"]) >= summary_keys


def test_square_files_detected(tmp_path):
    (tmp_path / "g").write_text("[S [N1 two [N1 tax revision ] bills ] were passed ]\n")
    (tmp_path / "t").write_text("[S [NP two tax revision bills ] were passed ]\n")
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), "--metric", "leaf-ancestor")
    assert proc.returncode == 0, proc.stderr
    assert "LA, mean over words       =  83.33" in proc.stdout
    assert "gold: [ N1 N1 S | test: NP S" in proc.stdout
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), "--metric", "leaf-ancestor",
               "--costs", "strict")
    assert "LA, mean over words       =  66.67" in proc.stdout


def test_bad_input_exit_2_with_location(tmp_path):
    (tmp_path / "g").write_text("(S (A a) (B b))\n")
    (tmp_path / "t").write_text("(S (A a) (B c))\n")
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), "--metric", "leaf-ancestor")
    assert proc.returncode == 2
    assert "line 1" in proc.stderr and "sentence 1" in proc.stderr and str(tmp_path / "t") in proc.stderr
    (tmp_path / "empty").write_text("")
    proc = run("trees", "--gold", str(tmp_path / "empty"), "--test", str(tmp_path / "t"), "--metric", "evalb")
    assert proc.returncode == 2 and "empty" in proc.stderr
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "nope"), "--metric", "evalb")
    assert proc.returncode == 2


def test_max_error_exit_1_after_summary(tmp_path):
    good = "(S (A (P this)) (B (Q is)))"
    (tmp_path / "g").write_text("\n".join([good] * 4) + "\n")
    (tmp_path / "t").write_text("\n".join([good.replace("is", "was")] * 4) + "\n")
    (tmp_path / "p.prm").write_text("MAX_ERROR 1\n")
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), "--metric", "evalb",
               "--param", str(tmp_path / "p.prm"))
    assert proc.returncode == 1
    # evalb goes on while Error_count++ > Max_error is false: errors 1 and 2 (counts 0, 1) pass,
    # error 3 (count 2 > 1) stops: three error sentences in the summary
    assert "=== Summary ===" in proc.stdout and "Number of Error sentence  =      3" in proc.stdout
    assert "MAX_ERROR=1" in proc.stderr


def test_flatten_command(tmp_path):
    from tests.trees.test_flatten import FLAT, PENN, RULES

    (tmp_path / "rules").write_text(RULES)
    (tmp_path / "trees").write_text(PENN + "\n")
    proc = run("flatten", "--rules", str(tmp_path / "rules"), str(tmp_path / "trees"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == FLAT + "\n"
    (tmp_path / "rules").write_text("(VP VBN VP)\n")
    proc = run("flatten", "--rules", str(tmp_path / "rules"), str(tmp_path / "trees"))
    assert proc.returncode == 2 and "line 1" in proc.stderr


@pytest.mark.parametrize("metric", ["evalb", "geig1991", "conformance", "leaf-ancestor"])
def test_skip_mode_lists_malformed_and_mismatched_lines(tmp_path, metric):
    good = "(S (A (P this)) (B (Q is) (A (R a) (T test))))"
    (tmp_path / "g").write_text("\n".join([good, good, good]) + "\n")
    (tmp_path / "t").write_text("\n".join([good + ")", good.replace("is", "was"), good]) + "\n")
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), "--metric", metric,
               "--on-error", "skip", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [r["status"] for r in doc["sentences"]] == ["error", "error", "ok"]
    proc = run("trees", "--gold", str(tmp_path / "g"), "--test", str(tmp_path / "t"), "--metric", metric,
               "--on-error", "raise")
    assert proc.returncode == 2 and "line 1" in proc.stderr


def test_transform_option_applies_to_both_sides_and_enters_the_signature(tmp_path):
    # Gold has an NP inside the PP, the test does not. Without transformation evalb
    # counts 5 gold brackets (S NP VP PP NP) and 4 test brackets, all 4 matched:
    # recall 4/5 = 0.8, precision 4/4 = 1.0. With no-np-in-pp the gold's inner NP
    # goes, 4 brackets each side, all matched: recall = precision = 1.0.
    gold = tmp_path / "gold.mrg"
    test = tmp_path / "test.mrg"
    gold.write_text("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))\n")
    test.write_text("(S (NP (DT the) (NN cat)) (VP (VBD sat) (PP (IN on) (DT the) (NN mat))))\n")
    plain, transformed = tmp_path / "plain.json", tmp_path / "transformed.json"
    assert run("trees", "--gold", str(gold), "--test", str(test), "--metric", "evalb", "--json", str(plain)).returncode == 0
    proc = run("trees", "--gold", str(gold), "--test", str(test), "--metric", "evalb",
               "--transform", "no-np-in-pp", "--json", str(transformed))
    assert proc.returncode == 0, proc.stderr
    before, after = json.loads(plain.read_text()), json.loads(transformed.read_text())
    assert before["summary"]["all"]["recall"] == pytest.approx(0.8)
    assert before["summary"]["all"]["precision"] == pytest.approx(1.0)
    assert after["summary"]["all"]["recall"] == pytest.approx(1.0)
    assert after["summary"]["all"]["precision"] == pytest.approx(1.0)
    assert "transform:no-np-in-pp" in after["signature"] and "transform" not in before["signature"]
    assert after["signature"].endswith(before["signature"].rsplit("|", 1)[1])  # the version stays last


def test_unknown_transform_is_refused_with_exit_2(tmp_path):
    trees = tmp_path / "t.mrg"
    trees.write_text("(S (NP (NN it)) (VP (VBZ works)))\n")
    proc = run("trees", "--gold", str(trees), "--test", str(trees), "--metric", "leaf-ancestor",
               "--transform", "no-such-step")
    assert proc.returncode == 2
    assert "no-such-step" in proc.stderr and "Traceback" not in proc.stderr
