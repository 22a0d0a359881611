"""A run's index (:mod:`parseval.evaluation.easy.run_index`): built by validation, read by scoring and the paired
tests' rows instead of the run's files.

Stored beside the run's file, through its storage, named by the file and the index's key (the run's SHA-256,
the schema, the scorer version, the CoNLL-U converter's version for a converted run, the index format), as
the gold's index is stored beside the gold (:mod:`.gold`). An index is a cache: one that is missing,
half written, damaged or of another key is not used, and the run's files are read as before
(:class:`~parseval.evaluation.easy.gold_index.IndexUnreadable`); one that cannot be stored leaves scoring
to read the files. Two deliveries of the same validation write the same bytes under the same name: the
second copy is deleted (:func:`.gold._store`).

An index no scoring will read goes (:func:`remove`, :func:`sweep`; the kind's ``forget_run_files`` and
``sweep_stored`` hooks, which :mod:`evaluation.upkeep` calls): a withdrawn run's at once (a re-score validates
again, which stores it again), and by the hourly sweep those of runs withdrawn or deleted that are left, one
whose run file is no longer there, and one of another key (an older scorer or converter version, another
guide's schema).

The same walk deletes a CoNLL-U run's conversions that no run names any more (``<sha>.<converter>.easy.zip``
beside the upload, :func:`.conllu.converted_name`: one of an older converter version, replaced by a re-score's,
or a deleted run's), once it and the run's current conversion were both written more than the task time
limit ago: a fresh one may be about to be named by its validation, and a task that loaded the run before its
re-conversion may still read the old one.
"""
from __future__ import annotations

import logging
import posixpath
import re
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from parseval.annotations.easy import EasySchema
from parseval.evaluation.easy.gold_index import IndexUnreadable
from parseval.evaluation.easy.run_index import DocumentIndexer, IndexedRun, build_index, indexed_documents, run_index_key
from parseval.evaluation.version import SCORER_VERSION

from . import conllu as easy_conllu
from .gold import _store, written_before

logger = logging.getLogger(__name__)


def index_name(run, key: str) -> str:
    return f"{run.file.name}.{key[:16]}.index.npz"


# <run file>.<the key's first 16 hexadecimal digits>.index.npz (index_name)
STORED = re.compile(r"^(?P<file>.+)\.(?P<key>[0-9a-f]{16})\.index\.npz$")


def key_of(run, schema: EasySchema, converter: str = "") -> str:
    return run_index_key(run.sha256, schema, SCORER_VERSION, converter)


def indexer(check, name: str, schema: EasySchema) -> DocumentIndexer:
    """The indexer of one document of the run being validated (kept in ``check.state``)."""
    return check.state.setdefault("index", {}).setdefault(name, DocumentIndexer(schema, f"{name}.xml"))


def store(check, schema: EasySchema) -> None:
    """The index of a valid run, stored (nothing when a document could not be indexed)."""
    documents = check.state.get("index") or {}
    if not documents or not check.run.file.name:
        return
    key = key_of(check.run, schema, easy_conllu.CONVERTER_VERSION if check.state.get("conllu") else "")
    data = build_index(documents, schema, key)
    if data is None:
        logger.info("run %s: not indexed (a document the index cannot hold); scoring reads its files", check.run.pk)
        return
    _store(check.run.file.storage, index_name(check.run, key), data)


def load(run, schema: EasySchema, converter: str = "") -> IndexedRun | None:
    """The run's stored index, or None (missing, unreadable, of another key: the files are read instead)."""
    if not run.file.name:
        return None
    key = key_of(run, schema, converter)
    name = index_name(run, key)
    try:
        with run.file.storage.open(name, "rb") as fh:
            return IndexedRun(fh.read(), key)
    except FileNotFoundError:
        return None
    except (IndexUnreadable, OSError) as exc:
        logger.warning("run index %s not used: %s", name, exc)
        return None


def scored_documents(run, files: dict, schema: EasySchema, names, *, converter: str = "") -> dict:
    """``{document: the index's document or its path}`` for the documents ``names`` of ``files`` (scoring's
    run documents), from the run's index where it is stored."""
    return indexed_documents(load(run, schema, converter), files, [n for n in names if n in files])


def current_keys(run, schema: EasySchema) -> set[str]:
    """The keys, as in the files' names, of the indexes the run's scoring may read: that of its uploaded file
    and, for a run converted from CoNLL-U, that of its conversion's converter."""
    keys = {key_of(run, schema)[:16]}
    if run.converter:
        keys.add(key_of(run, schema, run.converter)[:16])
    return keys


