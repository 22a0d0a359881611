"""Importing an EASY corpus into a campaign (an organiser action).

Teams receive, per document, a *text file*: an EASY XML file with every
sentence's forms and ids and no annotation, written the same way for every
sentence so that nothing tells the sentences that have gold from the others.
The gold goes apart: :class:`annotations.models.GoldDocument` in gold storage
and one :class:`annotations.models.GoldSentence` row (with its subset) per
annotated sentence.

This module reads gold, so team-facing views never import it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from django.core.files.base import ContentFile
from django.db import transaction

from annotations.easy import Document, Form, Sentence as EasySentence, document_key, read_document, validate_run
from annotations.easy.writer import document_to_bytes
from annotations.errors import InputError, Problem
from annotations.models import GoldDocument, GoldSentence
from campaign import audit
from campaign.models import Campaign, CorpusDocument, Genre, Sentence
from campaign.services.downloads import extra_file_name
from annotations.names import genre_name, genre_of


@dataclass
class ImportSummary:
    documents: int = 0
    sentences: int = 0
    gold_sentences: int = 0
    words: int = 0
    genres: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def text_document(doc: Document, name: str) -> Document:
    """The team-facing copy of ``doc``: forms and ids only, no attribute of the source."""
    return Document(
        name=f"{name}.xml",
        sentences=[EasySentence(id=s.id, forms=[Form(f.id, f.text) for f in s.forms]) for s in doc.sentences],
        attributes={"fichier": f"{name}.xml"},
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def import_corpus(
    campaign: Campaign,
    gold_paths: Iterable[Path | str],
    *,
    text_paths: Mapping[str, Path | str] | Iterable[Path | str] | None = None,
    subset: str = GoldSentence.Subset.TEST,
    actor=None,
) -> ImportSummary:
    """Import gold files (and optionally fuller text files) into ``campaign``.

    ``gold_paths``: EASY gold files, one per corpus document (the document
    name is the file name without ``.xml``). ``text_paths``: for documents
    whose corpus has more sentences than the gold, an EASY file (forms only
    or annotated, its annotation is ignored) with every sentence; gold
    sentences must appear in it with the same forms. Every gold sentence gets
    ``subset``. All or nothing: on any problem, :class:`InputError` lists
    every problem found (file, line, sentence, element) and nothing is kept.
    """
    gold_files = {document_key(str(p)): Path(p) for p in gold_paths}
    if not gold_files:
        raise InputError("no gold file given")
    texts = _text_map(text_paths)
    unknown = sorted(set(texts) - set(gold_files))
    if unknown:
        raise InputError([Problem("text file without a gold file of the same name", file=f"{n}.xml") for n in unknown])
    existing = set(campaign.documents.filter(name__in=list(gold_files)).values_list("name", flat=True))
    if existing:
        raise InputError([Problem("a document of this name is already in the campaign", file=f"{n}.xml")
                          for n in sorted(existing)])

    problems: list[Problem] = []
    loaded: list[tuple[str, Path, Document, Document]] = []
    for name, path in sorted(gold_files.items()):
        try:
            gold = read_document(path, gold=True, strict=True, name=path.name)
            full = gold
            if name in texts:
                full = read_document(texts[name], gold=True, strict=True, name=texts[name].name)
                # The gold must be a subset of the text, form for form.
                problems.extend(validate_run(gold, full))
        except (InputError, OSError) as exc:
            problems.extend(exc.problems if isinstance(exc, InputError) else [Problem(str(exc), file=path.name)])
            continue
        if not gold.sentences:
            problems.append(Problem("the gold file has no sentence", file=path.name))
        loaded.append((name, path, gold, full))
    if problems:
        raise InputError(problems)

    documents = [_easy_document(name, path, gold, full) for name, path, gold, full in loaded]
    return store_corpus(campaign, documents, subset=subset, actor=actor, kind="easy")


def _text_map(text_paths) -> dict[str, Path]:
    if not text_paths:
        return {}
    if isinstance(text_paths, Mapping):
        return {document_key(str(k)): Path(v) for k, v in text_paths.items()}
    return {document_key(str(p)).removesuffix(".lic2m"): Path(p) for p in text_paths}


def _easy_document(name: str, path: Path, gold: Document, full: Document) -> "StoredDocument":
    return StoredDocument(
        name=name, gold_path=path, text_name=f"{name}.xml",
        text=document_to_bytes(text_document(full, name)),
        sentences=[(s.id, len(s.forms)) for s in full.sentences],
        gold_ids={s.id for s in gold.sentences}, warnings=list(gold.warnings),
    )


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
