"""``python -m evaluation easy``: exit codes, tables, the JSON contract."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

from evaluation.__main__ import main
from parseval.evaluation.easy import gold_sha256

from .conftest import REPO_ROOT, easy_xml, sentence

KEYS = {"layer", "mode", "match", "genre", "type", "fc", "fp", "cr", "p", "r", "f", "ci"}


def test_guide_against_itself_exit_0_and_json(easy_guide, tmp_path, capsys):
    out = tmp_path / "res.json"
    code = main(["easy", "--gold", str(easy_guide), "--run", str(easy_guide), "--bootstrap", "20",
                 "--json", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "relations F (%), all types pooled" in printed.out and "100.00" in printed.out
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert {"signature", "scorer_version", "gold_sha256", "cells", "macro", "warnings"} <= set(doc)
    assert doc["gold_sha256"] == gold_sha256(sorted(easy_guide.glob("*.xml")))
    assert len({(c["layer"], c["mode"], c["match"]) for c in doc["cells"]}) == 20
    for c in doc["cells"] + doc["macro"]:
        assert KEYS <= set(c)
        assert c["layer"] in ("constituents", "relations")
        assert c["mode"] in (("HYP", "DEFHYP", "REF") if c["layer"] == "relations" else (None,))
        if c["fp"] or c["cr"]:
            assert c["f"] == 1.0
    # Guide.N.easyref has no "_": each file is its own genre
    assert "Guide.1.easyref" in {c["genre"] for c in doc["cells"]}


def test_shipped_gold_unchanged_is_a_valid_run_scoring_1_in_all_20_ways(easy_ref, tmp_path, capsys):
    out = tmp_path / "res.json"
    code = main(["easy", "--gold", str(easy_ref), "--run", str(easy_ref), "--bootstrap", "0", "--json", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    doc = json.loads(out.read_text(encoding="utf-8"))
    pooled = [c for c in doc["cells"] if c["genre"] == "ALL" and c["type"] == "ALL"]
    # 5 range functions x (constituents + 3 relation modes) = 20 ways
    assert len({(c["layer"], c["mode"], c["match"]) for c in pooled}) == 20
    assert all(c["f"] == c["p"] == c["r"] == 1.0 for c in pooled)
    run_side = [w["message"] for w in doc["warnings"] if "read as a null argument" in w["message"]]
    # 3 pointers to no form in the gold (general_lemonde E57, E83; oral_delic_4 E47): once as gold, once as run
    assert len(run_side) == 6
    assert sum("duplicate relation id" in w["message"] for w in doc["warnings"]) == 2 * 3  # oral_delic_1 E96R1-3


def test_options_and_genre_map(easy_guide, tmp_path, capsys):
    genres = tmp_path / "genres.txt"
    genres.write_text("".join(f"Guide.{k}.easyref guide{'A' if k < 8 else 'B'}\n" for k in range(1, 16)))
    out = tmp_path / "res.json"
    code = main(["easy", "--gold", str(easy_guide), "--run", str(easy_guide / "Guide.3.easyref.xml"),
                 "--match", "fuzzy,EQUAL", "--mode", "REF", "--bootstrap", "0", "--genres", str(genres),
                 "--json", str(out), "--allow-missing"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "14 gold document(s) without a run file, scored as empty output (--allow-missing): Guide.1.easyref," \
        in printed.out
    doc = json.loads(out.read_text())
    assert {c["genre"] for c in doc["cells"]} == {"ALL", "guideA", "guideB"}
    assert {c["match"] for c in doc["cells"]} == {"FUZZY", "EQUAL"}
    assert {c["mode"] for c in doc["cells"] if c["layer"] == "relations"} == {"REF"}
    # the other 14 gold files have no run: scored as empty output, with a warning
    all_rel = [c for c in doc["cells"] if c["layer"] == "relations" and c["genre"] == "ALL" and c["type"] == "ALL"]
    assert all(0 < c["r"] < 1 and c["p"] == 1.0 for c in all_rel)
    assert any("no run for gold document" in w["message"] for w in doc["warnings"])


def test_invalid_run_exit_2_with_message_and_no_traceback(tmp_path):
    gold = tmp_path / "gold"
    run = tmp_path / "run"
    gold.mkdir()
    run.mkdir()
    (gold / "mail_1.xml").write_bytes(easy_xml(sentence("E1", ["Il", "dort"], {(1, 1): ("G1", "GN")})))
    (run / "mail_1.xml").write_bytes(easy_xml(sentence("E1", ["Il", "dort"], {(1, 1): ("G1", "ZZ")})))
    proc = subprocess.run([sys.executable, "-m", "evaluation", "easy", "--gold", str(gold), "--run", str(run)],
                          cwd=REPO_ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "mail_1.xml, line 4, sentence E1, element E1G1: unknown group type 'ZZ'" in proc.stderr
    # a form text that differs from the gold's
    (run / "mail_1.xml").write_bytes(easy_xml(sentence("E1", ["Elle", "dort"])))
    proc = subprocess.run([sys.executable, "-m", "evaluation", "easy", "--gold", str(gold), "--run", str(run)],
                          cwd=REPO_ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "form E1F1 is 'Elle', expected 'Il'" in proc.stderr
    assert "sentence E1" in proc.stderr and "Traceback" not in proc.stderr


def test_bad_arguments_exit_2(easy_guide, tmp_path, capsys):
    assert main(["easy", "--gold", str(easy_guide), "--run", str(easy_guide), "--match", "SIMILAR"]) == 2
    assert "unknown range function 'SIMILAR'" in capsys.readouterr().err
    assert main(["easy", "--gold", str(easy_guide), "--run", str(tmp_path / "nowhere")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(easy_guide / "Guide.1.easyref.xml", other / "renamed.xml")
    assert main(["easy", "--gold", str(easy_guide), "--run", str(other)]) == 2
    assert "paired by base name" in capsys.readouterr().err


def test_gold_documents_without_a_run_file_are_an_error_listing_them(easy_guide, tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(easy_guide / "Guide.3.easyref.xml", run)
    assert main(["easy", "--gold", str(easy_guide), "--run", str(run), "--bootstrap", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    # 14 missing of 15: the first 20 problems are listed, so all 14, one a line, no "more" line
    assert len(err) == 14 and not any("Guide.3.easyref" in line for line in err)
    assert err[0] == ("error: Guide.1.easyref.xml: no run file for gold document Guide.1.easyref "
                      "(--allow-missing scores it as empty output)")


def test_two_files_are_paired_whatever_their_names(easy_guide, tmp_path, capsys):
    gold = easy_guide / "Guide.1.easyref.xml"
    mine = tmp_path / "parser-output.xml"
    shutil.copy(gold, mine)
    assert main(["easy", "--gold", str(gold), "--run", str(mine), "--bootstrap", "0"]) == 0
    assert "100.00" in capsys.readouterr().out
    # a wrong file is named as given, not as the gold document
    assert main(["easy", "--gold", str(gold), "--run", str(easy_guide / "Guide.2.easyref.xml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Guide.2.easyref.xml, sentence E") and "Guide.1" not in err


def test_gold_checksum_is_deterministic(easy_guide, tmp_path):
    files = sorted(easy_guide.glob("*.xml"))
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in files:
        shutil.copy(f, copy / f.name)
    assert gold_sha256(files) == gold_sha256(reversed(sorted(copy.glob("*.xml"))))
    (copy / files[0].name).write_bytes(files[0].read_bytes() + b"\n")
    assert gold_sha256(files) != gold_sha256(copy.glob("*.xml"))


def test_json_to_standard_output_is_the_file_document_alone(easy_guide, tmp_path, capsys):
    # The one JSON writer: '-' prints exactly what --json FILE writes, and no table, so stdout parses as JSON.
    out = tmp_path / "res.json"
    args = ["easy", "--gold", str(easy_guide), "--run", str(easy_guide), "--bootstrap", "10"]
    assert main([*args, "--json", str(out)]) == 0
    capsys.readouterr()
    assert main([*args, "--json", "-"]) == 0
    printed = capsys.readouterr().out
    assert printed == out.read_text(encoding="utf-8")
    assert json.loads(printed)["signature"].startswith("metric:easy|")
