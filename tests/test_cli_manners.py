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
