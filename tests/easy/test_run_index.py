"""A run's index, kept by validation and replayed by scoring: the same result document and per-sentence rows as
reading the run's files, on the real reference corpus; the same validation report; a stale, damaged or
mismatched index read as the files are; and no parse of the run when the index is there."""
from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from benchmarks.easy_corpus import other_writer, perturb
from parseval.annotations.easy.model import Document, Relation
from parseval.annotations.easy.reader import read_document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA
from parseval.annotations.easy.validate import reference_forms, validate_run
from parseval.annotations.errors import InputError
from parseval.evaluation.easy import scoring as easy_scoring
from parseval.evaluation.easy.gold_index import IndexUnreadable
from parseval.evaluation.easy.run_index import (
    DocumentIndexer, IndexedRun, build_index, indexed_documents, run_index_key,
)
from parseval.evaluation.easy.scoring import count_sentences, counted_rows, score_corpus

REF = Path(__file__).resolve().parents[2] / "data" / "easy-ref" / "ref"
KEY = run_index_key("ab" * 32, DEFAULT_SCHEMA, "test")


@pytest.fixture(scope="module")
def gold():
    return {p.stem: read_document(p, gold=True) for p in sorted(REF.glob("*.xml"))}


def _damaged(gold) -> dict[str, bytes]:
    """A valid run with what a careless parser does: a document missing, sentences missing, relations repeated
    exactly (a warning, said by scoring only where the sentence has gold), a pointer to nothing (read as the
    null argument, with a warning), and the rest of the reference's errors (:func:`perturb`), in another
    writer's shape."""
    rnd = random.Random(39)
    out = {}
    for k, (name, doc) in enumerate(sorted(gold.items())):
        if k == 3:
            continue  # no run for this document
        sentences = [perturb(s, rnd) for s in doc.sentences if rnd.random() > 0.05]
        for s in sentences[:12]:
            if s.relations:
                r = s.relations[0]
                s.relations.append(Relation(f"{s.id}R99", r.type, dict(r.args), dict(r.extras)))
        for s in sentences[12:14]:
            if s.relations:
                r = s.relations[-1]
                role = next(iter(r.args))
                s.relations[-1] = Relation(r.id, r.type, {**r.args, role: f"{s.id}G999"}, dict(r.extras))
        out[name] = other_writer(sentences, f"{name}.xml", single_quotes=k % 2 == 1)
    return out


_CACHE: dict = {}


def _runs(gold) -> dict[str, dict[str, bytes]]:
    if "runs" not in _CACHE:
        as_is = {name: (REF / f"{name}.xml").read_bytes() for name in gold if name != "oral_delic_1"}
        _CACHE["runs"] = {"reference as a run": as_is, "damaged": _damaged(gold)}
    return _CACHE["runs"]


def _index(files: dict[str, bytes], gold) -> tuple[bytes | None, list]:
    """Validation's reading of ``files`` with an indexer per document: the index and the report's warnings
    (each run's read once per module)."""
    key = ("index", tuple(sorted(files)), sum(map(len, files.values())))
    if key not in _CACHE:
        _CACHE[key] = _indexed(files, gold)
    return _CACHE[key]


def _indexed(files: dict[str, bytes], gold) -> tuple[bytes | None, list]:
    indexers, report = {}, []
    for name, data in files.items():
        indexers[name] = d = DocumentIndexer(DEFAULT_SCHEMA, f"{name}.xml")
        found = validate_run(io.BytesIO(data), reference_forms(gold[name]), warnings=report, name=f"{name}.xml",
                             index=d)
        assert found == []
        d.freeze()
    return build_index(indexers, DEFAULT_SCHEMA, KEY), report


def _paths(tmp_path: Path, files: dict[str, bytes]) -> dict[str, Path]:
    out = {}
    for name, data in files.items():
        out[name] = tmp_path / f"{name}.xml"
        out[name].write_bytes(data)
    return out


def _scored(gold_docs, run_docs):
    document = score_corpus(gold_docs, run_docs, bootstrap=50, seed=7)
    plan, g, counting = count_sentences(gold_docs, run_docs)
    keys, genres, rows = counted_rows(plan, g, counting)
    return json.dumps(document, sort_keys=True).encode(), keys, genres, rows


def _subset(gold) -> dict[str, Document]:
    """Gold of some sentences only (a development sample): the other run sentences are read, not scored."""
    return {name: Document(name=doc.name, sentences=doc.sentences[::3], warnings=doc.warnings,
                           has_constituents=True, has_relations=True) for name, doc in gold.items()}


@pytest.mark.parametrize("which", ["reference as a run", "damaged"])
@pytest.mark.parametrize("whole", [True, False], ids=["whole gold", "gold of a third"])
def test_scoring_from_the_index_is_scoring_from_the_files(gold, tmp_path, which, whole):
    files = _runs(gold)[which]
    data, _ = _index(files, gold)
    assert data is not None
    paths = _paths(tmp_path, files)
    gold_docs = gold if whole else _subset(gold)
    from_files = _scored(gold_docs, paths)
    from_index = _scored(gold_docs, indexed_documents(IndexedRun(data, KEY), paths))
    assert from_index[0] == from_files[0]  # the result document, byte for byte
    assert from_index[1] == from_files[1] and from_index[2] == from_files[2]
    assert np.array_equal(from_index[3], from_files[3]) and from_index[3].dtype == from_files[3].dtype
    document = json.loads(from_files[0])
    if which == "damaged":  # what the replay must say as the reading says it
        said = [w["message"] for w in document["warnings"]]
        assert any("repeats relation" in m for m in said)
        assert any("read as a null argument" in m for m in said)
        assert any("missing from the run" in m for m in said)
        assert document["counts"]["gold_sentences_missing_from_run"] > 0


