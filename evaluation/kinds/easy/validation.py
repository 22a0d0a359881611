"""Validation of an EASY run: against the corpus text, the same for sentences with and without gold."""
from __future__ import annotations

import io
from pathlib import Path

from django.utils import timezone

from annotations.easy import EasySchema, read_document, reference_forms, validate_run
from annotations.errors import Problem
from campaign.subsets import documents_to_check, missing_document_message, sentences_to_cover

from ..contract import Progress
from . import conllu as easy_conllu

MAX_REPORTED = 1000  # problems listed in a report; the count says how many there were


def validate_run_files(run, files: dict[str, Path], schema: EasySchema, progress: Progress | None = None) -> dict:
    """The validation report of a run: every problem, over every corpus document.

    The reference is the corpus text teams downloaded, never the gold, so no
    message, count or order depends on which sentences have gold. A CoNLL-U
    run is converted first (:mod:`.easy_conllu`), against that same text; its
    problems are part of the report, and the EASY XML of a valid run is kept.
    """
    problems: list[Problem] = []
    warnings: list[Problem] = []
    conllu = easy_conllu.is_conllu_run(files)
    suffix = easy_conllu.CONLLU if conllu else ".xml"
    converted: dict[str, bytes] = {}
    cover = sentences_to_cover(run.campaign, run.scope)
    documents = documents_to_check(run.campaign, cover, files)
    sentences = 0
    for done, doc in enumerate(documents, 1):
        path = files.get(doc.name)
        if path is None:
            problems.append(Problem(missing_document_message(doc.name, cover), file=f"{doc.name}{suffix}"))
        else:
            with doc.text_file.open("rb") as text:
                corpus = read_document(text, gold=True, name=f"{doc.name}.xml")
            expected = reference_forms(corpus)
            sentences += len(expected)
            run_file = path
            if conllu:
                xml, found = easy_conllu.convert_file(corpus, path, f"{doc.name}{suffix}")
                problems.extend(found)
                if xml is not None:
                    converted[doc.name] = xml
                    run_file = io.BytesIO(xml)
                else:
                    run_file = None
            if run_file is not None:
                # named as the team named it: the unpacked copy has a temporary name
                problems.extend(validate_run(run_file, expected, schema=schema, warnings=warnings,
                                             name=f"{doc.name}.xml"))
        if progress:
            progress(done, len(documents))
    if conllu and not problems:
        easy_conllu.store_converted(run, converted)
    extra = {"format": "conllu", "converter": easy_conllu.CONVERTER_VERSION} if conllu else {}
    return {
        **extra,
        "valid": not problems,
        "checked_at": timezone.now().isoformat(),
        "schema": schema.name,
        "documents": len(documents),
        "sentences": sentences,
        "problem_count": len(problems),
        "problems": [p.as_dict() for p in problems[:MAX_REPORTED]],
        "warnings": [w.as_dict() for w in warnings[:MAX_REPORTED]],
        "warning_count": len(warnings),
    }
