"""``reproduce`` on a bundle that gives nothing to recompute says so, why, and exits with its own status.

A bundle built at publication, before the gold release, has no per-sentence rows: nothing can be
recomputed from it. Exit 0 ("every figure agrees") after checking nothing read as a reproduction;
``--gold`` was ignored without a word. No Django: the command reads the archive alone.
"""
from __future__ import annotations

from parseval.evaluation import bundle_format as fmt
from parseval.__main__ import main
from parseval.evaluation.cli.reproduce import NOTHING_CHECKED

NO_ROWS = "the per-sentence rows are given out at the gold release: their keys list the test sentences"


def bundle_before_gold(tmp_path):
    runs = [{"run": k, "name": f"Team {k} / run", "rows": None, "rows_missing": NO_ROWS,
             "file": {"member": None, "sha256": "0" * 64}} for k in (1, 2)]
    meta = {"campaign": {"slug": "demo"}, "gold_released": False, "runs": runs}
    results = {"runs": [{"run": k, "cells": [{"layer": "deps-las", "genre": "ALL", "type": "ALL", "f": 0.8}]}
                        for k in (1, 2)]}
    path = tmp_path / "published.zip"
    path.write_bytes(fmt.write_archive({"bundle.json": fmt.json_bytes(meta), "results.json": fmt.json_bytes(results)}))
    return path


def test_a_bundle_before_the_gold_release_says_nothing_was_checked_and_why(tmp_path, capsys):
    path = bundle_before_gold(tmp_path)
    code = main(["reproduce", str(path)])
    out = capsys.readouterr().out
    assert code == NOTHING_CHECKED == 3
    last = out.strip().splitlines()[-1]
    assert last.startswith("NOTHING CHECKED (exit status 3): the bundle was built before the gold release")
    assert "no per-sentence rows" in last


def test_gold_is_not_ignored_silently(tmp_path, capsys):
    path = bundle_before_gold(tmp_path)
    gold = tmp_path / "gold"
    gold.mkdir()
    code = main(["reproduce", str(path), "--gold", str(gold)])
    out = capsys.readouterr().out
    assert code == NOTHING_CHECKED
    assert "not checked: --gold was given but not used" in out


def test_the_json_report_says_it_too(tmp_path, capsys):
    import json

    path = bundle_before_gold(tmp_path)
    assert main(["reproduce", str(path), "--json", "-"]) == NOTHING_CHECKED
    report = json.loads(capsys.readouterr().out)
    assert "before the gold release" in report["nothing_checked"]