def test_a_repeated_relation_is_said_only_where_the_sentence_is_scored(gold, tmp_path):
    files = _runs(gold)["damaged"]
    data, _ = _index(files, gold)
    paths = _paths(tmp_path, files)
    said = {}
    for whole in (True, False):
        gold_docs = gold if whole else _subset(gold)
        document = score_corpus(gold_docs, indexed_documents(IndexedRun(data, KEY), paths), bootstrap=0)
        said[whole] = sum("repeats relation" in w["message"] for w in document["warnings"])
    assert said[True] > said[False] > 0


def test_the_validation_report_is_the_same_with_the_index(gold):
    files = _runs(gold)["damaged"]
    plain = []
    for name, data in files.items():
        assert validate_run(io.BytesIO(data), reference_forms(gold[name]), warnings=plain, name=f"{name}.xml") == []
    _, indexed = _index(files, gold)
    assert indexed == plain and plain  # the repeated relations are not in it: validation never said them
    assert not any("repeats relation" in w.message for w in plain)


@pytest.mark.parametrize("bad", [
    b'<?xml version="1.0"?>\n<DOCUMENT><E id="E1"><F id="E1F1">x</F></E>',  # cut short
    None,  # a form's text changed
])
def test_bad_input_gets_the_same_problems_with_the_index(gold, bad):
    name = "general_elda"
    data = (REF / f"{name}.xml").read_bytes()
    if bad is None:
        at = data.index(b"<F ", len(data) // 2)
        at = data.index(b">", at) + 1
        bad = data[:at] + b"X" + data[at:]
    expected = reference_forms(gold[name])
    plain_warnings, indexed_warnings = [], []
    plain = validate_run(io.BytesIO(bad), expected, warnings=plain_warnings, name="run.xml")
    indexer = DocumentIndexer(DEFAULT_SCHEMA, "run.xml")
    indexed = validate_run(io.BytesIO(bad), expected, warnings=indexed_warnings, name="run.xml", index=indexer)
    assert plain and indexed == plain and indexed_warnings == plain_warnings


def _corrupt(data: bytes) -> bytes:
    """The index with one document's member damaged inside the archive (its CRC no longer matches)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo("d0.groups.npy")
    at = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


@pytest.mark.parametrize("damage", ["another key", "truncated", "not an archive", "member damaged"])
def test_a_stale_or_damaged_index_is_not_used(gold, tmp_path, damage):
    files = _runs(gold)["reference as a run"]
    data, _ = _index(files, gold)
    paths = _paths(tmp_path, files)
    expected = _scored(gold, paths)[0]
    if damage == "another key":
        with pytest.raises(IndexUnreadable):
            IndexedRun(data, run_index_key("cd" * 32, DEFAULT_SCHEMA, "test"))
        return
    if damage in ("truncated", "not an archive"):
        with pytest.raises(IndexUnreadable):
            IndexedRun(data[:len(data) // 2] if damage == "truncated" else b"<DOCUMENT/>", KEY)
        return
    index = IndexedRun(_corrupt(data), KEY)  # the first document's arrays: read from its file instead
    assert _scored(gold, indexed_documents(index, paths))[0] == expected


def test_gold_forms_that_differ_are_reported_by_the_files_reading(gold, tmp_path):
    files = _runs(gold)["reference as a run"]
    data, _ = _index(files, gold)
    paths = _paths(tmp_path, files)
    changed = dict(gold)
    doc = gold["general_elda"]
    s = doc.sentences[0]
    forms = [type(f)(f.id, f.text + "x") if k == 0 else f for k, f in enumerate(s.forms)]
    changed["general_elda"] = Document(name=doc.name, sentences=[type(s)(s.id, forms, s.groups, s.relations),
                                                                 *doc.sentences[1:]])
    with pytest.raises(InputError) as from_files:
        score_corpus(changed, paths, bootstrap=0)
    with pytest.raises(InputError) as from_index:
        score_corpus(changed, indexed_documents(IndexedRun(data, KEY), paths), bootstrap=0)
    assert str(from_index.value) == str(from_files.value) and "general_elda.xml" in str(from_files.value)


def test_scoring_reads_no_run_file_when_the_index_is_there(gold, tmp_path):
    files = _runs(gold)["damaged"]
    data, _ = _index(files, gold)
    paths = _paths(tmp_path, files)
    expected = _scored(gold, paths)[0]
    with mock.patch.object(easy_scoring, "iter_sentences", side_effect=AssertionError("the run was parsed")):
        assert _scored(gold, indexed_documents(IndexedRun(data, KEY), paths))[0] == expected


def test_a_document_the_index_lacks_is_read_from_its_file(gold, tmp_path):
    files = _runs(gold)["reference as a run"]
    data, _ = _index({k: v for k, v in files.items() if k != "general_elda"}, gold)
    paths = _paths(tmp_path, files)
    docs = indexed_documents(IndexedRun(data, KEY), paths)
    assert docs["general_elda"] == paths["general_elda"]
    assert _scored(gold, docs)[0] == _scored(gold, paths)[0]


def test_the_key_depends_on_the_file_the_schema_the_scorer_and_the_converter():
    keys = {run_index_key("ab" * 32, DEFAULT_SCHEMA, "test"), run_index_key("cd" * 32, DEFAULT_SCHEMA, "test"),
            run_index_key("ab" * 32, DEFAULT_SCHEMA, "test2"), run_index_key("ab" * 32, DEFAULT_SCHEMA, "test", "ud2easy-1")}
    assert len(keys) == 4
