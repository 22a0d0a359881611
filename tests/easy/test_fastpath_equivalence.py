"""The reader's fast path changes nothing: the same JSON document and the same problems as the detailed parser.

A perturbed run of real gold files is scored streamed with the fast path on and off; the
full result documents (all cells, macro rows, warnings, counts) must be equal, and so must
the problems (file, line, sentence, element, message) of damaged copies of that run.
"""
from __future__ import annotations

import io
import random

import pytest

from parseval.annotations.easy import reader as easy_reader
from parseval.annotations.easy.model import Document
from parseval.annotations.easy.reader import read_document
from parseval.annotations.easy.writer import write_document
from parseval.annotations.errors import InputError
from benchmarks.easy_corpus import other_writer, perturb
from parseval.evaluation.easy.scoring import score_corpus

FILES = ("general_elda.xml", "mail_10.xml", "oral_delic_1.xml")
DAMAGE = [
    (b'<F id="E3F2">', b'<F id="E3F9">'), (b'type="GN"', b'type="XX"'), (b'type="SUJ-V"', b'type="FOO"'),
    (b'xlink:href="E5G1"', b'xlink:href="E5G99"'), (b'<F id="E7F1">', b'<F id="E7F1"><b/>'),
    (b'</Groupe>', b'</Groupe><Groupe type="GN" id="E1G9"></Groupe>'), (b'<sujet ', b'<objet '),
    (b'<F id="E2F3">', b'<F id="E2F3">x'), (b'<E id="E4">', b'<E id="E3">'),
    (b'<relations>', b'<constituants/><relations>'), (b'<F id="E6F2">', b'<F id="E6F2"/><F id="E6F2b">'),
]


@pytest.fixture(scope="module")
def gold_and_run(easy_ref, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fastpath-run")
    rnd = random.Random(3)
    gold = [read_document(easy_ref / name, gold=True) for name in FILES]
    runs = {}
    for d in gold:
        write_document(Document(name=d.name, attributes=d.attributes,
                                sentences=[perturb(s, rnd) for s in d.sentences]), folder / d.name)
        runs[d.name[:-4]] = (folder / d.name).read_bytes()
    return gold, runs


@pytest.fixture(scope="module")
def other_writer_runs(easy_ref):
    """The same kind of run as lxml writes it in another shape (attribute order, prefix, single quotes)."""
    rnd = random.Random(5)
    gold = [read_document(easy_ref / name, gold=True) for name in FILES]
    return {d.name[:-4]: other_writer([perturb(s, rnd) for s in d.sentences], d.name, single_quotes=k % 2 == 1)
            for k, d in enumerate(gold)}


def _score(gold, runs, fast: bool, monkeypatch, **kw):
    if not fast:
        monkeypatch.setattr(easy_reader, "_fast_path", lambda schema: None)
    try:
        return score_corpus(gold, {k: io.BytesIO(v) for k, v in runs.items()}, **kw)
    except InputError as exc:
        return [p.as_dict() for p in exc.problems]
    finally:
        monkeypatch.undo()


def test_same_document_with_and_without_fast_path(gold_and_run, monkeypatch):
    gold, runs = gold_and_run
    fast = _score(gold, runs, True, monkeypatch, bootstrap=50, seed=7)
    slow = _score(gold, runs, False, monkeypatch, bootstrap=50, seed=7)
    assert isinstance(fast, dict) and fast["cells"] and fast["macro"]
    assert fast == slow
    corpus = {d.name[:-4]: d for d in gold}
    assert (_score(gold, runs, True, monkeypatch, bootstrap=0, corpus=corpus)
            == _score(gold, runs, False, monkeypatch, bootstrap=0, corpus=corpus))


@pytest.mark.parametrize("old,new", DAMAGE)
def test_same_problems_with_and_without_fast_path(gold_and_run, monkeypatch, old, new):
    gold, runs = gold_and_run
    key = FILES[0][:-4]
    damaged = {key: runs[key].replace(old, new, 2)}
    fast = _score(gold, damaged, True, monkeypatch, bootstrap=0)
    slow = _score(gold, damaged, False, monkeypatch, bootstrap=0)
    assert fast == slow


def test_a_run_from_another_writer_scores_the_same_with_and_without_fast_path(gold_and_run, other_writer_runs,
                                                                              monkeypatch):
    gold, _ = gold_and_run
    assert b"xl:href='" in other_writer_runs[FILES[1][:-4]] and b'<Groupe id="' in other_writer_runs[FILES[0][:-4]]
    fast = _score(gold, other_writer_runs, True, monkeypatch, bootstrap=50, seed=7)
    slow = _score(gold, other_writer_runs, False, monkeypatch, bootstrap=50, seed=7)
    assert isinstance(fast, dict) and fast["counts"]["run_sentences"] == sum(len(d.sentences) for d in gold)
    assert fast == slow


@pytest.mark.parametrize("old,new", [(b"<F id='E3F2'>", b"<F id='E3F9'>"), (b"type='GN'", b"type='XX'"),
                                     (b"xl:href='E5G1'", b"xl:href='E5G99'"), (b"<E id='E4'>", b"<E id='E3'>")])
def test_a_damaged_run_from_another_writer_gets_the_same_problems(gold_and_run, other_writer_runs, monkeypatch,
                                                                   old, new):
    gold, _ = gold_and_run
    key = FILES[1][:-4]  # written with single quotes
    damaged = {key: other_writer_runs[key].replace(old, new, 2)}
    assert damaged[key] != other_writer_runs[key]
    assert _score(gold, damaged, True, monkeypatch, bootstrap=0) == _score(gold, damaged, False, monkeypatch,
                                                                            bootstrap=0)


def test_run_sentences_read_as_parts_give_the_views_their_sentences_give(gold_and_run, other_writer_runs):
    """Scoring reads a run's sentences as parts where it can: every mode's relations and the constituents
    must be those of the sentences, whether the targets are groups, forms in a group or alone, or null."""
    from parseval.annotations.easy.model import SentenceParts
    from parseval.annotations.easy.reader import iter_sentences
    from parseval.evaluation.easy.ranges import HypothesisView, ReferenceView

    gold, runs = gold_and_run
    refs = {s.id: ReferenceView(s, None) for d in gold[:1] for s in d.sentences}
    key = FILES[0][:-4]
    for data in (runs[key], other_writer_runs[key]):
        views = []
        for as_parts in (True, False):
            items = list(iter_sentences(io.BytesIO(data), parts=as_parts, problems=None))
            assert any(isinstance(s, SentenceParts) for s in items) == as_parts
            views.append([(s.id, v.cons, v.rels) for s in items for v in [HypothesisView(s, refs[s.id])]])
        assert views[0] == views[1] and len(views[0]) == len(refs)
