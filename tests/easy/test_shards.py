"""A run counted in shards of documents and merged gives byte for byte the single pass's document."""
from __future__ import annotations

import io
import json
import random

import numpy as np
import pytest

from parseval.annotations.easy import read_document
from parseval.annotations.errors import InputError
from benchmarks.easy_corpus import other_writer, perturb
from parseval.evaluation.easy.files import gold_sha256
from parseval.evaluation.easy.scoring import score_corpus
from parseval.evaluation.easy import shards
from parseval.evaluation.easy.shards import ShardCounts, count_shard, merge, split
from tests.conftest import DATA

REF = DATA / "easy-ref" / "ref"
NAMES = ("general_elda", "general_lemonde", "litteraire_2", "mail_10", "medical_6", "oral_delic_2",
         "questions_trec")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Gold paths and a realistic run (perturbed, written by lxml), one document without a run, one sentence
    missing from another."""
    folder = tmp_path_factory.mktemp("shards")
    rnd = random.Random(3)
    gold, run = {}, {}
    for name in NAMES:
        path = REF / f"{name}.xml"
        gold[name] = path
        if name == "medical_6":
            continue  # no run: its sentences score as empty output
        sentences = [perturb(s, rnd) for s in read_document(path, gold=True).sentences]
        if name == "mail_10":
            sentences = sentences[1:]
        out = folder / f"{name}.xml"
        out.write_bytes(other_writer(sentences, out.name, single_quotes=name.startswith("o")))
        run[name] = out
    return gold, run


def single(gold, run, **options):
    return score_corpus(gold, run, gold_sha256=gold_sha256(list(gold.values())), **options)


def sharded(gold, run, shards, *, bootstrap=1000, seed=12345, **options):
    """Each shard counted apart and sent through bytes, as workers do; then merged."""
    parts = []
    for names in shards:
        part = count_shard({n: gold[n] for n in names}, {n: run[n] for n in names if n in run}, **options)
        parts.append(ShardCounts.from_bytes(part.to_bytes()))
    return merge(parts, bootstrap=bootstrap, seed=seed, gold_sha256=gold_sha256(list(gold.values())), **options)


def as_bytes(document: dict) -> bytes:
    return json.dumps(document).encode("utf-8")


@pytest.mark.parametrize("per_shard", [1, 300, 900, 5000])
def test_sharded_document_is_byte_identical(corpus, per_shard):
    gold, run = corpus
    sizes = [(n, len(read_document(gold[n], gold=True).sentences)) for n in NAMES]
    shards = split(sizes, per_shard)
    assert [n for s in shards for n in s] == list(NAMES)
    if per_shard < 5000:
        assert len(shards) > 1
    expected = single(gold, run)
    got = sharded(gold, run, shards)
    assert as_bytes(got) == as_bytes(expected)
    # the case is not trivial: warnings of both phases, several genres, intervals
    texts = [w["message"] for w in expected["warnings"]]
    assert any("no run for gold document medical_6" in t for t in texts)
    assert any("missing from the run" in t for t in texts)
    assert len(expected["genres"]) >= 5 and expected["cells"][0]["ci"] is not None


def test_options_and_a_missing_layer(corpus, tmp_path):
    gold, run = corpus
    # a run without relations: the "no relations" warning is the whole run's, said once after the merge
    flat = {}
    for name, path in run.items():
        doc = read_document(path)
        for s in doc.sentences:
            s.relations = []
        flat[name] = tmp_path / f"{name}.xml"
        flat[name].write_bytes(other_writer(doc.sentences, f"{name}.xml", single_quotes=False))
    options = {"matches": ["EQUAL", "FUZZY"], "modes": ["HYP"]}
    expected = single(gold, flat, bootstrap=50, seed=7, **options)
    got = sharded(gold, flat, [[n] for n in NAMES], bootstrap=50, seed=7, **options)
    assert as_bytes(got) == as_bytes(expected)
    assert sum("no relations" in w["message"] for w in got["warnings"]) == 1


def test_merge_refuses_what_does_not_fit(corpus):
    gold, run = corpus
    part = count_shard({"mail_10": gold["mail_10"]}, {"mail_10": run["mail_10"]})
    with pytest.raises(InputError, match="share the name"):
        merge([part, part])
    with pytest.raises(ValueError, match="other range functions"):
        merge([part], modes=["HYP"])


def test_split_keeps_order_and_bounds():
    sizes = [("a", 5), ("b", 5), ("c", 12), ("d", 1), ("e", 1)]
    assert split(sizes, 10) == [["a", "b"], ["c"], ["d", "e"]]
    assert split(sizes, 0) == [["a", "b", "c", "d", "e"]]
    assert split(sizes, 100) == [["a", "b", "c", "d", "e"]]
    assert split([], 10) == []


def test_a_shard_is_written_from_its_counting_file_a_block_at_a_time(corpus, monkeypatch):
    """Its bytes hold the arrays np.savez would write, and the rows were never loaded whole to write them."""
    monkeypatch.setattr(shards, "WRITE_ROWS", 7)
    gold, run = corpus
    names = ["general_elda", "medical_6", "mail_10"]  # with a document without a run and a missing sentence
    part = count_shard({n: gold[n] for n in names}, {n: run[n] for n in names if n in run})
    data = part.to_bytes()
    assert part.rows._whole is None
    back = ShardCounts.from_bytes(data)
    assert len(back.fc) == sum(d["gold_sentences"] for d in part.documents) > 7
    saved = io.BytesIO()
    np.savez(saved, fc=part.fc, fp_compact=part.fp_compact, cr_compact=part.cr_compact)
    with np.load(io.BytesIO(saved.getvalue())) as z:
        for name in ("fc", "fp_compact", "cr_compact"):
            assert getattr(back, name).dtype == z[name].dtype and np.array_equal(getattr(back, name), z[name])
    assert (back.documents, back.warnings_said) == (part.documents, part.warnings_said)
