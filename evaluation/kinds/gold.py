"""The gold of a run's subset, as every kind loads it: which sentences, which files, one checksum.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from annotations.models import GoldDocument, GoldSentence
from campaign.models import Run
from campaign.stored_files import read_bytes
from parseval.evaluation.easy.files import gold_sha256_bytes


def run_subset_gold(run) -> tuple[str, dict[int, set[str]], list[GoldDocument]]:
    """``(subset, {document id: wanted sentence ids}, gold documents)`` of the run's scope."""
    subset = GoldSentence.Subset.DEV if run.scope == Run.Scope.DEV else GoldSentence.Subset.TEST
    wanted: dict[int, set[str]] = defaultdict(set)
    for doc_id, sid in GoldSentence.objects.filter(sentence__document__campaign=run.campaign,
                                                   subset=subset).values_list("sentence__document_id",
                                                                              "sentence__sid"):
        wanted[doc_id].add(sid)
    golds = list(GoldDocument.objects.filter(document_id__in=list(wanted)).select_related("document__genre"))
    return subset, wanted, golds


def read_gold_file(gold: GoldDocument) -> bytes:
    # Through the local copy the readers made of it: on object storage, one download per machine.
    return read_bytes(gold.file, sha256=gold.sha256)


def gold_checksum(files: dict[str, bytes], subset: str, scored: Iterable[str] | None) -> str:
    """The checksum of the stored gold files; ``scored`` (``document:sid`` lines) when only part was scored."""
    if scored is not None:
        # The files alone do not say which sentences were scored: the subset is part of the checksum.
        files = {**files, f"subset-{subset}": "\n".join(scored).encode("utf-8")}
    return gold_sha256_bytes(files)


def subset_gold(run, cut: Callable[[GoldDocument, set[str]], tuple[object, bool]], display: Callable[[str], str],
                scored_lines: Callable[[list], list[str]]) -> tuple[list, str]:
    """``([(document, kept)], checksum)``: the gold of the run's subset, per gold document in corpus order.

    ``cut(gold, wanted ids)`` reads one stored gold file and returns ``(kept, whole)``: what scoring reads of
    it, and whether that is every sentence of the file. The checksum is of the stored files (named
    ``display(document name)``), and, when only part of a file is scored, of ``scored_lines(documents)``.
    """
    subset, wanted, golds = run_subset_gold(run)
    documents, checksum_files, partial = [], {}, False
    for gold in sorted(golds, key=lambda g: (g.document.order, g.document.name)):
        doc = gold.document
        kept, whole = cut(gold, wanted[doc.pk])
        partial |= not whole
        documents.append((doc, kept))
        checksum_files[display(doc.name)] = read_gold_file(gold)
    return documents, gold_checksum(checksum_files, subset, scored_lines(documents) if partial else None)
