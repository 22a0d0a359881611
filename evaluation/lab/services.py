"""Creating an error-lab job from an organiser's upload, and shaping its result for the page.

The upload is checked completely before anything is kept (size, file type,
that the trees parse, that the label file is a valid set of roles); a refusal
is a :class:`LabRefused` whose message says which file and what is wrong, and
leaves no file and no row behind. The lab itself runs in
:func:`evaluation.lab.tasks.run_error_lab_job`.
"""
from __future__ import annotations

import logging
import secrets
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.db import transaction

from parseval.annotations.errors import InputError, N_
from parseval.annotations.trees.detect import read_trees
from parseval.evaluation.deps.errorlab import load_lab_labels, PRESETS, DEFAULT_PRESET, preset_for_labels
from campaign import audit, kinds
from campaign.rules import UploadRefused
from campaign.services.runs import _stage
from evaluation.lab.tasks import run_error_lab_job
from evaluation.models import ErrorLabJob
from evaluation.results.text import percent

logger = logging.getLogger(__name__)

TREEBANK_SUFFIXES = (".mrg", ".tree", ".txt", ".penn")
LABEL_SUFFIXES = (".json", ".toml")
MAX_PER_TYPE = 10_000
AUDIT_CREATE = "errorlab.create"
AUDIT_VIEW = "errorlab.view"


class LabRefused(Exception):
    """An error-lab upload that cannot be accepted; the message is for the organiser."""


def max_bytes() -> int:
    return int(getattr(settings, "PARSEVAL_ERROR_LAB_MAX_BYTES", 20 * 1024 * 1024))


def _check_name(uploaded, suffixes: tuple[str, ...], what: str) -> str:
    name = Path(uploaded.name or "").name
    if not name.lower().endswith(suffixes):
        raise LabRefused(f"{name!r}: a {what} must be a {' or '.join(suffixes)} file.")
    return name


