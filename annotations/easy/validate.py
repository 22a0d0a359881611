"""Run-versus-corpus validation that collects every problem.

A run must use the corpus's sentence ids, form ids and form texts. The
reference can be the gold document or the bare corpus text (an EASY file
with forms only): only its forms are used, so validation looks the same
for sentences with and without gold.
"""
from __future__ import annotations

import os
from typing import Mapping

from annotations.errors import Problem

from .model import Document
from .reader import DEFAULT_MAX_PROBLEMS, ProblemSink, compare_forms, iter_sentences, read_document, source_name
from .schema import DEFAULT_SCHEMA, EasySchema

ReferenceForms = Mapping[str, tuple[tuple[str, str], ...]]


def reference_forms(reference) -> dict[str, tuple[tuple[str, str], ...]]:
    """``{sentence id: ((form id, text), ...)}`` from a Document, a path or such a mapping."""
    if isinstance(reference, Mapping):
        return dict(reference)
    if isinstance(reference, (str, os.PathLike)):
        reference = read_document(reference, gold=True)
    return {s.id: tuple((f.id, f.text) for f in s.forms) for s in reference.sentences}


def validate_run(
    run,
    reference,
    *,
    schema: EasySchema = DEFAULT_SCHEMA,
    max_problems: int | None = DEFAULT_MAX_PROBLEMS,
    warnings: list | None = None,
    name: str | None = None,
) -> list[Problem]:
    """Every problem of a run file against the corpus (or gold) ``reference``.

    ``run`` is a path / binary file (streamed, never held in memory) or a
    :class:`Document` (its read-time ``problems`` are included). Sentences
    of the reference that the run lacks are reported in ``warnings`` (they
    score as empty output). ``name`` is the file's name in messages
    (default: its base name). Returns ``[]`` when the run is valid.
    """
    sink = ProblemSink(max_problems)
    warnings = [] if warnings is None else warnings
    expected = reference_forms(reference)
    if isinstance(run, Document):
        file = run.name
        for p in run.problems:
            sink.add(p)
        seen = set()
        for s in run.sentences:
            seen.add(s.id)
            forms = expected.get(s.id)
            if forms is None:
                sink.add(Problem(f"unknown sentence id {s.id}: not in the corpus", file=file, line=s.line,
                                 sentence=s.id, element="E"))
                continue
            for p in compare_forms(s, forms, file):
                sink.add(p)
    else:
        file = name or source_name(run)
        ids: list[str] = []
        for _ in iter_sentences(run, schema=schema, gold=False, problems=sink, warnings=warnings, name=file,
                                want=lambda sid: False, expected_forms=expected, expected_complete=True,
                                seen=ids):
            pass
        seen = set(ids)
    missing = [sid for sid in expected if sid not in seen]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        # Said so that it holds whether or not the run turns out valid (an invalid run is never scored).
        warnings.append(Problem(f"{len(missing)} sentence(s) of the corpus missing from the run (a valid run "
                                f"scores them as empty output): {shown}", file=file))
    return sink.result()
