"""A dependency run's rows counted again from its file and the released gold (``reproduce --gold``).

Gold-tokens track only (one sentence per corpus sentence, on the corpus's words): read as the
dependency kind reads CoNLL-U and scored by :mod:`parseval.evaluation.deps.campaign_scoring`, as the kind
scores them. Raw-text runs are aligned to the gold first; their kind gives no way to score them here.
Pure.
"""
from __future__ import annotations

from pathlib import Path

from parseval.annotations.conllu import parse_conllu
from parseval.annotations.errors import InputError
from parseval.evaluation import sentence_rescore
from parseval.evaluation.deps.campaign_scoring import score_metric

SUFFIXES = (".conllu", ".conll")


def read(path: Path) -> list:
    text = Path(path).read_bytes().decode("utf-8")
    if not text.strip():
        raise InputError("empty file: no sentence", file=str(path))
    return [(s, s.sent_id or None) for s in parse_conllu(text, file=str(path))]


def rescored_rows(gold_dir, run_file, keys, genres, spec):
    return sentence_rescore.rescored_rows(gold_dir, Path(run_file), keys, genres, spec, read=read,
                                          score=score_metric, suffixes=tuple(spec.get("suffixes") or SUFFIXES))
