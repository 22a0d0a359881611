"""``python -m evaluation``: what every command does with unusable input (capped lists, exit 2, paths once)."""
from __future__ import annotations

import re

import pytest

from evaluation.__main__ import main


def test_a_wrong_file_type_gives_20_problems_and_a_count_unless_all_are_asked(shared_data, capsys):
    gold = str(shared_data / "ud-french" / "fr_gsd-ud-test.conllu")
    easy = shared_data / "easy-ref" / "ref" / "mail_9.xml"
    assert main(["deps", "--gold", gold, "--test", str(easy)]) == 2
    err = capsys.readouterr().err.splitlines()
    # every non-blank line of the XML file is a problem (a CoNLL-U line has 10 columns)
    nonblank = sum(1 for line in easy.read_text(encoding="utf-8").splitlines() if line.strip())
    assert len(err) == 21 and err[0].startswith("error: ")
    assert err[-1] == f"... and {nonblank - 20} more problems (--all-problems lists them all)"
    assert main(["deps", "--gold", gold, "--test", str(easy), "--all-problems"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == nonblank


@pytest.mark.parametrize("argv", [
    ["deps", "--gold", "{empty}.conllu", "--test", "{empty}.conllu"],
    ["trees", "--gold", "{empty}.mrg", "--test", "{empty}.mrg", "--metric", "evalb"],
    ["easy", "--gold", "{dir}", "--run", "{dir}"],
])
def test_empty_input_is_an_error_with_exit_2_naming_the_path_once(tmp_path, capsys, argv):
    (tmp_path / "empty.conllu").write_text("")
    (tmp_path / "empty.mrg").write_text("\n")
    (tmp_path / "empty").mkdir()
    argv = [a.format(empty=tmp_path / "empty", dir=tmp_path / "empty") for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "empty input" in err
    assert err.count(str(tmp_path)) == 1, err


def test_evalb_param_file_is_validated(shared_data, tmp_path, capsys):
    sample = shared_data / "evalb-sample"
    args = ["trees", "--gold", str(sample / "sample.gld"), "--test", str(sample / "sample.tst"), "--metric", "evalb"]
    # a tree file given as the parameter file: refused, not read as all-default settings
    assert main(args + ["--param", str(sample / "sample.gld")]) == 2
    assert "not an evalb parameter file" in capsys.readouterr().err
    assert main(args + ["--param", str(sample / "sample.prm")]) == 0
    capsys.readouterr()
    # one unknown keyword beside known ones: evalb's behaviour, a warning on stderr
    prm = tmp_path / "mine.prm"
    prm.write_text("LABELED 1\nFOO 1\n")
    assert main(args + ["--param", str(prm)]) == 0
    assert "Unknown keyword (FOO 1) in parameter file" in capsys.readouterr().err  # evalb's own words


@pytest.mark.parametrize("command", ["", "easy", "trees", "deps", "convert", "transform", "flatten", "errors"])
def test_help_is_plain_text(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"] if command else ["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "usage: python -m evaluation" in out
    assert not re.search(r"``|:class:|:func:|:mod:", out), out


# -- one unit in every text report, intervals printed when asked, warnings and errors that say what to do ---------

def _damaged_pair(tmp_path):
    """40 Sequoia trees as gold, and the same with attachment errors, as one-tree-a-line files."""
    from parseval.annotations.trees.penn import parse_penn, write_penn
    from parseval.evaluation.deps.errorlab import insert_errors
    from tests.conftest import sequoia_trees

    text = sequoia_trees("frwiki", 40)
    trees = parse_penn(text)
    out = insert_errors(trees, "ATTACH I", seed=3, per_type=8)
    for i, tree in zip(out["indices"], out["damaged"]):
        trees[i] = tree
    (tmp_path / "g.mrg").write_text(text, encoding="utf-8")
    (tmp_path / "t.mrg").write_text(write_penn(trees), encoding="utf-8")
    return str(tmp_path / "g.mrg"), str(tmp_path / "t.mrg")


@pytest.mark.parametrize("metric, line, key", [
    ("evalb", "Bracketing FMeasure       =", "summary.all.f"),
    ("leaf-ancestor", "LA, mean over words       =", "summary.word_mean"),
    ("geig1991", "Mean recall               =", "summary.mean_recall"),
    ("conformance", "Conformance               =", "summary.conformance"),
])
def test_every_tree_metric_prints_percentages_and_keeps_fractions_in_json(tmp_path, capsys, metric, line, key):
    import json

    from parseval.evaluation.metrics.base import value_at

    gold, test = _damaged_pair(tmp_path)
    extra = ["--param", str(tmp_path / "rules.txt")] if metric == "conformance" else []
    if metric == "conformance":
        (tmp_path / "rules.txt").write_text("")
    assert main(["trees", "--gold", gold, "--test", test, "--metric", metric, *extra,
                 "--json", str(tmp_path / "o.json")]) == 0
    text = capsys.readouterr().out
    value = value_at(json.loads((tmp_path / "o.json").read_text()), key)
    assert 0 < value <= 1 and (value < 1 or metric == "conformance")  # a fraction; the inserted errors show
    shown = float(re.search(re.escape(line) + r"\s*([\d.]+)", text).group(1))
    assert shown == pytest.approx(100 * value, abs=0.006)  # the text, a percentage with two decimals


@pytest.mark.parametrize("metric", ["evalb", "leaf-ancestor"])
def test_bootstrap_prints_the_intervals_of_the_json(tmp_path, capsys, metric):
    import json

    gold, test = _damaged_pair(tmp_path)
    args = ["trees", "--gold", gold, "--test", test, "--metric", metric]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert "bootstrap" not in plain
    assert main(args + ["--bootstrap", "40", "--seed", "3", "--json", str(tmp_path / "o.json")]) == 0
    text = capsys.readouterr().out
    assert text.startswith(plain)  # the report itself is unchanged (evalb's stays evalb's)
    block = text[len(plain):]
    assert "=== 95% bootstrap intervals (40 resamples of the sentences, seed 3) ===" in block
    doc = json.loads((tmp_path / "o.json").read_text())
    name, key = ("all.f", doc["summary"]["all"]) if metric == "evalb" else ("word_mean", doc["summary"])
    low, high = key[f"{name.split('.')[-1]}_ci"]
    row = re.search(rf"^{re.escape(name)}\s+=\s+([\d.]+)\s+\[\s*([\d.]+),\s*([\d.]+)\]$", block, re.M)
    assert row, block
    assert (float(row.group(2)), float(row.group(3))) == (pytest.approx(100 * low, abs=0.006),
                                                          pytest.approx(100 * high, abs=0.006))
    assert low < high


def test_deps_bootstrap_prints_its_intervals(shared_data, capsys):
    gold = str(shared_data / "ud-french" / "fr_sequoia-ud-dev.conllu")
    assert main(["deps", "--gold", gold, "--test", gold, "--bootstrap", "20"]) == 0
    text = capsys.readouterr().out
    assert "=== 95% bootstrap intervals (20 resamples of the sentences" in text
    assert re.search(r"^las\s+= 100\.00  \[100\.00, 100\.00\]$", text, re.M)


def test_easy_prints_its_intervals_and_says_which_side_a_warning_is_about(shared_data, capsys, tmp_path):
    import json

    oral = str(shared_data / "easy-ref" / "ref" / "oral_delic_1.xml")
    assert main(["easy", "--gold", oral, "--run", oral, "--bootstrap", "30", "--json", str(tmp_path / "o.json")]) == 0
    text = capsys.readouterr().out
    assert "F (%) with its 95% bootstrap interval, all types pooled (30 resamples" in text
    doc = json.loads((tmp_path / "o.json").read_text())
    cell = next(c for c in doc["cells"] if (c["layer"], c["genre"], c["type"], c["match"]) ==
                ("constituents", "ALL", "ALL", "EQUAL") and c.get("ci"))
    assert re.search(rf"^constituents\s+{100 * cell['f']:.2f} \[{100 * cell['ci'][0]:.2f}, {100 * cell['ci'][1]:.2f}\]",
                     text, re.M)
    assert "10 warning(s) (see the JSON document)" in text
    assert main(["easy", "--gold", oral, "--run", oral, "--bootstrap", "30"]) == 0
    text = capsys.readouterr().out
    warnings = [line for line in text.splitlines() if line.startswith("  gold ") or line.startswith("  run ")]
    # the file is both gold and run: each of its 5 warnings is said once for each side, and says which
    assert len(warnings) == 10 and sum(w.startswith("  gold ") for w in warnings) == 5
    assert all(", line " in w and ", sentence E9" in w for w in warnings)
    assert {w["side"] for w in doc["warnings"]} == {"gold", "run"}
    assert main(["easy", "--gold", oral, "--run", oral, "--bootstrap", "0"]) == 0
    assert "bootstrap interval" not in capsys.readouterr().out


def _joined(first: str, second: str) -> str:
    """Two CoNLL-U sentences as one, as a parser segmenting the raw text otherwise would give them."""
    rows = [r for r in first.split("\n") if not r.startswith("#")]
    words = [r.split("\t") for r in rows if r.split("\t")[0].isdigit()]
    offset, root = len(words), next(w[0] for w in words if w[6] == "0")
    for row in second.split("\n"):
        if row.startswith("#"):
            continue
        cells = row.split("\t")
        cells[0] = "-".join(str(int(i) + offset) for i in cells[0].split("-"))
        if cells[6].isdigit():
            cells[6], cells[7] = (root, "parataxis") if cells[6] == "0" else (str(int(cells[6]) + offset), cells[7])
        rows.append("\t".join(cells))
    return "\n".join(rows)


def test_deps_on_a_parse_of_the_raw_text_points_to_the_conll18_preset(shared_data, tmp_path, capsys):
    blocks = (shared_data / "ud-french" / "fr_sequoia-ud-dev.conllu").read_text(encoding="utf-8").split("\n\n")
    (tmp_path / "g.conllu").write_text("\n\n".join(blocks[:6]) + "\n\n", encoding="utf-8")
    (tmp_path / "t.conllu").write_text("\n\n".join(blocks[:4] + [_joined(blocks[4], blocks[5])]) + "\n\n",
                                       encoding="utf-8")  # the same text, the last two sentences made one
    args = ["deps", "--gold", str(tmp_path / "g.conllu"), "--test", str(tmp_path / "t.conllu")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "gold has 6 sentences, test has 5" in err and "hint: " in err and "--preset conll18" in err
    assert main(args + ["--preset", "conll18"]) == 0


def test_a_tree_metric_stopped_by_evalbs_sample_suggests_on_error_skip(shared_data, capsys):
    sample = shared_data / "evalb-sample"
    args = ["trees", "--gold", str(sample / "sample.gld"), "--test", str(sample / "sample.tst"),
            "--metric", "leaf-ancestor"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "sample.tst, line 11" in err
    assert "hint: --on-error skip" in err
    assert main(args + ["--on-error", "skip"]) == 0
    capsys.readouterr()
    assert main(args + ["--on-error", "raise"]) == 2
    assert "hint:" not in capsys.readouterr().err  # asked for: no advice


def test_ud2easy_help_names_its_flags_placeholders(capsys):
    with pytest.raises(SystemExit):
        main(["ud2easy", "--help"])
    out = capsys.readouterr().out
    usage = " ".join(out.split("\n\n")[0].split())
    assert "--conllu PARSES" in usage and "--out RUN_DIR" in usage and "--corpus CORPUS" in usage
    placeholders = set(re.findall(r"\b[A-Z][A-Z_]{3,}\b", out)) - {"EASY", "CONLL"}  # names, not placeholders
    assert {"CORPUS", "PARSES", "RUN_DIR"} <= placeholders
    assert all(p in usage for p in placeholders), placeholders
