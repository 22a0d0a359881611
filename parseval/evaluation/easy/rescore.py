"""An EASY run's per-sentence rows counted again from files: the released gold and the run's own file.

What ``python -m evaluation reproduce --gold DIR`` does with an EASY run of a publication bundle:
the gold folder (the campaign's released gold, EASY files named after the corpus documents) cut
to the sentences the bundle's rows say were scored, the run's file (one EASY file, or a .zip or
.tar.gz of one per document, as uploaded), counted with the ranges, modes and schema the run's
result was made with (:func:`parseval.evaluation.easy.scoring.count_sentences`, as the platform counts).

Pure: files and the engine only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from parseval.annotations.easy.model import Document
from parseval.annotations.easy.reader import document_key, read_document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.errors import InputError
from parseval.evaluation.easy.scoring import count_sentences, counted_rows
from parseval.evaluation.sentence_rescore import run_files


def gold_documents(gold_dir: Path, wanted: Mapping[str, set[str]], schema: EasySchema) -> dict[str, Document]:
    """``{document: gold Document}`` of the documents in ``wanted``, each cut to its wanted sentence ids."""
    paths = {document_key(p.name): p for p in sorted(Path(gold_dir).rglob("*.xml"))}
    missing = sorted(set(wanted) - set(paths))
    if missing:
        raise InputError(f"no gold file for {len(missing)} scored document(s) in {gold_dir}: "
                         f"{', '.join(m + '.xml' for m in missing[:5])}{' ...' if len(missing) > 5 else ''}")
    out = {}
    for key in sorted(wanted):
        full = read_document(paths[key], gold=True, strict=True, schema=schema, name=paths[key].name)
        kept = [s for s in full.sentences if s.id in wanted[key]]
        absent = sorted(wanted[key] - {s.id for s in kept})
        if absent:
            raise InputError(f"{paths[key]}: the gold lacks {len(absent)} scored sentence(s), e.g. {absent[0]}")
        out[key] = Document(name=paths[key].name, sentences=kept, warnings=full.warnings,
                            has_constituents=full.has_constituents, has_relations=full.has_relations)
    return out


def rescored_rows(gold_dir: Path, run_file: Path, keys: list[str], genres: list[str],
                  spec: Mapping) -> tuple[list[str], list[str], np.ndarray]:
    """The run's rows for the sentences ``keys`` (``document/sentence id``, genre ``genres[i]``), counted with
    ``spec`` (``matches``, ``modes``, ``schema`` as a dict or None for the engine's)."""
    schema = EasySchema.from_dict(spec["schema"]) if spec.get("schema") else DEFAULT_SCHEMA
    wanted: dict[str, set[str]] = {}
    genre_of: dict[str, str] = {}
    for key, genre in zip(keys, genres):
        document, _, sid = key.rpartition("/")
        wanted.setdefault(document, set()).add(sid)
        genre_of[document] = genre
    gold = gold_documents(gold_dir, wanted, schema)
    with run_files(run_file, (".xml",), sorted(gold)) as files:  # uploaded as one file, a .zip or a .tar.gz
        plan, index, counting = count_sentences(gold, {k: files[k] for k in gold if k in files}, genre_of,
                                                matches=spec.get("matches") or (), modes=spec.get("modes") or (),
                                                schema=schema)
        return counted_rows(plan, index, counting)
