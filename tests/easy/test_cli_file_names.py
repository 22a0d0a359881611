"""Command-line errors name a file as the command line gave it: a gold file and a run file share their name."""
from __future__ import annotations

import pytest

from parseval.__main__ import main
from tests.conftest import DATA

GOLD = (DATA / "easy-ref" / "ref" / "general_elda.xml").read_text(encoding="utf-8")


@pytest.fixture
def folders(tmp_path):
    gold, run = tmp_path / "gold", tmp_path / "run"
    gold.mkdir(), run.mkdir()
    return gold, run


def error_of(capsys, gold, run) -> tuple[int, str]:
    code = main(["easy", "--gold", str(gold), "--run", str(run)])
    return code, capsys.readouterr().err


def test_a_bad_run_file_is_named_as_the_run(folders, capsys):
    gold, run = folders
    (gold / "general_elda.xml").write_text(GOLD, encoding="utf-8")
    (run / "general_elda.xml").write_text(GOLD.replace('<F id="E1F1">', '<F id="E1F1" x>', 1), encoding="utf-8")
    code, err = error_of(capsys, gold, run)
    assert code == 2
    assert err.startswith(f"error: {run / 'general_elda.xml'}, line "), err


def test_a_bad_gold_file_is_named_as_the_gold(folders, capsys):
    gold, run = folders
    (gold / "general_elda.xml").write_text(GOLD[:GOLD.index("<E ")] + "<!-- never closed", encoding="utf-8")
    (run / "general_elda.xml").write_text(GOLD, encoding="utf-8")
    code, err = error_of(capsys, gold, run)
    assert code == 2
    assert err.startswith(f"error: {gold / 'general_elda.xml'}, line "), err
