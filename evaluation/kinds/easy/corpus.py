"""Importing an EASY corpus: EASY gold files (and fuller text files), read and checked before storing.

Teams receive, per document, an EASY XML file with every sentence's forms and ids and no annotation
(:func:`text_document`); the shared steps (genres, files, subsets, audit, one transaction) are
:func:`campaign.services.corpus.store_corpus`'s.

This module reads gold: worker and organiser code only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from parseval.annotations.easy import Document, Form, Sentence as EasySentence, document_key, read_document, validate_run
from parseval.annotations.easy.writer import document_to_bytes
from parseval.annotations.errors import InputError, Problem, N_
from annotations.models import GoldSentence
from campaign.models import Campaign
from campaign.services.corpus import ImportSummary, StoredDocument, store_corpus


def text_document(doc: Document, name: str) -> Document:
    """The team-facing copy of ``doc``: forms and ids only, no attribute of the source."""
    return Document(
        name=f"{name}.xml",
        sentences=[EasySentence(id=s.id, forms=[Form(f.id, f.text) for f in s.forms]) for s in doc.sentences],
        attributes={"fichier": f"{name}.xml"},
    )


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
        raise InputError(N_("no gold file given"))
    texts = _text_map(text_paths)
    unknown = sorted(set(texts) - set(gold_files))
    if unknown:
        raise InputError([Problem(N_("text file without a gold file of the same name"), file=f"{n}.xml") for n in unknown])
    existing = set(campaign.documents.filter(name__in=list(gold_files)).values_list("name", flat=True))
    if existing:
        raise InputError([Problem(N_("a document of this name is already in the campaign"), file=f"{n}.xml")
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
            problems.append(Problem(N_("the gold file has no sentence"), file=path.name))
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


def _easy_document(name: str, path: Path, gold: Document, full: Document) -> StoredDocument:
    return StoredDocument(
        name=name, gold_path=path, text_name=f"{name}.xml",
        text=document_to_bytes(text_document(full, name)),
        sentences=[(s.id, len(s.forms)) for s in full.sentences],
        gold_ids={s.id for s in gold.sentences}, warnings=list(gold.warnings),
    )
