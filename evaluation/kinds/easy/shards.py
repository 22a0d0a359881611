"""An EASY run scored across workers: its shards of documents and their merge (:mod:`evaluation.easy.shards`).

A shard reads the gold of its own documents only, from the scorer's stored index of each gold file (built
and stored by the first reader, as the single task does: :func:`.gold.gold_index`), cut to the run's subset,
and counts the run's files of those documents. The merge, in the delivery that stores the result,
rebuilds the single task's gold checksum without parsing any gold: the stored files' bytes, and, when part
of a file is scored, the scored sentence ids, which each shard reports for its documents.

This module reads gold: worker code only.
"""
from __future__ import annotations

from pathlib import Path

from campaign.services.runs import staging_dir
from evaluation.easy.shards import ShardCounts, count_shard, merge, split

from ..contract import RunSetup
from ..gold import gold_checksum, read_gold_file, run_subset_gold
from . import conllu as easy_conllu
from .gold import gold_index


def _corpus_order(golds) -> list:
    return sorted(golds, key=lambda g: (g.document.order, g.document.name))  # as subset_gold orders them


def shard_documents(run, setup: RunSetup, per_shard: int) -> list[list[str]]:
    _, wanted, golds = run_subset_gold(run)
    return split([(g.document.name, len(wanted[g.document.pk])) for g in _corpus_order(golds)], per_shard)


def score_shard(run, files: dict[str, Path], setup: RunSetup, documents: list[str]) -> bytes:
    schema, params = setup.context["schema"], setup.parameters
    _, wanted, golds = run_subset_gold(run)
    names = set(documents)
    gold_docs, genres, whole, kept_ids = {}, {}, {}, {}
    for gold in _corpus_order(g for g in golds if g.document.name in names):
        name, pk = gold.document.name, gold.document.pk
        kept = gold_index(gold, schema).restricted(wanted[pk])
        whole[name], genres[name] = kept.whole, gold.document.genre.code
        if len(kept.sentence_ids) != len(wanted[pk]):
            kept_ids[name] = kept.sentence_ids  # what the checksum lists, when it differs from wanted
        # read again when the document's run comes, so that no more than one gold index is held at a time
        gold_docs[name] = lambda g=gold: gold_index(g, schema).restricted(wanted[g.document.pk])
    if list(gold_docs) != list(documents):
        raise ValueError(f"the gold of the shard's documents changed since the shards were planned: {documents}")

    def count(run_files):
        return count_shard(gold_docs, {n: run_files[n] for n in gold_docs if n in run_files}, genres,
                           matches=params["matches"], modes=params["modes"], schema=schema)

    extra = {"whole": whole, "kept": kept_ids}
    # A shard's files may hold none of its documents; the stored conversion then says the run is CoNLL-U.
    if easy_conllu.is_conllu_run(files) or run.converted_file:  # the EASY XML validation converted and kept
        with easy_conllu.converted_files(run, staging_dir(), documents=names) as converted:
            counts = count(converted)
        extra["converter"] = run.converter
    else:
        counts = count(files)
    counts.extra = extra
    return counts.to_bytes()


def merge_shards(run, setup: RunSetup, counts: list[bytes]) -> dict:
    params = setup.parameters
    shards = [ShardCounts.from_bytes(data) for data in counts]
    subset, wanted, golds = run_subset_gold(run)
    ordered = _corpus_order(golds)
    merged_names = [d["name"] for shard in shards for d in shard.documents]
    if merged_names != [g.document.name for g in ordered]:
        raise ValueError("the shards do not cover the gold of the run's subset in corpus order")
    whole = {name: w for shard in shards for name, w in shard.extra["whole"].items()}
    kept = {name: ids for shard in shards for name, ids in shard.extra["kept"].items()}
    scored = None
    if not all(whole.values()):  # as easy_gold.scored_lines lists them
        pk = {g.document.name: g.document.pk for g in ordered}
        scored = [f"{d}:{sid}" for d in sorted(pk) for sid in sorted(kept.get(d, wanted[pk[d]]))]
    checksum = gold_checksum({f"{g.document.name}.xml": read_gold_file(g) for g in ordered}, subset, scored)
    document = merge(shards, matches=params["matches"], modes=params["modes"], bootstrap=params["bootstrap"],
                     seed=params["seed"], gold_sha256=checksum, schema=setup.context["schema"])
    converter = shards[0].extra.get("converter")
    return easy_conllu.mark_converted(document, converter) if converter else document
