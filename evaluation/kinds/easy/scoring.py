"""Scoring a validated EASY run against the gold of its scope, with the engine (:mod:`parseval.evaluation.easy`)."""
from __future__ import annotations

from pathlib import Path

from parseval.annotations.easy import EasySchema
from campaign.models import Run
from campaign.services.runs import staging_dir
from parseval.evaluation.easy.scoring import score_corpus
from evaluation.pipeline.services import NoGold

from ..contract import Progress
from . import conllu as easy_conllu, run_index
from .gold import scoring_gold
from .options import scoring_parameters


def score_run_files(run, files: dict[str, Path], schema: EasySchema, progress: Progress | None = None, *,
                    params: dict | None = None) -> dict:
    """The engine's result document for a validated run (``params``: :func:`scoring_parameters`, when known)."""
    gold_docs, genres, checksum, count = scoring_gold(run, schema)
    if not count:
        raise NoGold("the development sample is empty" if run.scope == Run.Scope.DEV
                     else "the campaign has no gold for its test set yet")
    params = params or scoring_parameters(run.campaign)
    if easy_conllu.is_conllu_run(files):  # what is scored is the EASY XML validation converted and kept
        with easy_conllu.converted_files(run, staging_dir()) as converted:
            run_docs = run_index.scored_documents(run, converted, schema, gold_docs, converter=run.converter)
            return easy_conllu.mark_converted(_score(gold_docs, run_docs, genres, checksum, params, schema,
                                                     progress), run.converter)
    return _score(gold_docs, run_index.scored_documents(run, files, schema, gold_docs), genres, checksum, params,
                  schema, progress)


def _score(gold_docs, run_docs, genres, checksum, params, schema, progress) -> dict:
    """``run_docs``: each document's index, as validation kept it, or its file (:mod:`.run_index`)."""
    return score_corpus(gold_docs, run_docs, genres, matches=params["matches"], modes=params["modes"],
                        bootstrap=params["bootstrap"], seed=params["seed"], gold_sha256=checksum,
                        progress=progress, schema=schema)
