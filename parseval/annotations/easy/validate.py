"""Run-versus-corpus validation that collects every problem.

A run must use the corpus's sentence ids, form ids and form texts. The
reference can be the gold document or the bare corpus text (an EASY file
with forms only): only its forms are used, so validation looks the same
for sentences with and without gold.
"""
from __future__ import annotations

import os
from typing import Mapping

from parseval.annotations.errors import Problem, N_

from .model import Document
from lxml import etree

from .reader import (
    DEFAULT_MAX_PROBLEMS, ProblemSink, _iterparse, compare_forms, iter_sentences, read_document, source_name,
)
from .schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations import plausibility

ReferenceForms = Mapping[str, tuple[tuple[str, str], ...]]


def reference_forms(reference) -> dict[str, tuple[tuple[str, str], ...]]:
    """``{sentence id: ((form id, text), ...)}`` from a Document, a path or such a mapping."""
    if isinstance(reference, Mapping):
        return dict(reference)
    if isinstance(reference, (str, os.PathLike)):
        reference = read_document(reference, gold=True)
    return {s.id: tuple((f.id, f.text) for f in s.forms) for s in reference.sentences}


def implausible_sentences(source, expected: ReferenceForms, *, name: str) -> list[Problem]:
    """Sentences of a run file with more relations than :mod:`parseval.annotations.plausibility` allows for their
    forms (the corpus's, never the gold's: every sentence is checked alike). ``source`` is a path or a
    binary file; a file that does not parse has had its problems reported by :func:`validate_run`."""
    problems: list[Problem] = []
    try:
        for event, e in _iterparse(source):
            if event != "end" or e.tag != "E":
                continue
            sid = e.get("id")
            words = len(expected.get(sid, ())) or sum(1 for _ in e.iter("F"))
            counts = plausibility.easy_counts(r.get("type") or "" for r in e.iter("relation"))
            problems += plausibility.problems(words, counts, file=name, line=e.sourceline, sentence=sid, element="E")
            e.clear(keep_tail=False)
    except etree.XMLSyntaxError:
        pass
    return problems


def validate_run(
    run,
    reference,
    *,
    schema: EasySchema = DEFAULT_SCHEMA,
    max_problems: int | None = DEFAULT_MAX_PROBLEMS,
    warnings: list | None = None,
    name: str | None = None,
    index=None,
) -> list[Problem]:
    """Every problem of a run file against the corpus (or gold) ``reference``.

    ``run`` is a path / binary file (streamed, never held in memory) or a
    :class:`Document` (its read-time ``problems`` are included). Sentences
    of the reference that the run lacks are reported in ``warnings`` (they
    score as empty output). ``name`` is the file's name in messages
    (default: its base name). Returns ``[]`` when the run is valid.

    ``index`` (a path or file ``run`` only): an object that keeps the sentences as scoring reads them
    (:class:`parseval.evaluation.easy.run_index.DocumentIndexer`): every sentence is then built
    (``parts``) and given to ``index.sentence(sentence, warnings said so far)``, and the warnings of the
    report are those ``index.end(warnings said, info)`` returns. Problems are the same either way.
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
                sink.add(Problem(N_('unknown sentence id %(id)s: not in the corpus') % {"id": s.id}, file=file, line=s.line,
                                 sentence=s.id, element="E"))
                continue
            for p in compare_forms(s, forms, file):
                sink.add(p)
    else:
        file = name or source_name(run)
        ids: list[str] = []
        if index is None:
            for _ in iter_sentences(run, schema=schema, gold=False, problems=sink, warnings=warnings, name=file,
                                    want=lambda sid: False, expected_forms=expected, expected_complete=True,
                                    seen=ids):
                pass
        else:
            said: list[Problem] = []
            info: dict = {}
            for s in iter_sentences(run, schema=schema, gold=False, problems=sink, warnings=said, name=file,
                                    expected_forms=expected, expected_complete=True, seen=ids, info=info,
                                    parts=True):
                index.sentence(s, said)
            warnings.extend(index.end(said, info))
        seen = set(ids)
    missing = [sid for sid in expected if sid not in seen]
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        # Said so that it holds whether or not the run turns out valid (an invalid run is never scored).
        warnings.append(Problem(N_('%(n_missing)s sentence(s) of the corpus missing from the run (a valid run scores them as empty output): %(shown)s') % {"n_missing": len(missing), "shown": shown}, file=file))
    return sink.result()
