"""``python -m evaluation combine``: files the scorers read as they are, and a consensus that repairs damage.

Three runs of one real EASY document: the gold itself, the gold without its
relations, and the gold with every group's type changed. Each item of the gold
is proposed by at least two runs out of three, and each wrong item by one: the
consensus is the gold again, scored by the EASY scorer at F = 1.
"""
import json
from pathlib import Path

import pytest

from parseval.annotations.easy.reader import read_document
from parseval.annotations.errors import InputError
from parseval.annotations.easy.writer import write_document
from evaluation.__main__ import main

REPO = Path(__file__).resolve().parents[2]
GOLD = REPO / "data" / "easy-ref" / "ref" / "general_elda.xml"
UD = REPO / "data" / "ud-french" / "fr_sequoia-ud-dev.conllu"
TREES = REPO / "data" / "sequoia-const" / "sequoia-corpus+fct.mrg_strict"


def _write(doc, folder: Path) -> Path:
    folder.mkdir()
    write_document(doc, folder / GOLD.name)
    return folder


def test_easy_consensus_of_damaged_runs_is_the_gold(tmp_path, capsys):
    gold = read_document(GOLD)
    no_relations = read_document(GOLD)
    for s in no_relations.sentences:
        s.relations = []
    retyped = read_document(GOLD)
    for s in retyped.sentences:
        for g in s.groups:
            g.type = "GR" if g.type != "GR" else "GA"
    runs = [_write(d, tmp_path / name) for d, name in ((gold, "a"), (no_relations, "b"), (retyped, "c"))]
    args = ["combine", "--kind", "easy", "--out", str(tmp_path / "out")]
    for r in runs:
        args += ["--run", str(r)]
    assert main(args) == 0
    written = (tmp_path / "out" / GOLD.name)
    assert "agreement=" in written.read_text(encoding="utf-8")
    assert main(["easy", "--gold", str(GOLD), "--run", str(tmp_path / "out"), "--bootstrap", "0",
                 "--json", str(tmp_path / "r.json")]) == 0
    cells = json.loads((tmp_path / "r.json").read_text())["cells"]
    pooled = [c for c in cells if c["genre"] == "ALL" and c["type"] == "ALL"]
    assert len(pooled) == 5 + 15 and all(c["f"] == 1.0 and c["fc"] == c["cr"] > 0 for c in pooled)
    combined = read_document(written)
    assert [len(s.groups) for s in combined.sentences] == [len(s.groups) for s in gold.sentences]
    # the gold repeats 3 relations exactly; a consensus, like the scorer, counts each once
    assert sum(len(s.relations) for s in combined.sentences) == \
        sum(len(s.relations) for s in gold.sentences) - len(gold.warnings)

def test_dependency_and_tree_consensus_read_back_by_their_scorers(tmp_path, capsys):
    assert main(["combine", "--kind", "deps", "--run", str(UD), "--run", str(UD), "--out", str(tmp_path / "d")]) == 0
    assert main(["deps", "--gold", str(UD), "--test", str(tmp_path / "d" / "consensus.conllu")]) == 0
    assert "LAS 100.00" in capsys.readouterr().out
    plus = (tmp_path / "d" / "consensus.conllup").read_text(encoding="utf-8").splitlines()
    assert plus[0].endswith("MISC CONSENSUS:AGREEMENT")
    assert sum(1 for line in plus if line.startswith("# global.columns")) == 1
    word_rows = [line.split("\t") for line in plus if line[:1].isdigit()]
    assert word_rows and all(len(row) == 11 and row[10] == "1" for row in word_rows if "-" not in row[0])
    head = "\n".join(TREES.read_text(encoding="utf-8").splitlines()[:40]) + "\n"
    (tmp_path / "t.mrg").write_text(head, encoding="utf-8")
    assert main(["combine", "--kind", "trees", "--run", str(tmp_path / "t.mrg"), "--run", str(tmp_path / "t.mrg"),
                 "--out", str(tmp_path / "t")]) == 0
    assert (tmp_path / "t" / "consensus.mrg").read_text(encoding="utf-8") == head


def test_wrong_weights_and_single_run_are_refused(tmp_path, capsys):
    assert main(["combine", "--kind", "deps", "--run", str(UD), "--out", str(tmp_path / "x")]) == 2
    assert "at least two runs" in capsys.readouterr().err
    assert main(["combine", "--kind", "deps", "--run", str(UD), "--run", str(UD), "--weights", "1",
                 "--out", str(tmp_path / "x")]) == 2
    assert "1 weights given for 2 runs" in capsys.readouterr().err


def test_runs_known_to_have_relations_or_not_are_read_once(tmp_path, monkeypatch):
    """A caller that read the runs before (the platform: each run's scoring stored ``layers_submitted``) says which
    submitted relations: the files are then not scanned for them, only read by the combination itself, and the
    consensus is the one the scan gives (a run without relations takes no part in the relation votes)."""
    from parseval.evaluation.consensus import files as consensus_files

    gold = read_document(GOLD)
    chunker = read_document(GOLD)
    for s in chunker.sentences:
        s.relations = []
    runs = [_write(d, tmp_path / name) for d, name in ((gold, "a"), (chunker, "b"), (chunker, "c"))]
    scanned = consensus_files.combine_easy_files(runs, tmp_path / "scanned")

    def no_scan(path):
        raise AssertionError(f"{path} read a second time")

    monkeypatch.setattr(consensus_files, "_has_relations", no_scan)
    told = consensus_files.combine_easy_files(runs, tmp_path / "told", relations=[True, False, False])
    written = (tmp_path / "told" / GOLD.name).read_text(encoding="utf-8")
    assert written == (tmp_path / "scanned" / GOLD.name).read_text(encoding="utf-8")
    assert (told.sentences, told.items) == (scanned.sentences, scanned.items)
    # the one run with relations votes alone on them, so they are kept; said to have relations, the two chunkers
    # would outvote them (what the parameter says is what counts)
    assert "<relation" in written
    consensus_files.combine_easy_files(runs, tmp_path / "all", relations=[True, True, True])
    assert "<relation" not in (tmp_path / "all" / GOLD.name).read_text(encoding="utf-8")
    with pytest.raises(InputError, match="3 runs"):
        consensus_files.combine_easy_files(runs, tmp_path / "x", relations=[True, False])
