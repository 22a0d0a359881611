"""Validation of an EASY run (the hooks of :class:`~evaluation.kinds.documents.DocumentKind`'s loop): against
the corpus text, the same for sentences with and without gold."""
from __future__ import annotations

import io
from collections import OrderedDict
from pathlib import Path

from parseval.annotations.easy import EasySchema, read_document, reference_forms, validate_run
from parseval.annotations.easy.validate import implausible_sentences
from parseval.annotations.errors import Problem
from campaign.subsets import missing_document_message
from parseval.evaluation.deps import udvalidate

from ..documents import RunCheck
from . import conllu as easy_conllu, run_index


def begin(check: RunCheck) -> None:
    """A run is in one format: EASY XML, or CoNLL-U converted to it document by document."""
    conllu = easy_conllu.is_conllu_run(check.files)
    check.state.update(conllu=conllu, suffix=easy_conllu.CONLLU if conllu else ".xml", converted={},
                       ud_level=check.setup.context.get("ud_level") if conllu else None)


def check_document(check: RunCheck, doc, path: Path | None, cover: dict[str, set[str]] | None,
                   schema: EasySchema) -> int:
    """One corpus document's run file against the corpus text teams downloaded, never the gold, so no
    message, count or order depends on which sentences have gold. A CoNLL-U file is converted first
    (:mod:`.conllu`), against that same text; its problems are part of the report."""
    suffix = check.state["suffix"]
    if path is None:
        check.problems.append(Problem(missing_document_message(doc.name, cover), file=f"{doc.name}{suffix}"))
        return 0
    if check.state["conllu"]:  # converted against the corpus document itself
        with doc.text_file.open("rb") as text:
            corpus = read_document(text, gold=True, name=f"{doc.name}.xml")
        expected = reference_forms(corpus)
    else:
        expected = corpus_forms(doc)
    run_file = path
    if check.state["conllu"]:
        xml, found = easy_conllu.convert_file(corpus, path, f"{doc.name}{suffix}")
        check.problems.extend(found)
        if check.state["ud_level"]:  # the UD project's checks as well, when the organiser asks for them
            check.problems.extend(udvalidate.ud_problems(path, f"{doc.name}{suffix}", check.state["ud_level"],
                                                         check.run.campaign.language))
        if xml is not None:
            check.state["converted"][doc.name] = xml
            run_file = io.BytesIO(xml)
        else:
            run_file = None
    if run_file is not None:
        # named as the team named it: the unpacked copy has a temporary name; the sentences read are kept as
        # scoring reads them (the run's index, :mod:`.run_index`)
        indexer = run_index.indexer(check, doc.name, schema)
        found = validate_run(run_file, expected, schema=schema, warnings=check.warnings, name=f"{doc.name}.xml",
                             index=indexer)
        check.problems.extend(found)
        # A second pass over the file for the relations per sentence, unless the sentences just read show that
        # none has too many (in a file read without problems they hold every relation element): the same
        # problems, one pass fewer.
        if found or indexer.implausible(expected):
            check.problems.extend(implausible_sentences(
                io.BytesIO(check.state["converted"][doc.name]) if check.state["conllu"] else path, expected,
                name=f"{doc.name}.xml"))
        indexer.freeze()
    return len(expected)


# The corpus's forms, by corpus document, kept by the validation worker between runs: every run of a campaign is
# checked against the same text, which was parsed once per run and document. Keyed by the document and the
# SHA-256 of its text (a new import is a new document); at most CORPUS_WORDS_KEPT words are kept (about 150
# bytes a word), the least recently used document dropped first.
CORPUS_WORDS_KEPT = 400_000
_corpus_forms: OrderedDict = OrderedDict()


def corpus_forms(doc) -> dict:
    """``{sentence id: ((form id, text), ...)}`` of a corpus document, as :func:`reference_forms` reads them from its
    text file (read once per process while it stays among the recently used)."""
    key = (doc.pk, doc.sha256, doc.text_file.name)
    hit = _corpus_forms.get(key)
    if hit is not None:
        _corpus_forms.move_to_end(key)
        return hit[1]
    with doc.text_file.open("rb") as text:
        forms = reference_forms(read_document(text, gold=True, name=f"{doc.name}.xml"))
    words = sum(len(f) for f in forms.values())
    if doc.sha256 and words <= CORPUS_WORDS_KEPT:
        _corpus_forms[key] = (words, forms)
        while sum(w for w, _ in _corpus_forms.values()) > CORPUS_WORDS_KEPT:
            _corpus_forms.popitem(last=False)
    return forms


def end(check: RunCheck) -> None:
    """The EASY XML a valid CoNLL-U run was converted to is kept: scoring reads it. So is the run's index."""
    if check.state["conllu"] and not check.problems:
        easy_conllu.store_converted(check.run, check.state["converted"])
    if not check.problems:
        run_index.store(check, check.setup.context["schema"])


def report_fields(check: RunCheck, schema: EasySchema) -> dict:
    extra = {"format": "conllu", "converter": easy_conllu.CONVERTER_VERSION} if check.state["conllu"] else {}
    if check.state["ud_level"]:
        extra["ud_validation"] = {"level": check.state["ud_level"], "validator": udvalidate.validator_version()}
    return {**extra, "schema": schema.name}
