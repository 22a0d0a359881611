"""Runs: upload, withdrawal, the files of a run, and queueing them for scoring.

An upload is checked completely before anything is kept: campaign rules,
size, file type, archive safety, document names, and that each file looks
like XML. A refused upload raises :class:`~campaign.rules.UploadRefused` with
a message for the team and leaves no file and no row behind. Full
validation against the corpus is the worker's job (``evaluation.pipeline.tasks``).
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Iterator

from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _, gettext_lazy, gettext_noop

from campaign import audit, kinds
from config import outages
from config.storage import store_faults
from config.unavailable import TemporarilyUnavailable
from campaign.models import Campaign, Run, RunStatus, Team
from campaign.tracks import resolve_track
from campaign.rules import UploadRefused, WithdrawalRefused, check_upload_allowed, check_withdrawal_allowed
from campaign.visibility import can_see_run_scoring_time, can_see_scoring_state, is_member

from .archives import ArchiveRefused, Limits, kind_of, remove_tree, unpack

logger = logging.getLogger(__name__)
CHUNK = 1024 * 1024


def upload_limit(campaign: Campaign) -> int:
    return min(campaign.max_upload_bytes, settings.PARSEVAL_MAX_UPLOAD_BYTES)


def archive_limits() -> Limits:
    return Limits(max_unpacked_bytes=settings.PARSEVAL_MAX_UNPACKED_BYTES)


def staging_dir() -> Path:
    path = Path(settings.FILE_UPLOAD_TEMP_DIR or Path(settings.MEDIA_ROOT) / ".staging")
    path.mkdir(parents=True, exist_ok=True)
    return path


class _StagedFile(File):
    """A file already on disk: FileSystemStorage moves it instead of copying."""

    def __init__(self, path: Path, name: str):
        super().__init__(open(path, "rb"), name=name)
        self._path = path

    def temporary_file_path(self) -> str:
        return str(self._path)


def _stage(uploaded, limit: int) -> tuple[Path, str, int]:
    """Copy the upload to a staging file in chunks, hashing as it goes."""
    digest = hashlib.sha256()
    size = 0
    fd, name = tempfile.mkstemp(prefix="run-", suffix=".upload", dir=staging_dir())
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in uploaded.chunks(CHUNK):
                size += len(chunk)
                if size > limit:
                    raise UploadRefused(_too_big(uploaded.name, limit))
                digest.update(chunk)
                out.write(chunk)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path, digest.hexdigest(), size


def _too_big(filename: str, limit: int) -> str:
    return _("%(file)r is larger than the campaign's limit of %(limit)s bytes; refused.") % {
        "file": filename, "limit": f"{limit:,}"}


def run_suffixes(campaign: Campaign, *, stored: bool = False) -> tuple[str, ...]:
    """The file suffixes of a run's documents, by the campaign's kind and its options.

    ``stored``: those of a run already accepted, which the worker reads whatever the campaign's options
    have become since (an EASY campaign that stops taking CoNLL-U still scores the CoNLL-U runs it took).
    """
    return kinds.for_campaign(campaign).run_suffixes(campaign, stored=stored)


def match_documents(campaign: Campaign, filename: str, files: dict[str, Path], *,
                    suffixes: tuple[str, ...] | None = None, kind=None, accepted: bool = False) -> dict[str, Path]:
    """Pair the files of a run with the corpus documents, by name.

    A single document file of a one-document corpus stands for that document,
    whatever its name. Any other name that is not a document is refused, and
    so is a run mixing two formats its kind accepts (:meth:`Kind.run_file_format`,
    e.g. EASY XML and CoNLL-U); each file must pass the kind's look at its content
    (:meth:`Kind.run_file_problem`). ``accepted``: a stored run, which passed those two at upload and is
    only paired again. ``suffixes``, ``kind``: the campaign's, when the caller has them.
    """
    kind = kind or kinds.for_campaign(campaign)
    suffixes = suffixes or kind.run_suffixes(campaign)
    single = kind_of(filename, suffixes) == "xml"  # archives' word for "one document file", whatever its suffix
    # Unpacked copies keep the suffix they were accepted by (see .archives); a single file is named by the team.
    names_of = {doc: filename if single else path.name for doc, path in files.items()}
    names = list(campaign.documents.values_list("name", flat=True))
    if single and len(names) == 1:
        return {names[0]: next(iter(files.values()))}
    unknown = sorted(set(files) - set(names))
    if accepted and not unknown:
        return files
    first = kind.run_file_format(suffixes[0])
    main = [doc for doc, name in names_of.items() if kind.run_file_format(name) == first]
    if main and len(main) < len(files):
        other = sorted(set(files) - set(main))[0]
        raise UploadRefused(_("%(file)r mixes formats (%(one)s and %(other)s); a run is in one format: give every "
                              "document in the same one.") % {
            "file": filename, "one": f"{main[0]}{_suffix_of(names_of[main[0]], suffixes)}",
            "other": f"{other}{_suffix_of(names_of[other], suffixes)}"})
    run_format = first if main else kind.run_file_format(next(iter(names_of.values()), suffixes[0]))
    # how messages name a document's file: the first suffix of the run's format
    suffix = next((s for s in suffixes if kind.run_file_format(s) == run_format), suffixes[0])
    if unknown:
        shown = ", ".join(f"{n}{suffix}" for n in unknown[:10]) + (" ..." if len(unknown) > 10 else "")
        expected = ", ".join(f"{n}{suffix}" for n in names[:10]) + (" ..." if len(names) > 10 else "")
        raise UploadRefused(
            _("%(file)r: unknown document name(s) %(shown)s; the corpus documents are %(expected)s. "
              "Name each file after the corpus document it annotates.") % {
                "file": filename, "shown": shown, "expected": expected}
        )
    for doc, path in files.items():
        problem = kind.run_file_problem(path, f"{doc}{suffix}")
        if problem:
            raise UploadRefused(_("%(document)s in %(file)r %(problem)s; refused.") % {
                "document": f"{doc}{suffix}", "file": filename, "problem": problem})
    return files


def _suffix_of(name: str, suffixes: tuple[str, ...]) -> str:
    """The accepted suffix a run file was taken under."""
    lower = name.lower()
    return next((s for s in suffixes if lower.endswith(s)), suffixes[0])


@contextlib.contextmanager
def unpacked(campaign: Campaign, path: Path, filename: str, *, stored: bool = False,
             suffixes: tuple[str, ...] | None = None, kind=None,
             documents: set[str] | None = None) -> Iterator[dict[str, Path]]:
    """``{document name: path}`` of a run file, in a temporary directory removed afterwards
    (``stored``: a run already accepted, see :func:`run_suffixes`; ``suffixes`` and ``kind``: those of the
    campaign, when the caller has them already, as the worker does; ``documents``: of a stored run's
    archive, only the files of these documents, see :func:`.archives.unpack`)."""
    tmp = Path(tempfile.mkdtemp(prefix="run-unpack-", dir=staging_dir()))
    suffixes = suffixes or run_suffixes(campaign, stored=stored)
    try:
        try:
            files = unpack(path, filename, tmp, archive_limits(), suffixes, documents)
        except ArchiveRefused as exc:
            raise UploadRefused(str(exc)) from None
        yield match_documents(campaign, filename, files, suffixes=suffixes, kind=kind, accepted=stored)
    finally:
        remove_tree(tmp)


def upload_run(
    *,
    campaign: Campaign,
    team: Team,
    user,
    name: str,
    uploaded_file,
    system_description: str = "",
    scope: str = Run.Scope.TEST,
    track: str = "",
    request=None,
) -> Run:
    """Check and store an uploaded run, then queue it for scoring once committed.

    ``track``: for a dependency campaign, ``"gold-tokens"`` or ``"raw-text"`` (:mod:`campaign.tracks`);
    empty for the campaign's first accepted track. A track the campaign does not accept is refused.
    """
    check_upload_allowed(campaign, team, scope=scope)
    try:
        track = resolve_track(campaign, track)
    except ValueError as exc:
        raise UploadRefused(str(exc)) from None
    limit = upload_limit(campaign)
    filename = os.path.basename(uploaded_file.name or f"run{run_suffixes(campaign)[0]}")
    if uploaded_file.size is not None and uploaded_file.size > limit:
        raise UploadRefused(_too_big(filename, limit))
    try:
        kind_of(filename, run_suffixes(campaign))
    except ArchiveRefused as exc:
        raise UploadRefused(str(exc)) from None

    try:
        staged, sha256, size = _stage(uploaded_file, limit)
    except OSError as exc:  # _stage removed what it had written
        raise _unavailable(exc) from exc
    run = None
    try:
        with unpacked(campaign, staged, filename) as files:
            documents = sorted(files)
        with transaction.atomic():
            # Again, now holding the campaign row: the run set may have frozen while the file was staged.
            check_upload_allowed(campaign, team, scope=scope)
            run = Run(campaign=campaign, team=team, uploaded_by=user, name=name,
                      system_description=system_description, scope=scope, track=track, original_filename=filename,
                      sha256=sha256, size=size, status=RunStatus.UPLOADED,
                      dispatch_pending=True)  # the outbox mark: committed with the run, cleared once queued
            staged_file = _StagedFile(staged, filename)
            try:
                run.file.save(filename, staged_file, save=False)
            finally:
                staged_file.close()
            run.save()
            outages.up(outages.FILE_SYSTEM)  # staged and stored: the end of an outage of either, if there was one
            outages.up(outages.STORE)
            audit.record("run.upload", actor=user, campaign=campaign, target=f"run {run.pk}",
                         details={"sha256": sha256, "size": size, "filename": filename, "team": team.slug,
                                  "scope": scope, "track": track, "documents": len(documents)}, request=request)
            transaction.on_commit(lambda: enqueue_scoring(run.pk))
    except BaseException as exc:
        if run is not None and run.file.name:
            run.file.storage.delete(run.file.name)
        if isinstance(exc, (OSError, *store_faults())):  # staging, storage: a fault of the system; nothing is kept
            raise _unavailable(exc) from exc
        raise
    finally:
        with contextlib.suppress(OSError):  # left behind, the recovery sweep removes it with the stale staging
            staged.unlink(missing_ok=True)
    return run


def _unavailable(exc: OSError) -> TemporarilyUnavailable:
    logger.error("upload not kept: %s: %s", type(exc).__name__, exc)
    return TemporarilyUnavailable("the upload could not be stored (a fault on the server); nothing was kept, "
                                  "send it again shortly")


NO_TEAM_MESSAGE = gettext_lazy("Join or create a team of this campaign before uploading a run.")


def upload_run_from(data, *, campaign: Campaign, team: Team, user, request=None) -> Run:
    """:func:`upload_run` with the checked fields of the portal's upload form or the API's upload serializer."""
    return upload_run(campaign=campaign, team=team, user=user, name=data["name"],
                      system_description=data["system_description"], scope=data["scope"],
                      track=data.get("track") or "", uploaded_file=data["file"], request=request)


def next_task(run: Run) -> str:
    """The task that takes the run on from its status: validation, or the scoring of a valid test run. The
    consensus pseudo-run (a run of the system team) is validated by a task of the scoring queue: it is built when
    a test run is scored, so its validation on the validation queue would start at a time scoring sets."""
    if run.scope == Run.Scope.TEST and run.status in (RunStatus.QUEUED, RunStatus.SCORING):
        return kinds.SCORE_RUN_TASK
    if run.team.system:
        return kinds.VALIDATE_CONSENSUS_TASK
    return kinds.VALIDATE_RUN_TASK  # a development check is validated and scored by one task


def enqueue_scoring(run_id: int) -> bool:
    """Queue the run's next step; whether it was queued. The run's outbox mark stays set until it is."""
    run = Run.objects.filter(pk=run_id).select_related("team").only("pk", "scope", "status", "team__system").first()
    if run is None:
        return False
    try:
        result = kinds.enqueue(next_task(run), run_id)
    except Exception:
        # The upload is committed and its receipt given: never turn this into an error page.
        # In process (eager), the task has recorded any failure on the run; with a broker
        # that is away, the run keeps its outbox mark and the recovery sweep queues it later.
        logger.warning("run %s: scoring could not be queued; it will be retried", run_id, exc_info=True)
        Run.objects.filter(pk=run_id, status=RunStatus.UPLOADED).update(
            status_reason=gettext_noop("waiting for the scoring queue; it will be queued as soon as it is back"))
        return False
    # The console matches runs with queue entries by this id (in eager mode the task has already run).
    Run.objects.filter(pk=run_id, task_id="").update(task_id=(result.id or "")[:64])
    Run.objects.filter(pk=run_id).update(dispatch_pending=False, dispatched_at=timezone.now())
    return True


def withdraw_run(run: Run, *, user, request=None) -> Run:
    """Withdraw before the deadline (raises :class:`~campaign.rules.WithdrawalRefused` otherwise)."""
    if not is_member(user, run.team):
        raise WithdrawalRefused(_("Only a member of the team can withdraw its run; organisers disqualify runs "
                                  "instead."))
    with transaction.atomic():
        check_withdrawal_allowed(run)
        run.withdrawn_at = timezone.now()
        run.save(update_fields=["withdrawn_at"])
        audit.record("run.withdraw", actor=user, campaign=run.campaign, target=f"run {run.pk}",
                     details={"team": run.team.slug, "sha256": run.sha256}, request=request)
        kinds.consensus_changed(run.campaign_id)  # a withdrawn run is never combined
        kinds.run_withdrawn(run.pk)
    return run


def record_run_download(run: Run, *, user, request=None, converted: bool = False) -> None:
    details = {"sha256": run.sha256}
    if converted:  # the EASY XML a CoNLL-U run was converted to, not the file the team sent
        details.update(converted=run.converter)
    audit.record("run.download", actor=user, campaign=run.campaign, target=f"run {run.pk}", details=details,
                 request=request)


def converted_download_name(run: Run) -> str:
    """What the download of a run's converted EASY XML is called: the upload's name, ``-easy.zip``."""
    stem = run.original_filename
    for suffix in (".tar.gz", ".tgz", ".zip", ".conllu"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return f"{stem or 'run'}-easy.zip"


# What a team sees of a test-scope run before release: nothing after validation but "accepted".
ACCEPTED, ACCEPTED_DISPLAY = "accepted", "Accepted for scoring"
SEALED_DISPLAY = {RunStatus.UPLOADED: "Received"}
SEALED_TIMESTAMPS = ("checked_at",)
# Why a status field is left out, said in the answer itself (``sealed``) and not only in the docs: a client
# that finds no ``status_changed_at`` must not take it for a bug or a run that never moved.
SEALED_STATUS_TIME = gettext_lazy(
    "status_changed_at is left out: when a test run was queued, scored or failed is not shown to teams until "
    "the gold is released, since how long scoring took tells how many of its sentences are test sentences "
    "(docs/governance.md); uploaded_at is the upload's time")


def run_status(run: Run, user) -> dict:
    """What the run page polls: status, progress, and whether it is finished, as ``user`` may see them.

    Before release, a team sees of its test-scope run only what the run file and the corpus decide
    (:func:`~campaign.visibility.can_see_scoring_state`): a run that passed validation is *accepted* from
    then on, whether it is queued, being scored, scored or failed, with no time after its upload. A time
    the viewer may not see is left out (no ``status_changed_at`` key), never sent as an always-null field:
    whether it is there depends on the campaign, the run's scope and the viewer only."""
    if can_see_scoring_state(user, run):
        shown = {
            "id": run.pk,
            "status": run.status,
            "status_display": run.get_status_display(),
            "status_reason": run.status_reason,
            "progress": run.progress,
            "withdrawn": run.withdrawn_at is not None,
            "finished": run.status in (RunStatus.INVALID, RunStatus.SCORED, RunStatus.FAILED),
        }
        # from `released` a team sees that its run is scored, but not when (see can_see_scoring_times):
        # a sealed time is left out, not sent as null
        if can_see_run_scoring_time(user, run):
            shown["status_changed_at"] = run.status_changed_at.isoformat()
        else:
            shown["sealed"] = {"status_changed_at": str(SEALED_STATUS_TIME)}
        return shown
    valid = bool((run.validation_report or {}).get("valid"))
    if run.status in (RunStatus.QUEUED, RunStatus.SCORING, RunStatus.SCORED) or \
            (run.status == RunStatus.FAILED and valid):
        status, display, reason, progress = ACCEPTED, ACCEPTED_DISPLAY, "", 100
    else:  # received, validating, invalid, or failed before validation ended: the file's own fate
        status, reason, progress = run.status, run.status_reason, run.progress
        display = SEALED_DISPLAY.get(run.status) or run.get_status_display()
    return {
        "id": run.pk,
        "status": status,
        "status_display": display,
        "status_reason": reason,
        "progress": progress,
        # no "status_changed_at": the time is sealed, so the field is left out rather than always null
        "sealed": {"status_changed_at": str(SEALED_STATUS_TIME)},
        "withdrawn": run.withdrawn_at is not None,
        "finished": status in (RunStatus.INVALID, ACCEPTED, RunStatus.FAILED),
    }


def validation_report_for(run: Run, user) -> dict:
    """The run's validation report, without the time it was made where the scoring state is hidden."""
    report = run.validation_report or {}
    if can_see_scoring_state(user, run):
        return report
    return {k: v for k, v in report.items() if k not in SEALED_TIMESTAMPS}
