"""A constituency run's rows counted again from its file and the released gold (``reproduce --gold``).

Trees are read as the constituency kind reads them (one tree per sentence, ids from the corpus
order) and scored by :mod:`parseval.evaluation.trees.campaign_scoring`, as the kind scores them. Pure.
"""
from __future__ import annotations

from pathlib import Path

from parseval.annotations.trees.detect import read_sentences
from parseval.evaluation import sentence_rescore
from parseval.evaluation.trees.campaign_scoring import score_metric

SUFFIXES = (".mrg", ".tree", ".txt")


def read(path: Path) -> list:
    trees, _ = read_sentences(path)
    return [(tree, None) for tree in trees]  # bracketed trees carry no id: the corpus order names them


def rescored_rows(gold_dir, run_file, keys, genres, spec):
    return sentence_rescore.rescored_rows(gold_dir, Path(run_file), keys, genres, spec, read=read,
                                          score=score_metric, suffixes=tuple(spec.get("suffixes") or SUFFIXES))