def _read_trees(path: Path, name: str) -> int:
    try:
        trees = read_trees(path)
    except InputError as exc:
        raise LabRefused(_located(exc, name)) from None
    except UnicodeDecodeError as exc:
        raise LabRefused(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    if not trees:
        raise LabRefused(f"{name}: no tree found.")
    return len(trees)


def _located(exc: InputError, name: str) -> str:
    shown = []
    for p in exc.problems[:5]:
        p.file = name
        shown.append(str(p))
    more = len(exc.problems) - len(shown)
    return "; ".join(shown) + (f" (and {more} more)" if more > 0 else "")


def _check_labels(path: Path, name: str) -> None:
    renamed = path.with_name(f"labels{Path(name).suffix.lower()}")  # the loader reads the format from the suffix
    path.rename(renamed)
    try:
        load_lab_labels(str(renamed))
    except InputError as exc:
        raise LabRefused(_located(exc, name)) from None
    except UnicodeDecodeError:
        raise LabRefused(f"{name}: not UTF-8 text.") from None
    finally:
        renamed.rename(path)


def create_job(campaign, *, user, treebank_a, treebank_b=None, labels_file=None, preset: str = "penn",
               seed: int = 12345, per_type: int = 100, request=None) -> ErrorLabJob:
    """Check and store the upload, then queue the lab once committed."""
    if preset not in PRESETS:
        raise LabRefused(f"unknown label preset {preset!r}; choose one of {', '.join(PRESETS)}.")
    if not 1 <= per_type <= MAX_PER_TYPE:
        raise LabRefused(f"insertions per type must be between 1 and {MAX_PER_TYPE}.")
    uploads = [("treebank_a", treebank_a, TREEBANK_SUFFIXES, "treebank")]
    if treebank_b:
        uploads.append(("treebank_b", treebank_b, TREEBANK_SUFFIXES, "treebank"))
    if labels_file:
        uploads.append(("labels_file", labels_file, LABEL_SUFFIXES, "label roles file"))
    names = {field: _check_name(up, suffixes, what) for field, up, suffixes, what in uploads}
    if treebank_b and names["treebank_a"] == names["treebank_b"]:
        raise LabRefused("the two treebanks have the same file name; rename one so the table can tell them apart.")
    staged: dict[str, Path] = {}
    job = None
    try:
        sentences = {}
        for field, up, _, _ in uploads:
            try:
                staged[field] = _stage(up, max_bytes())[0]
            except UploadRefused as exc:
                raise LabRefused(str(exc)) from None
            if field == "labels_file":
                _check_labels(staged[field], names[field])
            else:
                sentences[names[field]] = _read_trees(staged[field], names[field])
        with transaction.atomic():
            job = ErrorLabJob(campaign=campaign, token=secrets.token_hex(8), created_by=user, parameters={
                "seed": seed, "per_type": per_type, "preset": preset,
                "treebanks": [names["treebank_a"]] + ([names["treebank_b"]] if treebank_b else []),
                "labels_file": names.get("labels_file", ""), "sentences": sentences,
            })
            for field, path in staged.items():
                with open(path, "rb") as fh:
                    getattr(job, field).save(names[field], File(fh), save=False)
            job.save()
            audit.record(AUDIT_CREATE, actor=user, campaign=campaign, target=f"error-lab job {job.pk}",
                         details=job.parameters, request=request)
            transaction.on_commit(lambda: enqueue(job.pk))
    except BaseException:
        if job is not None:
            for field in ("treebank_a", "treebank_b", "labels_file"):
                f = getattr(job, field)
                if f and f.name:
                    f.storage.delete(f.name)
        raise
    finally:
        for path in staged.values():
            path.unlink(missing_ok=True)
    return job


def enqueue(job_id: int) -> None:
    try:
        result = run_error_lab_job.delay(job_id)
    except Exception:
        logger.exception("error-lab job %s could not be queued", job_id)
        ErrorLabJob.objects.filter(pk=job_id, status=ErrorLabJob.Status.QUEUED).update(
            status_reason=N_("waiting for the task queue"))
        return
    ErrorLabJob.objects.filter(pk=job_id, task_id="").update(task_id=(result.id or "")[:64])


def job_status(job: ErrorLabJob) -> dict:
    return {"id": job.pk, "status": job.status, "status_display": job.get_status_display(),
            "status_reason": job.status_reason, "progress": job.progress, "step": job.step,
            "finished": job.finished}


# -- the page's tables ---------------------------------------------------------------

FIGURES = (("evalb_f", "evalb F"), ("leaf_ancestor", "Leaf-ancestor"), ("las", "LAS"), ("uas", "UAS"))


def comparison_table(result: dict) -> dict:
    """Rows error types (+ weighted, pooled), for each treebank its figures and the insertions made."""
    names = list(result["treebanks"])
    rows = []
    for row in result["comparison"]:
        t = row["type"]
        per_bank = []
        for name in names:
            bank = result["treebanks"][name]
            ins = bank["insertions"].get(t)
            figures = row.get(name)
            per_bank.append({
                "figures": [_shown(None if figures is None else figures.get(key)) for key, _ in FIGURES],
                "made": ins["made"] if ins else (figures or {}).get("insertions"),
                "status": ins["status"] if ins else "",
                "with_place": ins["sentences_with_place"] if ins else None,
            })
        rows.append({"type": t, "aggregate": t in ("weighted", "pooled"), "banks": per_bank})
    return {"names": names, "figures": [label for _, label in FIGURES], "rows": rows}


def _shown(value: float | None) -> dict:
    return {"value": value, "shown": percent(value)}


def chart_series(result: dict) -> tuple[list[str], list[tuple[str, list[tuple[str, list[float | None]]]]]]:
    """Per figure (evalb F, leaf-ancestor, LAS), per treebank, the value for every error type."""
    types = list(result["types"])
    per_figure = []
    for key, label in FIGURES[:3]:
        series = []
        for name in result["treebanks"]:
            values = []
            for row in result["comparison"]:
                if row["type"] in types:
                    cell = row.get(name)
                    values.append(None if cell is None else cell.get(key))
            series.append((name, values))
        per_figure.append((label, series))
    return types, per_figure


def default_preset(campaign) -> str:
    """The label preset for the campaign's gold trees (penn for a kind without trees or without gold)."""
    labels = kinds.for_campaign(campaign).gold_tree_labels(campaign)
    return preset_for_labels(labels) if labels else DEFAULT_PRESET