def remove(storage, file_name: str, keep: set[str] = frozenset()) -> int:
    """Delete the indexes stored beside the run file ``file_name`` but those whose key is in ``keep``; how
    many. The run file itself is left alone."""
    folder, base = posixpath.split(file_name)
    try:
        _, names = storage.listdir(folder)
    except FileNotFoundError:  # the file system's answer for a folder that is gone (a bucket lists nothing)
        return 0
    removed = 0
    for name in names:
        found = STORED.match(name)
        if found and found["file"] == base and found["key"] not in keep:
            storage.delete(posixpath.join(folder, name))
            removed += 1
    return removed


def sweep(storage, runs: dict[str, tuple], root: str = "runs", *, now: datetime | None = None) -> dict:
    """Delete the indexes under ``root`` (the runs' folders, ``runs/<campaign>/<team>/``) that no scoring will
    read: ``runs`` is ``{run file name: (run, its campaign's schema)}`` of every run the database holds, the
    schema None for a campaign of another kind (nothing reads an index there) and False where it cannot be
    read (every key kept). An index is kept only beside a run file that is there, of a run not withdrawn,
    with one of its :func:`current_keys`. And the conversions no run names (the module's docstring). Counts
    of the indexes and conversions found and deleted, by reason."""
    outcome = {"indexes": 0, "orphaned": 0, "withdrawn": 0, "stale": 0, "conversions": 0, "superseded": 0}
    cutoff = (timezone.now() if now is None else now) - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    named: dict[tuple[str, str], list[str]] = {}  # (folder, the upload's 16 first digits): conversions named
    for run, _schema in runs.values():
        if run.converted_file.name:
            folder, base = posixpath.split(run.converted_file.name)
            named.setdefault((folder, base[:16]), []).append(run.converted_file.name)
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            subfolders, names = storage.listdir(folder)
        except FileNotFoundError:
            continue
        folders += [posixpath.join(folder, d) for d in subfolders if not d.startswith(".")]
        present = set(names)
        for name in names:
            if easy_conllu.CONVERTED.match(name):
                outcome["conversions"] += 1
                outcome["superseded"] += _sweep_conversion(storage, posixpath.join(folder, name), named, cutoff)
                continue
            found = STORED.match(name)
            if not found:
                continue
            outcome["indexes"] += 1
            file_name = posixpath.join(folder, found["file"])
            run, schema = runs.get(file_name, (None, None))
            if run is None or found["file"] not in present:
                reason = "orphaned"  # its run was deleted, or its file
            elif run.withdrawn_at is not None:
                reason = "withdrawn"
            elif schema is not False and (schema is None or found["key"] not in current_keys(run, schema)):
                reason = "stale"
            else:
                continue
            storage.delete(posixpath.join(folder, name))
            outcome[reason] += 1
    return outcome


def _sweep_conversion(storage, name: str, named: dict, cutoff: datetime) -> int:
    """Delete the conversion ``name`` if no run names it and it, and the conversions that runs of the same
    upload name now, were written before ``cutoff``; 1 if deleted."""
    folder, base = posixpath.split(name)
    current = named.get((folder, base[:16]), [])
    if name in current or not written_before(storage, name, cutoff):
        return 0
    if not all(written_before(storage, newer, cutoff) for newer in current):
        return 0  # re-converted lately: a task that loaded the run before may still read this one
    storage.delete(name)
    return 1


def sweep_stored(now: datetime | None = None) -> dict[str, int]:
    """:func:`sweep` over every run the database holds, each with its campaign's schema (None for a campaign of
    another kind: nothing reads an index there; False for a guide schema that cannot be read: every key kept)."""
    from campaign.models import Campaign, CampaignKind, Run

    from .options import campaign_schema

    schemas: dict[int, object] = {}
    for campaign in Campaign.objects.filter(kind=CampaignKind.EASY):
        try:
            schemas[campaign.pk] = campaign_schema(campaign)
        except ValueError:  # a malformed guide schema: which keys scoring reads cannot be told, keep them all
            schemas[campaign.pk] = False
    runs = {run.file.name: (run, schemas.get(run.campaign_id))
            for run in Run.objects.exclude(file="").only("pk", "file", "campaign_id", "withdrawn_at", "sha256",
                                                         "converter", "converted_file")}
    return sweep(Run._meta.get_field("file").storage, runs, now=now)
