"""A sentence-per-line run's per-sentence rows counted again from files, as the platform counts them.

For ``python -m evaluation reproduce --gold DIR`` on a constituency or dependency run of a
publication bundle (:mod:`parseval.evaluation.trees.rescore`, :mod:`parseval.evaluation.deps.rescore` give the
reader and the scorer). The pairing is the platform's:

* a run file holds one sentence per corpus sentence of its document, in corpus order, and the
  run's ``rescoring`` in ``bundle.json`` lists each document's sentence ids in that order;
* the released gold holds, per document, the sentences of the test set and the development
  sample in corpus order, and its ``subsets.tsv`` lists their ids in the same order (a file whose
  sentences carry no id of their own, bracketed trees, is read through it);
* the rows are those of the sentences the bundle's rows name, every metric scored once over all
  of them in corpus order (evalb's error limit counts in that order), side by side.

Pure: files, the readers and the metrics only.
"""
from __future__ import annotations

import tarfile
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Mapping

import numpy as np

from parseval.annotations.errors import InputError

# read(path) -> [(unit, sentence id or None)]; score(metric, gold units, test units, parameters) -> (doc, rows)
Reader = Callable[[Path], list]
Scorer = Callable[[str, list, list, dict], tuple]
SUBSETS = "subsets.tsv"


def document_name(filename: str, suffixes: tuple[str, ...]) -> str:
    base = Path(filename).name
    for suffix in suffixes:
        if base.lower().endswith(suffix):
            return base[: -len(suffix)]
    return base


def listed_ids(gold_dir: Path) -> dict[str, list[str]]:
    """``{document: [sentence id]}`` in file order, from the released gold's ``subsets.tsv`` (none: empty)."""
    out: dict[str, list[str]] = {}
    for path in sorted(Path(gold_dir).rglob(SUBSETS)):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            cells = line.split("\t")
            if len(cells) >= 2:
                out.setdefault(cells[0], []).append(cells[1])
    return out


@contextmanager
def run_files(run_file: Path, suffixes: tuple[str, ...], documents: list[str]) -> Iterator[dict[str, Path]]:
    """``{document: path}`` of a run file as uploaded: one file (paired by name, or with the only document), or a
    .zip / .tar.gz of one file per document, unpacked in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="reproduce-run-") as tmp:
        folder, name = Path(tmp), run_file.name.lower()
        if name.endswith(".zip"):
            with zipfile.ZipFile(run_file) as archive:
                for info in archive.infolist():
                    if not info.is_dir() and info.filename.lower().endswith(suffixes):
                        (folder / Path(info.filename).name).write_bytes(archive.read(info))
        elif name.endswith((".tar.gz", ".tgz")):
            with tarfile.open(run_file, "r:gz") as archive:
                for member in archive.getmembers():
                    if member.isfile() and member.name.lower().endswith(suffixes):
                        (folder / Path(member.name).name).write_bytes(archive.extractfile(member).read())
        else:
            key = document_name(run_file.name, suffixes)
            yield {documents[0] if key not in documents and len(documents) == 1 else key: run_file}
            return
        yield {document_name(p.name, suffixes): p for p in sorted(folder.iterdir())}


def rescored_rows(gold_dir: Path, run_file: Path, keys: list[str], genres: list[str], spec: Mapping, *,
                  read: Reader, score: Scorer, suffixes: tuple[str, ...]) -> tuple[list[str], list[str], np.ndarray]:
    """The rows of the sentences ``keys`` (``document/sentence id``), counted from ``run_file`` and the gold in
    ``gold_dir`` with ``spec["parameters"]`` (its ``metrics`` side by side); ``spec["documents"]`` is
    ``[[document, [sentence ids in corpus order]]]`` of the corpus, in corpus order."""
    wanted: dict[str, set[str]] = {}
    genre_of: dict[str, str] = {}
    for key, genre in zip(keys, genres):
        document, _, sid = key.rpartition("/")
        wanted.setdefault(document, set()).add(sid)
        genre_of[key] = genre
    order = [(doc, sids) for doc, sids in spec["documents"] if doc in wanted]
    unknown = sorted(set(wanted) - {doc for doc, _ in order})
    if unknown:
        raise InputError(f"the bundle's rows name document(s) its run's corpus listing lacks: {', '.join(unknown[:5])}")
    gold_paths = {document_name(p.name, suffixes): p for p in sorted(Path(gold_dir).rglob("*"))
                  if p.is_file() and p.name.lower().endswith(suffixes)}
    listing = listed_ids(gold_dir)
    gold_units, test_units, where = [], [], []
    with run_files(run_file, suffixes, [doc for doc, _ in order]) as files:
        for doc, corpus_ids in order:
            if doc not in gold_paths:
                raise InputError(f"no gold file for document {doc} in {gold_dir}")
            read_gold = read(gold_paths[doc])
            ids = listing.get(doc) or [sid for _, sid in read_gold]
            if len(ids) != len(read_gold) or any(sid is None for sid in ids):
                raise InputError(f"{gold_paths[doc]}: its sentences cannot be named: {SUBSETS} (of the released gold) "
                                 f"lists {len(listing.get(doc, []))} for {len(read_gold)} sentences")
            gold_by_id = {sid: unit for (unit, _), sid in zip(read_gold, ids)}
            if doc not in files:
                raise InputError(f"the run's file holds no file for document {doc}")
            run_units = [unit for unit, _ in read(files[doc])]
            test_by_id = dict(zip(corpus_ids, run_units))
            for sid in corpus_ids:
                if sid not in wanted[doc]:
                    continue
                if sid not in gold_by_id or sid not in test_by_id:
                    raise InputError(f"sentence {doc}/{sid}: not in the {'gold' if sid not in gold_by_id else 'run'}")
                gold_units.append(gold_by_id[sid])
                test_units.append(test_by_id[sid])
                where.append(f"{doc}/{sid}")
    parts = []
    for metric in spec["parameters"]["metrics"]:
        _, rows = score(metric, gold_units, test_units, dict(spec["parameters"]))
        rows = np.asarray(rows, dtype=np.float64)
        if len(rows) < len(where):  # evalb stopped at its error limit: the sentences after it count for nothing
            rows = np.vstack([rows, np.zeros((len(where) - len(rows), rows.shape[1]))])
        parts.append(rows)
    return where, [genre_of[k] for k in where], np.hstack(parts) if parts else np.zeros((len(where), 0))
