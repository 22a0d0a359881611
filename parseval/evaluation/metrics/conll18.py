"""The CoNLL 2018 shared task's figures (UPOS, LAS, CLAS, MLAS, BLEX...) with one row per gold sentence.

Two ways in: runs on the gold words are paired sentence by sentence with the
gold (:meth:`Conll18.score_with_rows`, the words side by side, so the
alignment is trivial); runs in the parser's own tokenisation and sentence
segmentation are aligned with the gold document by characters
(:func:`document_rows`), and each gold sentence gets the aligned words that
fall in it (see :func:`parseval.evaluation.deps.conll18.sentence_counts`). Either way
the rows summed over every gold sentence are the shared task's counts.
"""
from __future__ import annotations

import numpy as np

from parseval.evaluation import stats
from parseval.evaluation.deps.conll18 import COLUMNS, ROW_COLUMNS, ROWS, conll18_document, rows_from_sums, sentence_counts, format_table
from parseval.evaluation.deps.conll18_reader import Treebank, treebank_of_words

from .base import Layer, Metric, rows_array

PUBLISHED = ("UPOS", "LAS", "CLAS", "MLAS", "BLEX")
RAW_ONLY = ("Tokens", "Sentences", "Words")  # always 100% on the gold words: published for raw-text runs


def score_rows(counts: list[list[int]]) -> tuple[dict, np.ndarray]:
    rows = rows_array([tuple(r) for r in counts], len(COLUMNS), np.int64)
    sums = rows.sum(axis=0) if len(rows) else np.zeros(len(COLUMNS), dtype=np.int64)
    return conll18_document(rows_from_sums(list(sums))), rows


def document_rows(gold: Treebank, test: Treebank) -> list[list[int]]:
    """One row per sentence of the gold document (raises InputError when the texts differ)."""
    return sentence_counts(gold, test)


class Conll18(Metric):
    def score_with_rows(self, gold, test, **options) -> tuple[dict, np.ndarray]:
        """``gold``/``test``: sentences paired one to one (:class:`parseval.annotations.conllu.DepSentence`)."""
        rows = []
        for g, t in zip(gold, test):
            rows += sentence_counts(treebank_of_words([g]), treebank_of_words([t]))
        return score_rows(rows)

    def figures(self, s) -> dict:
        out = {}
        for name in ROWS:
            correct, gold, system, _ = (s[c] if c else None for c in ROW_COLUMNS[name])
            out.update({f"rows.{name}.correct": correct, f"rows.{name}.gold": gold, f"rows.{name}.system": system,
                        f"rows.{name}.precision": stats.ratio(correct, system),
                        f"rows.{name}.recall": stats.ratio(correct, gold),
                        f"rows.{name}.f1": stats.ratio(2 * correct, gold + system)})
        return out


def _score(gold, test, **options) -> dict:
    return Conll18.score_with_rows(METRIC, gold, test)[0]


def _report(doc: dict) -> str:
    return format_table(doc)


def _layer(name: str, label: str, description: str) -> Layer:
    return Layer(f"conll18-{name.lower()}", label, f=f"rows.{name}.f1", p=f"rows.{name}.precision",
                 r=f"rows.{name}.recall", fc=f"rows.{name}.correct", fp=f"rows.{name}.system",
                 cr=f"rows.{name}.gold", description=description)


METRIC = Conll18(
    name="conll18", label="CoNLL 2018 shared task figures", family="deps",
    columns=COLUMNS,
    ratios=tuple(f"rows.{name}.{k}" for name in ROWS for k in ("precision", "recall", "f1")),
    score=_score, report=_report, defaults={},
    layers=(
        _layer("Tokens", "Tokens F1 (CoNLL 2018)", "tokens with the gold's character range"),
        _layer("Sentences", "Sentences F1 (CoNLL 2018)", "sentences with the gold's character range"),
        _layer("Words", "Words F1 (CoNLL 2018)", "syntactic words aligned with a gold word"),
        _layer("UPOS", "UPOS F1 (CoNLL 2018)", "aligned words with the gold universal part of speech"),
        _layer("LAS", "LAS F1 (CoNLL 2018)", "aligned words with the right head and universal relation (subtypes "
                                             "dropped), punctuation included"),
        _layer("CLAS", "CLAS F1 (CoNLL 2018)", "LAS over content words only"),
        _layer("MLAS", "MLAS F1 (CoNLL 2018)",
               "CLAS that also needs UPOS, universal features and the function-word children right"),
        _layer("BLEX", "BLEX F1 (CoNLL 2018)", "CLAS that also needs the lemma right"),
    ),
)
