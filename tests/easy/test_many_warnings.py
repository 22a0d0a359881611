"""More warnings than the result shows: the same first MAX_WARNINGS, in the same order, single or sharded.

Every sentence of these documents repeats a relation exactly (one warning each, said by the reader), so
the warnings of each side and document are known in advance and the expected list is written out here:
gold warnings per document in gold order, then the runs' reading warnings in the order the runs are read,
then the gold documents without a run, then the layers missing from the whole run.
"""
from __future__ import annotations

import json

import pytest

from parseval.evaluation.easy.scoring import MAX_WARNINGS, count_sentences, score_corpus
from parseval.evaluation.easy.shards import ShardCounts, count_shard, merge

from .conftest import easy_xml, sentence

SAME_TWICE = [("R1", "SUJ-V", {"sujet": "F1", "verbe": "F2"}), ("R2", "SUJ-V", {"sujet": "F1", "verbe": "F2"})]
ONCE = SAME_TWICE[:1]


def document(name: str, n: int, *, repeats: bool, gold: bool) -> bytes:
    """``n`` sentences ``<name>E1...``; each repeats a relation when ``repeats``; gold has a group, runs none."""
    groups = {(1, 1): ("G1", "GN")} if gold else None
    body = "".join(sentence(f"{name}E{i}", ["Il", "dort"], groups, SAME_TWICE if repeats else ONCE)
                   for i in range(1, n + 1))
    return easy_xml(body, name=f"{name}.xml")


def write(folder, docs: dict[str, bytes]):
    paths = {}
    for name, data in docs.items():
        paths[name] = folder / f"{name}.xml"
        paths[name].write_bytes(data)
    return paths


def repeated(side: str, name: str, n: int) -> list[tuple]:
    """The warnings ``name``'s ``n`` sentences say, as (side, file, sentence, message)."""
    return [(side, f"{name}.xml", f"{name}E{i}", f"relation {name}E{i}R2 repeats relation {name}E{i}R1 exactly "
             f"(counted once)") for i in range(1, n + 1)]


def no_run(name: str) -> tuple:
    return ("run", name, None, f"no run for gold document {name}: its sentences score as empty output")


NO_GROUPS = ("run", None, None, "the run has no constituents: layer reported as not submitted")


def shown(document: dict) -> list[tuple]:
    return [(w.get("side"), w.get("file"), w.get("sentence"), w["message"]) for w in document["warnings"]]


def more(n: int) -> tuple:
    return (None, None, None, f"... and {n} more warnings not shown")


def sharded(gold, run, shards) -> dict:
    parts = (ShardCounts.from_bytes(count_shard({n: gold[n] for n in names}, {n: run[n] for n in names if n in run})
                                    .to_bytes()) for names in shards)
    return merge(parts, bootstrap=5, seed=1)


def check(gold, run, expected, shardings):
    """The single pass (runs in gold order and reversed) and every sharding show ``expected``, byte for byte
    the same document."""
    single = score_corpus(gold, run, bootstrap=5, seed=1)
    assert shown(single) == expected
    reverse = score_corpus(gold, dict(reversed(list(run.items()))), bootstrap=5, seed=1)
    for shards in shardings:
        got = sharded(gold, run, shards)
        assert json.dumps(got) == json.dumps(single), shards
    return single, reverse


def test_gold_warnings_past_the_limit(tmp_path):
    """1,300 gold warnings: the first 1,000 in gold order, even when the runs come in reverse (the gold
    documents are then read last first)."""
    sizes = {"a_0": 400, "a_1": 400, "a_2": 300, "a_3": 200}
    (tmp_path / "gold").mkdir()
    (tmp_path / "run").mkdir()
    gold = write(tmp_path / "gold", {n: document(n, k, repeats=True, gold=True) for n, k in sizes.items()})
    run = write(tmp_path / "run", {n: document(n, k, repeats=False, gold=False) for n, k in sizes.items()
                                   if n != "a_2"})
    expected = (repeated("gold", "a_0", 400) + repeated("gold", "a_1", 400) + repeated("gold", "a_2", 200)
                + [more(300 + 2)])
    assert len(expected) == MAX_WARNINGS + 1
    single, reverse = check(gold, run, expected,
                            [[["a_0"], ["a_1"], ["a_2"], ["a_3"]], [["a_0", "a_1"], ["a_2", "a_3"]],
                             [list(sizes)]])
    assert shown(reverse) == expected
    # what is held while counting is what can be shown, and how many there were
    _, held, counting = count_sentences(gold, dict(reversed(list(run.items()))))
    counting.rows.close()
    assert (len(held.warnings.kept), held.warnings.total) == (MAX_WARNINGS, 1300)
    assert [w.sentence for w in held.warnings.kept] == [s for _, _, s, _ in expected[:MAX_WARNINGS]]


def test_run_warnings_past_the_limit(tmp_path):
    """300 gold warnings, then 1,200 of the runs (one shard alone says more than the result shows)."""
    sizes = {"b_0": 400, "b_1": 400, "b_2": 400, "b_3": 300}
    (tmp_path / "gold").mkdir()
    (tmp_path / "run").mkdir()
    gold = write(tmp_path / "gold", {n: document(n, k, repeats=n == "b_3", gold=True) for n, k in sizes.items()})
    run = write(tmp_path / "run", {n: document(n, k, repeats=True, gold=False) for n, k in sizes.items()
                                   if n != "b_3"})
    expected = (repeated("gold", "b_3", 300) + repeated("run", "b_0", 400) + repeated("run", "b_1", 300)
                + [more(100 + 400 + 2)])
    single, reverse = check(gold, run, expected,
                            [[["b_0"], ["b_1"], ["b_2"], ["b_3"]], [["b_0", "b_1", "b_2"], ["b_3"]]])
    # runs read in reverse: their warnings come in that order
    assert shown(reverse) == (repeated("gold", "b_3", 300) + repeated("run", "b_2", 400)
                              + repeated("run", "b_1", 300) + [more(100 + 400 + 2)])


@pytest.mark.parametrize("shards", [[["c_0", "c_1"], ["c_2", "c_3"], ["c_4", "c_5"]], [["c_0"], ["c_1", "c_2"],
                                                                                         ["c_3", "c_4", "c_5"]]])
def test_every_kind_of_warning_in_order(tmp_path, shards):
    """Under the limit everything shows: the late warnings of every shard after the reading warnings of all."""
    sizes = {f"c_{i}": 150 for i in range(6)}
    (tmp_path / "gold").mkdir()
    (tmp_path / "run").mkdir()
    gold = write(tmp_path / "gold", {n: document(n, k, repeats=n in ("c_1", "c_5"), gold=True)
                                     for n, k in sizes.items()})
    run = write(tmp_path / "run", {n: document(n, k, repeats=True, gold=False) for n, k in sizes.items()
                                   if n in ("c_0", "c_2", "c_4")})
    expected = (repeated("gold", "c_1", 150) + repeated("gold", "c_5", 150) + repeated("run", "c_0", 150)
                + repeated("run", "c_2", 150) + repeated("run", "c_4", 150)
                + [no_run("c_1"), no_run("c_3"), no_run("c_5"), NO_GROUPS])
    check(gold, run, expected, [shards])
