"""The EASY consensus of a campaign's runs: the engine (:mod:`parseval.evaluation.consensus.easy`) over stored runs.

A CoNLL-U run is combined as it is scored: through the EASY XML its validation
converted and kept. The sentences and forms are the corpus's (the text files
teams downloaded), so the consensus has every corpus sentence, and its files
are a run of the campaign: one ``.xml`` per document, each group and relation
with an ``agreement`` attribute that the scorer ignores. Those files are the
treebank too.
"""
from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from parseval.annotations.easy.reader import document_key
from campaign.services.runs import staging_dir
from campaign.stored_files import local_copy
from parseval.evaluation.consensus.easy import DEFAULT_GROUP_THRESHOLD, DEFAULT_RELATION_THRESHOLD
from parseval.evaluation.consensus.files import combine_easy_files

from ..contract import Combined
from . import conllu as easy_conllu


def combine(campaign, runs, weights, out: Path, *, thresholds: dict | None = None,
            fallback: int | None = None) -> Combined:
    out.mkdir(parents=True, exist_ok=True)
    corpus = out / "corpus"
    corpus.mkdir()
    names = {}
    with ExitStack() as stack:
        for doc in campaign.documents.order_by("order", "name"):
            (corpus / f"{doc.name}.xml").symlink_to(stack.enter_context(local_copy(doc.text_file)))
            names[document_key(f"{doc.name}.xml")] = doc.name
        folders = []
        for i, (run, files) in enumerate(runs):
            if easy_conllu.is_conllu_run(files):  # what was scored: the EASY XML validation converted
                files = stack.enter_context(easy_conllu.converted_files(run, staging_dir()))
            folder = out / "runs" / str(i)
            folder.mkdir(parents=True)
            for name, path in files.items():
                (folder / f"{name}.xml").symlink_to(path)
            folders.append(folder)
        thresholds = thresholds or {}
        summary = combine_easy_files(folders, out / "consensus", weights, corpus=corpus,
                                     group_threshold=thresholds.get("groups", DEFAULT_GROUP_THRESHOLD),
                                     relation_threshold=thresholds.get("relations", DEFAULT_RELATION_THRESHOLD),
                                     fallback=fallback)
    written = {names.get(document_key(Path(p).name), document_key(Path(p).name)): Path(p) for p in summary.files}
    return Combined(files=written, treebank=list(written.values()), sentences=summary.sentences,
                    items=summary.items, mean_agreement=summary.mean_agreement)
