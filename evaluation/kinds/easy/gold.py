"""The gold of an EASY run's subset, read for scoring, paired tests and diagnostics.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from annotations.easy import EasySchema, read_document
from annotations.easy.model import Document

from ..gold import gold_checksum, read_gold_file, run_subset_gold


def load_gold(run, schema: EasySchema) -> tuple[dict[str, Document], dict[str, str], str, int]:
    """Gold documents restricted to the run's subset, the genre map, the gold checksum, sentence count."""
    subset, wanted, golds = run_subset_gold(run)
    gold_docs: dict[str, Document] = {}
    genres: dict[str, str] = {}
    checksum_files: dict[str, bytes] = {}
    partial = False
    count = 0
    for gold in golds:
        doc = gold.document
        data = read_gold_file(gold)
        full = read_document(gold.file.path, gold=True, strict=True, schema=schema, name=f"{doc.name}.xml")
        keep = wanted[doc.pk]
        sentences = [s for s in full.sentences if s.id in keep]
        partial |= len(sentences) != len(full.sentences)
        gold_docs[doc.name] = Document(name=f"{doc.name}.xml", sentences=sentences, warnings=full.warnings,
                                       has_constituents=full.has_constituents, has_relations=full.has_relations)
        genres[doc.name] = doc.genre.code
        checksum_files[f"{doc.name}.xml"] = data
        count += len(sentences)
    scored = ([f"{d}:{sid}" for d in sorted(gold_docs) for sid in sorted(s.id for s in gold_docs[d].sentences)]
              if partial else None)
    return gold_docs, genres, gold_checksum(checksum_files, subset, scored), count
