"""The gold of a run's subset, as every kind loads it: which sentences, which files, one checksum.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from annotations.models import GoldDocument, GoldSentence
from campaign.models import Run
from evaluation.easy.files import gold_sha256_bytes


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
    with gold.file.open("rb") as fh:
        return fh.read()


def gold_checksum(files: dict[str, bytes], subset: str, scored: Iterable[str] | None) -> str:
    """The checksum of the stored gold files; ``scored`` (``document:sid`` lines) when only part was scored."""
    if scored is not None:
        # The files alone do not say which sentences were scored: the subset is part of the checksum.
        files = {**files, f"subset-{subset}": "\n".join(scored).encode("utf-8")}
    return gold_sha256_bytes(files)
