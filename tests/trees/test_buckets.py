"""The constituency bucket analysis (issue 38): brackets worked out by hand, buckets that add up to evalb's
headline on evalb's sample and on Sequoia, the pairwise test against the comparison's, confusions, the command."""
from __future__ import annotations

import json

import numpy as np
import pytest

from evaluation.__main__ import main
from parseval.annotations.trees.penn import parse_penn
from parseval.evaluation import bucket_pairs, buckets, paired
from parseval.evaluation.figure_sets import metric_figures
from parseval.evaluation.metrics import get as metric
from parseval.evaluation.stats import ALL, bootstrap_intervals
from parseval.evaluation.trees import buckets as tree_buckets
from parseval.evaluation.trees import score_files
from tests.conftest import DATA, SEQUOIA_SOURCES, SEQUOIA_TREES

# Gold (S (NP le chat) (VP dort (PP sur (NP le lit)))); the run attaches the PP to S and leaves the VP one word.
# Gold brackets, depth: S[0,6] 1, NP[0,2] 2, VP[2,6] 2, PP[3,6] 3, NP[4,6] 4
# Run brackets, depth:  S[0,6] 1, NP[0,2] 2, VP[2,3] 2, PP[3,6] 2, NP[4,6] 3
# Matched: S, NP[0,2], PP, NP[4,6]: 4 of 5 on each side (F 0.8). Line 2: words differ (an evalb error);
# line 3: an empty run line (a skip): neither has an item.
GOLD = ("(S (NP (D le) (N chat)) (VP (V dort) (PP (P sur) (NP (D le) (N lit)))))\n"
        "(S (NP (N Paul)) (VP (V rit)))\n"
        "(S (NP (N Marie)) (VP (V chante)))\n")
RUN = ("(S (NP (D le) (N chat)) (VP (V dort)) (PP (P sur) (NP (D le) (N lit))))\n"
       "(S (NP (N Pierre)) (VP (V rit)))\n"
       "\n")


def table(doc, name):
    (attribute,) = [a for a in doc["attributes"] if a["name"] == name]
    return {b["bucket"]: b for b in attribute["buckets"]}


def counts(bucket):
    return tuple(bucket[k] for k in ("gold", "test", "correct", "correct_test"))


@pytest.fixture(scope="module")
def small_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trees")
    (folder / "g.mrg").write_text(GOLD, encoding="utf-8")
    (folder / "r.mrg").write_text(RUN, encoding="utf-8")
    return folder / "g.mrg", folder / "r.mrg"


@pytest.fixture(scope="module")
def small(small_files):
    return tree_buckets.analyse_files(*small_files, bootstrap=0, confusions=True, genres=["a", "b", "b"])


def test_the_registry_lists_the_tree_attributes():
    assert [a.name for a in buckets.attributes_for("trees")] == [
        "sentence_length", "genre", "span_length", "label", "depth"]


def test_headline_by_hand_is_evalbs(small, small_files):
    h = small["headline"]
    assert (h["gold"], h["test"], h["correct"]) == (5, 5, 4) and h["f"] == pytest.approx(0.8)
    summary = score_files(*small_files, "evalb")["summary"]["all"]
    assert (summary["gold_brackets"], summary["test_brackets"], summary["matched"]) == (5, 5, 4)
    assert summary["errors"] == 1 and summary["skipped"] == 1
    assert h["f"] == summary["f"]


def test_attributes_by_hand(small):
    t = table(small, "label")
    assert counts(t["S"]) == (1, 1, 1, 1) and counts(t["NP"]) == (2, 2, 2, 2)
    assert counts(t["VP"]) == (1, 1, 0, 0) and counts(t["PP"]) == (1, 1, 1, 1)
    assert t["VP"]["error_sentences"] == [0] and t["NP"]["error_sentences"] == []
    s = table(small, "span_length")  # S 6 words, NP 2 + 2, VP 4 (gold) or 1 (run), PP 3
    assert counts(s["5-9"]) == (1, 1, 1, 1) and counts(s["2"]) == (2, 2, 2, 2)
    assert counts(s["3-4"]) == (2, 1, 1, 1) and counts(s["1"]) == (0, 1, 0, 0)
    d = table(small, "depth")
    assert counts(d["1"]) == (1, 1, 1, 1)
    assert counts(d["2"]) == (2, 3, 1, 2)  # gold NP (right), VP (missed); run NP, VP (wrong), PP (right)
    assert counts(d["3"]) == (1, 1, 1, 1)  # gold PP, run NP[4,6]: both right
    assert counts(d["4"]) == (1, 0, 1, 0)  # gold NP[4,6]
    # the error line and the skipped one have no item; their genre b keeps no bracket
    assert set(table(small, "genre")) == {"a"}
    assert counts(table(small, "sentence_length")["1-10"]) == (5, 5, 4, 4)


def test_confusion_by_hand(small):
    (labels,) = small["confusions"]
    rows = {r["gold"]: {k: c["count"] for k, c in r["cells"].items()} for r in labels["rows"]}
    assert rows == {"NP": {"NP": 2}, "PP": {"PP": 1}, "S": {"S": 1}, "VP": {"missing": 1}, "extra": {"VP": 1}}


def perturbed(lines: list[str]) -> list[str]:
    """A real-ish run: every sixth phrase relabelled, every ninth removed (its children go to its parent)."""
    out = []
    for line in lines:
        (tree,) = parse_penn(line, strip_outer=False)
        counter = [0]

        def walk(node):
            kept = []
            for child in node.children:
                if child.is_word or child.is_preterminal:
                    kept.append(child)
                    continue
                walk(child)
                counter[0] += 1
                if counter[0] % 6 == 3:
                    child.label = "XP"
                if counter[0] % 9 == 5:
                    kept.extend(child.children)
                else:
                    kept.append(child)
            node.children = kept
        walk(tree)
        out.append(tree.to_penn())
    return out


