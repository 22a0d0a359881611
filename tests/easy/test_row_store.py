"""The count rows kept in chunks give the same rows and document whatever the chunk size and document order."""
from __future__ import annotations

import io
import random

import numpy as np

from annotations.easy.model import Document
from annotations.easy.writer import document_to_bytes
from benchmarks.easy_corpus import perturb
from evaluation.easy import scoring


def _runs(gold_docs):
    rnd = random.Random(2)
    return {d.name[:-4]: document_to_bytes(Document(name=d.name, sentences=[perturb(s, rnd) for s in d.sentences]))
            for d in gold_docs[:6]}


def test_chunks_and_document_order_change_nothing(gold_docs, monkeypatch):
    gold = gold_docs[:6]
    runs = _runs(gold)
    del runs[gold[2].name[:-4]]  # a document without a run: loaded last, at the end

    def counted(order):
        plan, g, c = scoring.count_sentences(gold, {k: io.BytesIO(runs[k]) for k in order})
        return g.row_ids, g.row_genre, c.rows

    expected = counted(sorted(runs))
    score = scoring.score_corpus(gold, {k: io.BytesIO(v) for k, v in runs.items()}, bootstrap=20)
    monkeypatch.setattr(scoring, "CHUNK_ROWS", 7)  # every document crosses chunk boundaries
    for order in (sorted(runs), sorted(runs, reverse=True)):
        ids, genres, rows = counted(order)
        assert (ids, genres) == expected[:2] and len(ids) == sum(len(d.sentences) for d in gold)
        for name in ("fc", "fp_compact", "cr_compact", "done"):
            assert np.array_equal(getattr(rows, name), getattr(expected[2], name))
        assert rows.done.all() and rows.fc.any()
    assert scoring.score_corpus(gold, {k: io.BytesIO(v) for k, v in runs.items()}, bootstrap=20) == score
