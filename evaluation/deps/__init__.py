"""Dependency evaluation, constituency-to-dependency conversion and the error-insertion lab.

Public API (pure Python, no Django):

* :func:`evaluation.deps.metrics.score_dependencies` (Lin 1998 triples, UAS, LAS)
* :func:`evaluation.deps.convert.trees_to_dependencies` (head rules)
* :func:`evaluation.deps.errorlab.run_error_lab` (controlled error insertion)
"""
from .metrics import PunctRule, format_table, score_dependencies, score_files

__all__ = ["PunctRule", "format_table", "score_dependencies", "score_files"]
