"""An EASY run scored across workers: its shards of documents and their merge (:mod:`parseval.evaluation.easy.shards`).

A shard reads the gold of its own documents only, from the scorer's stored index of each gold file (built
and stored by the first reader, as the single task does: :func:`.gold.gold_index`), cut to the run's subset,
and counts the run's files of those documents. The merge, in the delivery that stores the result,
rebuilds the single task's gold checksum without parsing any gold: the stored files' bytes, and, when part
of a file is scored, the scored sentence ids, which each shard reports for its documents.

This module reads gold: worker code only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from campaign.services.runs import staging_dir
from parseval.evaluation.easy.shards import ShardCounts, count_shard, merge, split

from ..contract import RunSetup
from ..gold import gold_checksum, read_gold_file, run_subset_gold
from . import conllu as easy_conllu, run_index
from .gold import gold_index, gold_sentence_ids


def _corpus_order(golds) -> list:
    return sorted(golds, key=lambda g: (g.document.order, g.document.name))  # as subset_gold orders them


def shard_documents(run, setup: RunSetup, per_shard: int) -> list[list[str]]:
    _, wanted, golds = run_subset_gold(run)
    return split([(g.document.name, len(wanted[g.document.pk])) for g in _corpus_order(golds)], per_shard)


def score_shard(run, files: dict[str, Path], setup: RunSetup, documents: list[str]) -> bytes:
    schema, params = setup.context["schema"], setup.parameters
    _, wanted, golds = run_subset_gold(run)
    names = set(documents)
    ordered = _corpus_order(g for g in golds if g.document.name in names)
    gold_docs, genres, noted = {}, {}, {}
    for gold in ordered:
        genres[gold.document.name] = gold.document.genre.code
        # loaded when the document's run comes, so that no more than one gold index is held at a time; what the
        # merge needs of it is noted then, so that each index is loaded once
        gold_docs[gold.document.name] = lambda g=gold: _noted(g, schema, wanted[g.document.pk], noted)
    if list(gold_docs) != list(documents):
        raise ValueError(f"the gold of the shard's documents changed since the shards were planned: {documents}")

    def count(run_files, converter=""):  # each document read from the run's index where stored
        return count_shard(gold_docs, run_index.scored_documents(run, run_files, schema, gold_docs,
                                                                 converter=converter), genres,
                           matches=params["matches"], modes=params["modes"], schema=schema)

    # A shard's files may hold none of its documents; the stored conversion then says the run is CoNLL-U.
    converted = easy_conllu.is_conllu_run(files) or run.converted_file  # the EASY XML validation converted, kept
    if converted:
        with easy_conllu.converted_files(run, staging_dir(), documents=names) as converted_files:
            counts = count(converted_files, run.converter)
    else:
        counts = count(files)
    extra = {"whole": {}, "kept": {}}
    for gold in ordered:
        name, pk = gold.document.name, gold.document.pk
        if name not in noted:  # a document the counting did not load: its sentence ids alone
            ids = gold_sentence_ids(gold, schema)
            kept = [sid for sid in ids if sid in wanted[pk]]  # as IndexedDocument.restricted keeps them
            noted[name] = kept, len(kept) == len(ids)
        kept, extra["whole"][name] = noted[name]
        if len(kept) != len(wanted[pk]):
            extra["kept"][name] = kept  # what the checksum lists, when it differs from wanted
    if converted:
        extra["converter"] = run.converter
    counts.extra = extra
    return counts.to_bytes()


def _noted(gold, schema, wanted: set[str], noted: dict):
    """The gold index of ``gold`` cut to ``wanted``; its kept sentence ids and whether it is whole go to ``noted``."""
    kept = gold_index(gold, schema).restricted(wanted)
    noted[gold.document.name] = kept.sentence_ids, kept.whole
    return kept


def merge_shards(run, setup: RunSetup, counts: Iterable[bytes]) -> dict:
    """The result of the shards' ``counts``, each read from its bytes when the merge comes to it (``counts``
    may be a generator): one shard's rows are held at a time. What the checksum needs of each shard (its
    documents, and which were scored whole) is noted on the way, and the checksum written in the end."""
    params = setup.parameters
    subset, wanted, golds = run_subset_gold(run)
    ordered = _corpus_order(golds)
    expected = [g.document.name for g in ordered]
    merged_names, whole, kept, converters = [], {}, {}, []

    def shards():
        for data in counts:
            shard = ShardCounts.from_bytes(data)
            del data  # the shard's bytes: not held while the merge goes on
            merged_names.extend(d["name"] for d in shard.documents)
            if merged_names != expected[:len(merged_names)]:
                raise ValueError("the shards do not cover the gold of the run's subset in corpus order")
            whole.update(shard.extra["whole"])
            kept.update(shard.extra["kept"])
            converters.append(shard.extra.get("converter"))
            yield shard

    document = merge(shards(), matches=params["matches"], modes=params["modes"], bootstrap=params["bootstrap"],
                     seed=params["seed"], schema=setup.context["schema"])
    if merged_names != expected:
        raise ValueError("the shards do not cover the gold of the run's subset in corpus order")
    scored = None
    if not all(whole.values()):  # as easy_gold.scored_lines lists them
        pk = {g.document.name: g.document.pk for g in ordered}
        scored = [f"{d}:{sid}" for d in sorted(pk) for sid in sorted(kept.get(d, wanted[pk[d]]))]
    # the same key, in the same place, as the single task's
    document["gold_sha256"] = gold_checksum({f"{g.document.name}.xml": read_gold_file(g) for g in ordered}, subset,
                                            scored)
    converter = converters[0]
    return easy_conllu.mark_converted(document, converter) if converter else document
