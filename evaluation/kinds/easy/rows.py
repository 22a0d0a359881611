"""EASY's per-sentence rows for the paired tests: a result's run counted again against its gold."""
from __future__ import annotations

import numpy as np

from parseval.evaluation.easy.scoring import count_sentences, counted_rows
from evaluation.models import Result
from evaluation.results.sentence_rows import RowsUnavailable

from .conllu import scored_files
from .gold import scoring_gold
from .run_index import scored_documents


def easy_rows(result: Result, schema) -> tuple[list[str], list[str], np.ndarray]:
    """Rows of an EASY result: its run counted again against its gold (read with ``schema``)."""
    run = result.run
    gold_docs, genres, checksum, _ = scoring_gold(run, schema)
    if checksum != result.gold_sha256:
        raise RowsUnavailable("the gold changed since this result was scored")
    params = result.document.get("parameters") or {}
    try:
        with scored_files(run) as files:  # a CoNLL-U run's converted XML; read from the run's index where stored
            run_docs = scored_documents(run, files, schema, gold_docs,
                                        converter=run.converter if run.converted_file else "")
            plan, gold, counting = count_sentences(
                gold_docs, run_docs, genres,
                matches=params.get("matches") or (), modes=params.get("modes") or (), schema=schema)
    except FileNotFoundError as exc:
        raise RowsUnavailable(f"the run's file is gone ({exc.filename})") from None
    return counted_rows(plan, gold, counting)


__all__ = ["easy_rows", "counted_rows"]