@pytest.fixture(scope="module")
def sequoia(tmp_path_factory):
    lines = SEQUOIA_TREES.read_text(encoding="utf-8").splitlines()[:800]
    starts = sorted(SEQUOIA_SOURCES.items(), key=lambda kv: kv[1])
    genres = [[n for n, first in starts if first <= k][-1] for k in range(len(lines))]
    folder = tmp_path_factory.mktemp("sequoia")
    for name, content in (("gold", lines), ("a", perturbed(lines)), ("b", perturbed(perturbed(lines)[::-1])[::-1])):
        (folder / f"{name}.mrg").write_text("\n".join(content) + "\n", encoding="utf-8")
    return folder, genres


def test_buckets_add_up_to_evalbs_headline_on_sequoia(sequoia):
    folder, genres = sequoia
    assert set(genres) == {"annodis", "emea"}
    for run, prm in (("a", None), ("a", DATA / "evalb-sample" / "sample.prm")):
        scored = score_files(folder / "gold.mrg", folder / f"{run}.mrg", "evalb",
                             **({"params": str(prm)} if prm else {}))
        summary = scored["summary"]["all"]
        doc = tree_buckets.analyse_files(folder / "gold.mrg", folder / f"{run}.mrg", params=prm and str(prm),
                                         genres=genres, bootstrap=200, confusions=True)
        assert 0.5 < summary["f"] < 0.95
        h = doc["headline"]
        assert (h["gold"], h["test"], h["correct"], h["f"]) == (
            summary["gold_brackets"], summary["test_brackets"], summary["matched"], summary["f"])
        for attribute in doc["attributes"]:
            total = tuple(sum(b[k] for b in attribute["buckets"]) for k in ("gold", "test", "correct", "correct_test"))
            assert total == (summary["gold_brackets"], summary["test_brackets"], summary["matched"],
                             summary["matched"]), attribute["name"]
        # the headline interval is the trees command's with the same genres and seed
        m = metric("evalb")
        intervals = bootstrap_intervals(m.rows(scored), m.columns, genres, m.figures, bootstrap=200, seed=12345)
        assert h["f_ci"] == intervals[ALL]["summary.all.f"]
        # confusion rows sum to the gold counts of their label
        (labels,) = doc["confusions"]
        assert {r["gold"]: r["count"] for r in labels["rows"] if r["gold"] != "extra"} == {
            k: b["gold"] for k, b in table(doc, "label").items() if b["gold"]}


def test_the_pairwise_test_of_a_bucket_of_every_item_is_the_comparisons(sequoia):
    folder, genres = sequoia
    one = ["all"] * len(genres)
    ca, cb = (tree_buckets.count(**_pair(folder, run), strata=one) for run in ("a", "b"))
    section = bucket_pairs.compare(ca, cb, by=["genre", "label"], resamples=300, seed=5)
    (whole,) = section["attributes"][0]["buckets"]
    m = metric("evalb")
    rows = {run: m.rows(score_files(folder / "gold.mrg", folder / f"{run}.mrg", "evalb")) for run in ("a", "b")}
    page = paired.compare_all(rows, one, metric_figures(["evalb"]), resamples=300, seed=5)[("a", "b")]
    k = page.keys.index(("micro", "evalb", "", "", ALL))
    assert whole["diff"] == page.diff[ALL][k]
    assert whole["se"] == pytest.approx(page.se[ALL][k], rel=1e-12)
    assert whole["p"] == pytest.approx(page.p[ALL][k], rel=1e-9)
    labels = section["attributes"][1]["buckets"]
    assert [b["p_bh"] for b in labels] == pytest.approx(paired.benjamini_hochberg([b["p"] for b in labels]))
    assert any(b["verdict"] == "A" for b in labels)  # the twice-perturbed run is worse somewhere
    assert np.isclose(whole["mde"], paired.detectable(page.se[ALL][k]))


def _pair(folder, run):
    pair = tree_buckets.read(folder / "gold.mrg", folder / f"{run}.mrg")
    return {"gold_trees": pair["gold_trees"], "test_trees": pair["test_trees"]}


def test_the_command(sequoia, tmp_path, capsys):
    folder, genres = sequoia
    genre_file = tmp_path / "genres.json"
    genre_file.write_text(json.dumps({str(k + 1): g for k, g in enumerate(genres)}), encoding="utf-8")
    out = tmp_path / "t.json"
    assert main(["analyse", "--kind", "trees", "--gold", str(folder / "gold.mrg"), "--run", str(folder / "a.mrg"),
                 "--against", str(folder / "b.mrg"), "--by", "label", "--genres", str(genre_file), "--confusions",
                 "--bootstrap", "20", "--resamples", "20", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "by label" in text and "pairwise: a.mrg - b.mrg" in text and "confusions, labels" in text
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["kind"] == "trees" and doc["bootstrap"]["strata"] == "genre"
    assert doc["sentence_ids"][:2] == ["1", "2"]
    genre_file.write_text(json.dumps({"1": "annodis"}), encoding="utf-8")
    assert main(["analyse", "--kind", "trees", "--gold", str(folder / "gold.mrg"), "--run", str(folder / "a.mrg"),
                 "--genres", str(genre_file)]) == 2
    assert "no genre for 799 sentence(s)" in capsys.readouterr().err
