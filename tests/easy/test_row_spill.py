"""The count rows spilled to disk and read back in blocks give the same rows and the same document, whatever
the block and batch sizes and the order in which documents are counted."""
from __future__ import annotations

import io
import json
import random

import numpy as np

from parseval.annotations.easy.model import Document
from parseval.annotations.easy.writer import document_to_bytes
from benchmarks.easy_corpus import perturb
from parseval.evaluation import stats
from parseval.evaluation.easy import row_spill, scoring


def _runs(gold_docs):
    rnd = random.Random(2)
    return {d.name[:-4]: document_to_bytes(Document(name=d.name, sentences=[perturb(s, rnd) for s in d.sentences]))
            for d in gold_docs}


def _tiny(monkeypatch):
    monkeypatch.setattr(row_spill, "BLOCK_ROWS", 7)  # every document crosses block boundaries
    monkeypatch.setattr(stats, "WEIGHT_BUDGET", 1)  # one resample per pass over the rows
    monkeypatch.setattr(stats, "RESAMPLE_BUDGET", 1)  # one resample drawn at a time


def test_reference_corpus_document_does_not_depend_on_blocks_batches_or_order(gold_docs, monkeypatch):
    runs = _runs(gold_docs)
    del runs[gold_docs[2].name[:-4]]  # a document without a run: counted last, at the end

    def scored(order):
        return json.dumps(scoring.score_corpus(gold_docs, {k: io.BytesIO(runs[k]) for k in order}, bootstrap=60,
                                               seed=3)).encode("utf-8")

    orders = (sorted(runs), sorted(runs, reverse=True))  # reversed: the spill holds the documents in reverse
    expected = [scored(order) for order in orders]
    _tiny(monkeypatch)
    assert [scored(order) for order in orders] == expected
    # the run's warnings come in the order its documents are read; nothing else depends on it
    forward, backward = (json.loads(x) for x in expected)
    assert forward.pop("warnings") != backward.pop("warnings") and forward == backward
    document = json.loads(expected[0])
    assert len(document["genres"]) >= 5 and document["cells"][0]["ci"] is not None
    assert document["counts"]["gold_sentences"] == sum(len(d.sentences) for d in gold_docs)


def test_rows_read_back_in_gold_order(gold_docs, monkeypatch):
    gold = gold_docs[:6]
    runs = _runs(gold)
    del runs[gold[2].name[:-4]]

    def counted(order):
        plan, g, c = scoring.count_sentences(gold, {k: io.BytesIO(runs[k]) for k in order})
        return g.row_ids, g.row_genre, c.rows

    ids, genres, rows = counted(sorted(runs))
    monkeypatch.setattr(row_spill, "BLOCK_ROWS", 7)
    r_ids, r_genres, reverse = counted(sorted(runs, reverse=True))
    assert (r_ids, r_genres) == (ids, genres) and len(ids) == sum(len(d.sentences) for d in gold)
    assert [sid for _, sid in ids] == [s.id for d in gold for s in d.sentences]
    for name in ("fc", "fp_compact", "cr_compact", "fp", "cr", "done"):
        assert np.array_equal(getattr(reverse, name), getattr(rows, name))
    assert rows.fc.any() and rows.done.all()
    # a genre's blocks are its rows in gold order, whatever the block size
    labels = np.array(genres, dtype=object)
    for genre in reverse.genres:
        whole = np.hstack([rows.fc, rows.fp_compact, rows.cr_compact])[labels == genre]
        assert all(len(b) <= 7 for b in reverse.blocks(genre))
        assert np.array_equal(np.concatenate(list(reverse.blocks(genre))), whole)
        assert np.array_equal(reverse.column_sums(genre), whole.sum(axis=0, dtype=np.int64))
