"""A run's index (:mod:`parseval.evaluation.easy.run_index`): built by validation, read by scoring and the paired
tests' rows instead of the run's files.

Stored beside the run's file, through its storage, named by the file and the index's key (the run's SHA-256,
the schema, the scorer version, the CoNLL-U converter's version for a converted run, the index format), as
the gold's index is stored beside the gold (:mod:`.gold`). An index is a cache: one that is missing,
half written, damaged or of another key is not used, and the run's files are read as before
(:class:`~parseval.evaluation.easy.gold_index.IndexUnreadable`); one that cannot be stored leaves scoring
to read the files. Two deliveries of the same validation write the same bytes under the same name: the
second copy is deleted (:func:`.gold._store`).
"""
from __future__ import annotations

import logging

from parseval.annotations.easy import EasySchema
from parseval.evaluation.easy.gold_index import IndexUnreadable
from parseval.evaluation.easy.run_index import DocumentIndexer, IndexedRun, build_index, indexed_documents, run_index_key
from parseval.evaluation.version import SCORER_VERSION

from . import conllu as easy_conllu
from .gold import _store

logger = logging.getLogger(__name__)


def index_name(run, key: str) -> str:
    return f"{run.file.name}.{key[:16]}.index.npz"


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
