"""The gold of an EASY run's subset, read for scoring, paired tests and diagnostics.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from annotations.easy import EasySchema, read_document
from annotations.easy.model import Document
from campaign.stored_files import local_copy

from ..gold import subset_gold


def cut(gold, wanted: set[str], schema: EasySchema) -> tuple[Document, bool]:
    """One stored gold file read with ``schema``, cut to the sentences in ``wanted``; whether it is whole."""
    name = f"{gold.document.name}.xml"
    with local_copy(gold.file, sha256=gold.sha256) as path:
        full = read_document(path, gold=True, strict=True, schema=schema, name=name)
    sentences = [s for s in full.sentences if s.id in wanted]
    return Document(name=name, sentences=sentences, warnings=full.warnings, has_constituents=full.has_constituents,
                    has_relations=full.has_relations), len(sentences) == len(full.sentences)


def scored_lines(documents: list) -> list[str]:
    """``document:sid`` of the scored sentences, by document name and sentence id (as the checksum has them)."""
    kept = {doc.name: gold for doc, gold in documents}
    return [f"{d}:{sid}" for d in sorted(kept) for sid in sorted(s.id for s in kept[d].sentences)]


def load_gold(run, schema: EasySchema) -> tuple[dict[str, Document], dict[str, str], str, int]:
    """Gold documents restricted to the run's subset, the genre map, the gold checksum, sentence count."""
    documents, checksum = subset_gold(run, lambda gold, wanted: cut(gold, wanted, schema),
                                      lambda name: f"{name}.xml", scored_lines)
    gold_docs = {doc.name: kept for doc, kept in documents}
    genres = {doc.name: doc.genre.code for doc, _ in documents}
    return gold_docs, genres, checksum, sum(len(kept.sentences) for kept in gold_docs.values())
