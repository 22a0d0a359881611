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

An index of another key (an older scorer version, another guide schema, a gold file since replaced) or of a
document the database no longer has is never read by this code again; the hourly upkeep deletes it
(:func:`sweep`, through the kind's ``sweep_stored`` hook) once it and its document's current index were both
written more than the task time limit ago: the current index is written by the first scoring after the
change, so by then no scoring that started before it (a worker of the previous version) is still running.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

import io
import logging
import posixpath
import re
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.utils import timezone

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
    return f"{doc.campaign.slug}/{INDEX_FOLDER}/{doc.name}.{key[:32]}.npz"


INDEX_FOLDER = "index"
# <document name>.<the key's first 32 hexadecimal digits>.npz, in <campaign slug>/index/ (index_name)
STORED = re.compile(r"^(?P<document>.+)\.(?P<key>[0-9a-f]{32})\.npz$")


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


def written_before(storage, name: str, cutoff: datetime) -> bool:
    """Whether the stored file ``name`` was last written before ``cutoff``; False when the storage cannot say
    (the file is then kept: a sweep removes nothing it cannot date)."""
    try:
        return storage.get_modified_time(name) < cutoff
    except (OSError, NotImplementedError, ValueError):  # gone meanwhile, or a storage without dates
        return False


def sweep(storage, current: dict, *, now: datetime | None = None) -> dict:
    """Delete the gold indexes no scoring will read: ``current`` is ``{campaign slug: {document name: the
    current key's first 32 digits}}`` of every EASY campaign (``False`` for a campaign whose guide schema cannot
    be read: every key kept there), and an index is kept when it is its document's current one. Any other (of
    another key, of a document or campaign the database no longer has) goes once it and its document's current
    index (when there is one) were both written more than the task time limit before ``now``. Counts of the
    indexes found and deleted."""
    now = timezone.now() if now is None else now
    cutoff = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    outcome = {"gold_indexes": 0, "gold_stale": 0}
    try:
        campaigns, _ = storage.listdir("")
    except FileNotFoundError:
        return outcome
    for slug in campaigns:
        folder = posixpath.join(slug, INDEX_FOLDER)
        try:
            _, names = storage.listdir(folder)
        except FileNotFoundError:
            continue
        keys = current.get(slug, {})
        present = set(names)
        for name in names:
            found = STORED.match(name)
            if not found:
                continue
            outcome["gold_indexes"] += 1
            key = keys.get(found["document"]) if keys is not False else None
            if keys is False or key == found["key"]:
                continue
            newer = f"{found['document']}.{key}.npz"
            if not written_before(storage, posixpath.join(folder, name), cutoff) or (
                    newer in present and not written_before(storage, posixpath.join(folder, newer), cutoff)):
                continue  # a scoring that started before the change may still be reading it
            storage.delete(posixpath.join(folder, name))
            outcome["gold_stale"] += 1
    return outcome


def sweep_stored(now: datetime | None = None) -> dict:
    """:func:`sweep` of the gold storage, with the current key of every EASY campaign's gold documents."""
    from annotations.models import GoldDocument, gold_storage
    from campaign.models import Campaign, CampaignKind

    from .options import campaign_schema

    current: dict = {}
    for campaign in Campaign.objects.filter(kind=CampaignKind.EASY):
        try:
            schema = campaign_schema(campaign)
        except ValueError:  # a malformed guide schema: which keys scoring reads cannot be told, keep them all
            current[campaign.slug] = False
            continue
        current[campaign.slug] = {
            name: index_key(sha, schema, SCORER_VERSION)[:32] for name, sha in GoldDocument.objects.filter(
                document__campaign=campaign).values_list("document__name", "sha256")}
    return sweep(gold_storage, current, now=now)


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
