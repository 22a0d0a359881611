"""Importing a corpus into a campaign (an organiser action): what every kind's import shares.

Each kind reads and checks its own gold files (:meth:`evaluation.kinds.contract.Kind.import_corpus`),
then stores them here, in one transaction: per document, the *text file* teams receive (every
sentence's words and ids and no annotation, written the same way for every sentence so that nothing
tells the sentences that have gold from the others), and apart from it the gold:
:class:`annotations.models.GoldDocument` in gold storage and one
:class:`annotations.models.GoldSentence` row (with its subset) per annotated sentence.

This module reads gold, so team-facing views never import it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from django.core.files.base import ContentFile
from django.db import transaction

from parseval.annotations.errors import Problem
from annotations.models import GoldDocument, GoldSentence
from campaign import audit, kinds
from campaign.models import Campaign, CorpusDocument, Genre, Sentence
from campaign.services.downloads import extra_file_name
from parseval.annotations.names import genre_name, genre_of


@dataclass
class ImportSummary:
    documents: int = 0
    sentences: int = 0
    gold_sentences: int = 0
    words: int = 0
    genres: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def import_corpus(campaign: Campaign, gold_paths: Iterable[Path | str], **options) -> ImportSummary:
    """Import gold files into ``campaign`` the way its kind does (:meth:`Kind.import_corpus`): all or
    nothing, every problem listed in one :class:`InputError`. ``options``: the kind's (``subset``,
    ``actor``, ``genres``; EASY's ``text_paths``)."""
    return kinds.for_campaign(campaign).import_corpus(campaign, gold_paths, **options)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- what every kind's import shares -------------------------------------------------------

@dataclass
class StoredDocument:
    """One checked corpus document, ready to store: its team-facing text and its gold file."""

    name: str
    gold_path: Path
    text_name: str  # the stored text file's name
    text: bytes
    sentences: list[tuple[str, int]]  # (sentence id, word count) of the whole text, in order
    gold_ids: set[str]  # the sentences the gold annotates
    warnings: list[Problem] = field(default_factory=list)
    genre: str | None = None  # None: from the document's name
    extras: dict[str, bytes] = field(default_factory=dict)  # suffix -> more team-facing text (downloads.EXTRA_SUFFIXES)

    @property
    def gold_name(self) -> str:
        """``NAME.gold.EXT``: the stored gold file, never confused with the text file."""
        base = self.gold_path.name
        ext = base[len(self.name):] if base.startswith(self.name) else self.gold_path.suffix
        return f"{self.name}.gold{ext}"


@dataclass
class _Stored:
    """A stored file to remove again if the import fails (like a FieldFile: storage and name)."""

    storage: object
    name: str


def store_corpus(campaign: Campaign, documents: list[StoredDocument], *, subset: str, actor=None,
                 kind: str) -> ImportSummary:
    """Store checked documents (genres, text and gold files, sentences, subsets) and audit the import.

    All or nothing: one transaction, and the files written are removed again if anything fails.
    """
    saved: list = []
    try:
        with transaction.atomic():
            summary = _store(campaign, documents, subset, saved)
            audit.record(
                "corpus.import",
                actor=actor,
                campaign=campaign,
                target=campaign.slug,
                details={"kind": kind, "documents": summary.documents, "sentences": summary.sentences,
                         "gold_sentences": summary.gold_sentences, "subset": subset},
            )
    except BaseException:
        # Files are outside the transaction: remove what this import wrote.
        for fieldfile in saved:
            fieldfile.storage.delete(fieldfile.name)
        raise
    return summary


def _store(campaign: Campaign, documents: list[StoredDocument], subset: str, saved: list) -> ImportSummary:
    summary = ImportSummary()
    genres = {g.code: g for g in campaign.genres.all()}
    order = campaign.documents.count()
    for d in documents:
        code = d.genre or genre_of(d.name)
        if code not in genres:
            genres[code] = Genre.objects.create(campaign=campaign, code=code, name=genre_name(code),
                                                order=len(genres))
            summary.genres.append(code)
        words = sum(n for _, n in d.sentences)
        doc = CorpusDocument(campaign=campaign, genre=genres[code], name=d.name, sha256=_sha256(d.text),
                             sentence_count=len(d.sentences), word_count=words, order=order)
        order += 1
        doc.text_file.save(d.text_name, ContentFile(d.text), save=False)
        saved.append(doc.text_file)
        doc.save()
        for suffix, data in d.extras.items():
            stored_name = extra_file_name(doc, suffix)
            storage = doc.text_file.storage
            if storage.exists(stored_name):  # left over by a document of the same name, deleted since
                storage.delete(stored_name)
            if storage.save(stored_name, ContentFile(data)) != stored_name:
                raise RuntimeError(f"could not store {stored_name}")
            saved.append(_Stored(storage, stored_name))
        Sentence.objects.bulk_create(
            Sentence(document=doc, sid=sid, position=i, word_count=n) for i, (sid, n) in enumerate(d.sentences)
        )
        gold_bytes = d.gold_path.read_bytes()
        gold_doc = GoldDocument(document=doc, sha256=_sha256(gold_bytes), sentence_count=len(d.gold_ids))
        gold_doc.file.save(d.gold_name, ContentFile(gold_bytes), save=False)
        saved.append(gold_doc.file)
        gold_doc.save()
        GoldSentence.objects.bulk_create(
            GoldSentence(sentence=s, subset=subset) for s in doc.sentences.filter(sid__in=d.gold_ids)
        )
        summary.documents += 1
        summary.sentences += len(d.sentences)
        summary.gold_sentences += len(d.gold_ids)
        summary.words += words
        summary.warnings.extend(d.warnings)
    return summary
