"""CoNLL-U runs of an EASY campaign: the organiser's option, conversion during validation, the EASY XML kept.

An EASY campaign whose scoring options say ``"run_formats": ["easy-xml", "conllu"]`` also takes runs of
UD parses, one ``<document>.conllu`` per corpus document whose sentences carry ``# sent_id = <EASY
sentence id>``. Validation converts them with :mod:`parseval.evaluation.ud2easy` against the corpus text the teams
downloaded (never the gold), so a parse that cannot be converted is a located problem of the same report
as any EASY XML problem, decided by the file and the corpus alone. The converted EASY XML of a valid run is
stored beside the upload (:attr:`Run.converted_file`) and is what scoring reads: nothing is converted after
validation, so no conversion can fail once the gold is involved. The converter's version goes into the
result's parameters and signature. See docs/conversion/ud-to-easy.md.
"""
from __future__ import annotations

import contextlib
import io
import logging
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator

from django.core.files.base import ContentFile

from parseval.annotations.conllu import parse_conllu
from parseval.annotations.easy import document_to_bytes
from parseval.annotations.easy.model import Document
from parseval.annotations.errors import InputError, Problem, N_
from campaign.services.archives import EASY, FileNames, remove_tree
from campaign.services.runs import staging_dir, unpacked
from campaign.stored_files import local_copy
from evaluation.pipeline import delivery
from parseval.evaluation.signature import extend_signature
from parseval.evaluation.ud2easy.convert import CONVERTER_VERSION, convert_document

logger = logging.getLogger(__name__)

RUN_FORMATS = ("easy-xml", "conllu")  # what Campaign.metrics["run_formats"] may list
DEFAULT_RUN_FORMATS = ("easy-xml",)
CONLLU = ".conllu"

# The run files of an EASY campaign that takes EASY XML only: a CoNLL-U file is refused saying why.
EASY_ONLY = FileNames(EASY, name=EASY.name, short=EASY.short, refusal=EASY.refusal, refused={
    CONLLU: N_("this campaign accepts EASY XML runs only, not CoNLL-U (.conllu) files; convert them with "
               "'python -m evaluation ud2easy' (docs/conversion/ud-to-easy.md) and upload the EASY .xml files, "
               "or ask the organisers to accept CoNLL-U runs.")})
EASY_OR_CONLLU = FileNames((".xml", CONLLU), name=N_("EASY .xml or CoNLL-U .conllu"), short=N_(".xml or .conllu"),
                           refusal=N_("not an .xml or .conllu file; the archive must hold only the EASY .xml "
                                      "files, or only the CoNLL-U .conllu files, one per corpus document."))
FILE_HELP = N_("One EASY .xml file or one CoNLL-U .conllu file, or a .zip or .tar.gz with one file per corpus "
               "document: all .xml, or all .conllu whose sentences carry '# sent_id = <EASY sentence id>'. "
               "CoNLL-U runs are converted to EASY XML during validation (%(converter)s).") % {
    "converter": CONVERTER_VERSION}


def check_run_formats(value) -> None:
    """Raise ValueError unless ``value`` (``Campaign.metrics["run_formats"]``) is a usable list."""
    if value is None:
        return
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value) \
            or not set(value) <= set(RUN_FORMATS):
        raise ValueError(f"run_formats must be a non-empty list drawn from {', '.join(RUN_FORMATS)} "
                         f"(default: {', '.join(DEFAULT_RUN_FORMATS)}).")
    if "easy-xml" not in value:
        raise ValueError("run_formats must include easy-xml: an EASY campaign always takes EASY XML runs.")


def run_formats(campaign) -> list[str]:
    return list((campaign.metrics or {}).get("run_formats") or DEFAULT_RUN_FORMATS)


def accepts_conllu(campaign) -> bool:
    return "conllu" in run_formats(campaign)


def run_suffixes(campaign, *, stored: bool = False) -> FileNames:
    """What an upload may hold; a stored run is read in either format (the option decides uploads only)."""
    return EASY_OR_CONLLU if stored or accepts_conllu(campaign) else EASY_ONLY


def is_conllu_run(files: dict[str, Path]) -> bool:
    """Whether the unpacked run is CoNLL-U (unpacked copies keep their suffix; a run is in one format)."""
    return any(path.name.lower().endswith(CONLLU) for path in files.values())


# -- validation: the conversion, against the corpus text ---------------------------------------

