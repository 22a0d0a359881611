"""Dependency evaluation, constituency-to-dependency conversion and the error-insertion lab.

Public API (pure Python, no Django):

* :func:`parseval.evaluation.deps.metrics.score_dependencies` (Lin 1998 triples, UAS, LAS)
* :func:`parseval.evaluation.deps.convert.trees_to_dependencies` (head rules)
* :func:`parseval.evaluation.deps.errorlab.run_error_lab` (controlled error insertion)
* :func:`parseval.evaluation.deps.conll18.score_files` (the CoNLL 2018 shared task's
  thirteen rows, ``deps --preset conll18``; reading in
  :mod:`parseval.evaluation.deps.conll18_reader`)
* :mod:`parseval.evaluation.deps.alignment` (CoNLL 2018 character-level alignment of two
  tokenisations of one text: character spans, form/token cover, word alignment)
"""
from .metrics import PunctRule, format_table, score_dependencies, score_files

__all__ = ["PunctRule", "format_table", "score_dependencies", "score_files"]
