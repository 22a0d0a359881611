"""The gold of an EASY run's subset, read for scoring, paired tests and diagnostics.

Scoring reads the scorer's index of each gold file (:mod:`parseval.evaluation.easy.gold_index`), stored beside the
gold through the gold file's storage and keyed by what it was built from (the file's SHA-256, the schema,
the scorer version). The first scoring that finds none parses the XML once and stores it; every later run
of the campaign loads it instead, one document at a time when that document's run comes.

Two workers may build the same index at once. The name is the key, so both write the same bytes; the storage
API has no rename, so a writer never overwrites: when the storage gives its save another name (the first
writer's is there), that copy is deleted. A reader that meets a file still being written finds a truncated
archive, which :class:`~parseval.evaluation.easy.gold_index.IndexUnreadable` reports; it then reads the XML, never a
partial index.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

import io
import logging

from django.core.files.base import ContentFile

from parseval.annotations.easy import EasySchema, read_document
from parseval.annotations.easy.model import Document
from parseval.evaluation.easy.gold_index import IndexedDocument, IndexUnreadable, index_key
from parseval.evaluation.version import SCORER_VERSION

from ..gold import gold_checksum, read_gold_file, run_subset_gold, subset_gold

logger = logging.getLogger(__name__)


def cut(gold, wanted: set[str], schema: EasySchema) -> tuple[Document, bool]:
    """One stored gold file read with ``schema``, cut to the sentences in ``wanted``; whether it is whole."""
    name = f"{gold.document.name}.xml"
    with gold.file.open("rb") as fh:
        full = read_document(fh, gold=True, strict=True, schema=schema, name=name)
    sentences = [s for s in full.sentences if s.id in wanted]
    return Document(name=name, sentences=sentences, warnings=full.warnings, has_constituents=full.has_constituents,
                    has_relations=full.has_relations), len(sentences) == len(full.sentences)


def scored_lines(documents: list) -> list[str]:
    """``document:sid`` of the scored sentences, by document name and sentence id (as the checksum has them)."""
    kept = {doc.name: gold for doc, gold in documents}
    return [f"{d}:{sid}" for d in sorted(kept) for sid in sorted(_ids(kept[d]))]


def _ids(kept) -> list[str]:
    ids = getattr(kept, "sentence_ids", None)  # an index, or the ids kept of one
    return ids if ids is not None else [s.id for s in kept.sentences]


def load_gold(run, schema: EasySchema) -> tuple[dict[str, Document], dict[str, str], str, int]:
    """Gold documents restricted to the run's subset, the genre map, the gold checksum, sentence count."""
    documents, checksum = subset_gold(run, lambda gold, wanted: cut(gold, wanted, schema),
                                      lambda name: f"{name}.xml", scored_lines)
    gold_docs = {doc.name: kept for doc, kept in documents}
    genres = {doc.name: doc.genre.code for doc, _ in documents}
    return gold_docs, genres, checksum, sum(len(kept.sentences) for kept in gold_docs.values())


def index_name(gold, key: str) -> str:
    """Where a gold file's index is stored: beside it, under its campaign, named by its key."""
    doc = gold.document
    return f"{doc.campaign.slug}/index/{doc.name}.{key[:32]}.npz"


def gold_index(gold, schema: EasySchema) -> IndexedDocument:
    """The index of one stored gold file (every sentence): loaded, or built from the XML and stored."""
    return _stored_index(gold, schema, IndexedDocument.from_bytes)


def gold_sentence_ids(gold, schema: EasySchema) -> list[str]:
    """The ids of every sentence of one stored gold file, in file order, from its stored index without the rest
    of it (built from the XML and stored, as :func:`gold_index` does, when there is none)."""
    found = _stored_index(gold, schema, IndexedDocument.sentence_ids_from_bytes)
    return found.sentence_ids if isinstance(found, IndexedDocument) else found


def _stored_index(gold, schema: EasySchema, read):
    """``read(stored index bytes, key)``; or, where the stored index is missing or unusable, the index built
    from the XML (stored when it was missing)."""
    key = index_key(gold.sha256, schema, SCORER_VERSION)
    name = index_name(gold, key)
    storage = gold.file.storage
    try:
        with storage.open(name, "rb") as fh:
            return read(fh.read(), key)
    except FileNotFoundError:
        pass
    except (IndexUnreadable, OSError) as exc:  # being written by another worker, or damaged: read the XML
        logger.warning("gold index %s not used: %s", name, exc)
        return _build(gold, schema, key)
    index = _build(gold, schema, key)
    _store(storage, name, index.to_bytes())
    return index


def _build(gold, schema: EasySchema, key: str) -> IndexedDocument:
    data = read_gold_file(gold)
    doc = read_document(io.BytesIO(data), gold=True, strict=True, schema=schema, name=f"{gold.document.name}.xml")
    return IndexedDocument.from_document(doc, schema, key)


def _store(storage, name: str, data: bytes) -> None:
    try:
        saved = storage.save(name, ContentFile(data))
    except OSError as exc:  # an index is a cache: scoring goes on without it
        logger.warning("gold index %s not stored: %s", name, exc)
        return
    if saved != name:  # another worker stored it first (same key, same bytes): keep one copy
        storage.delete(saved)


def scoring_gold(run, schema: EasySchema) -> tuple[dict, dict[str, str], str, int]:
    """What :func:`load_gold` returns for scoring, from the stored indexes: ``{name: loader}`` (each loader
    returns the document's index cut to the run's subset, read when called), the genre map, the gold checksum
    (the same as :func:`load_gold`'s) and the sentence count. No XML is parsed where the indexes are stored,
    and no more than one gold file is held at a time: the checksum and the count, needed before the first run
    document, read only each index's sentence ids; the whole index is loaded once, by its loader."""
    subset, wanted, golds = run_subset_gold(run)
    golds = sorted(golds, key=lambda g: (g.document.order, g.document.name))
    documents, partial = [], False
    for gold in golds:
        ids, kept_ids = gold_sentence_ids(gold, schema), wanted[gold.document.pk]
        kept = [sid for sid in ids if sid in kept_ids]  # as IndexedDocument.restricted keeps them
        partial |= len(kept) != len(ids)
        documents.append((gold.document, _Ids(kept)))
    files = {f"{gold.document.name}.xml": (lambda g=gold: read_gold_file(g)) for gold in golds}
    checksum = gold_checksum(files, subset, scored_lines(documents) if partial else None)
    loaders = {gold.document.name: (lambda g=gold: gold_index(g, schema).restricted(wanted[g.document.pk]))
               for gold in golds}
    genres = {doc.name: doc.genre.code for doc, _ in documents}
    return loaders, genres, checksum, sum(len(ids.sentence_ids) for _, ids in documents)


class _Ids:
    """The ids of a document's scored sentences (what :func:`scored_lines` reads), without the sentences."""

    def __init__(self, ids: list[str]):
        self.sentence_ids = ids