def convert_file(corpus: Document, path: Path, display: str) -> tuple[bytes | None, list[Problem]]:
    """The EASY XML of one CoNLL-U run file, or ``None`` and every problem found (located in ``display``)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, [Problem(N_('not UTF-8 text (%(reason)s at byte %(start)s)') % {"reason": exc.reason, "start": exc.start}, file=display)]
    try:
        parses = parse_conllu(text, file=display)
        document = convert_document(corpus, parses, parse_file=display)
    except InputError as exc:
        return None, list(exc.problems)
    except Exception as exc:  # a parse the converter cannot handle: the team's file, said as a problem
        logger.exception("%s: the converter failed", display)
        return None, [Problem(N_('the converter (%(converter_version)s) could not convert this file (%(name)s); check that every sentence is one tree') % {"converter_version": CONVERTER_VERSION, "name": type(exc).__name__}, file=display)]
    return document_to_bytes(document), []


def converted_name(run) -> str:
    return f"{run.sha256[:16]}.{CONVERTER_VERSION}.easy.zip"


# converted_name, as the storage may have saved it (another name when taken: "_" and seven characters before ".zip")
CONVERTED = re.compile(r"^(?P<sha>[0-9a-f]{16})\.(?P<converter>[A-Za-z0-9-]+)\.easy(?:_[A-Za-z0-9]{7})?\.zip$")


def store_converted(run, converted: dict[str, bytes]) -> None:
    """Keep the converted EASY XML (one ``<document>.xml`` per document, zipped) beside the upload.

    A later conversion (a re-score) replaces the file of the same converter version only: the upload
    itself is never touched. The file has the same name in every delivery of the run, so it is replaced
    under the run's lock and only by the delivery that holds the run (:func:`evaluation.pipeline.delivery.locked_run`):
    a stale one, taken over while paused, raises ``LostClaim`` before it deletes or writes anything."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(converted):
            zf.writestr(f"{name}.xml", converted[name])
    name = converted_name(run)
    with delivery.locked_run(run.pk) as locked:
        old = locked.converted_file.name
        if old and old.rsplit("/", 1)[-1] == name:
            locked.converted_file.storage.delete(old)
        locked.converted_file.save(name, ContentFile(buf.getvalue()), save=False)
        locked.converter = CONVERTER_VERSION
        locked.save(update_fields=["converted_file", "converter"])
    run.converted_file.name, run.converter = locked.converted_file.name, locked.converter


# -- scoring: the stored EASY XML ----------------------------------------------------------------

@contextlib.contextmanager
def converted_files(run, staging: Path, documents: set[str] | None = None) -> Iterator[dict[str, Path]]:
    """``{document name: EASY XML path}`` of the run's stored conversion, unpacked in a temporary folder
    (``documents``: only those, for a shard of the run)."""
    if not run.converted_file:
        # Validation stores it before a run is queued; without it the run was never found valid.
        raise RuntimeError(f"run {run.pk} is a CoNLL-U run without its converted EASY XML")
    tmp = Path(tempfile.mkdtemp(prefix="run-unpack-", dir=staging))
    try:
        files = {}
        with run.converted_file.open("rb") as fh, zipfile.ZipFile(fh) as zf:
            for k, info in enumerate(zf.infolist()):
                name = Path(info.filename).name
                if documents is not None and name.removesuffix(".xml") not in documents:
                    continue
                target = tmp / f"{k:05d}.xml"
                target.write_bytes(zf.read(info))
                files[name.removesuffix(".xml")] = target
        yield files
    finally:
        remove_tree(tmp)


@contextlib.contextmanager
def scored_files(run) -> Iterator[dict[str, Path]]:
    """The EASY XML files a run is scored on: the converted XML of a CoNLL-U run, the upload otherwise
    (what diagnostics and the paired tests read again)."""
    if run.converted_file:
        with converted_files(run, staging_dir()) as files:
            yield files
    else:
        with local_copy(run.file, sha256=run.sha256) as path, \
                unpacked(run.campaign, path, run.original_filename, stored=True) as files:
            yield files


def mark_converted(document: dict, converter: str) -> dict:
    """The result document of a converted run: its converter in the parameters and every signature."""
    document["parameters"] = {**document.get("parameters", {}), "converter": converter}
    document["signature"] = extend_signature(document["signature"], converter=converter)
    for key in ("cells", "macro"):
        for cell in document.get(key, []):
            if cell.get("signature"):
                cell["signature"] = extend_signature(cell["signature"], converter=converter)
    return document
