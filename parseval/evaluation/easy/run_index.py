"""The scorer's index of one run: what scoring reads of a run's files, kept by validation, which reads them anyway.

Validation reads every sentence of a run against the corpus; scoring used to read the same files again to
count the sentences that have gold. Here validation builds each sentence as scoring reads it
(:class:`~parseval.annotations.easy.model.SentenceParts`: forms, groups, relations with their targets
resolved) and keeps it in a few flat arrays per document, with what the reader said of the file (its
warnings, each with the sentence it came with) and whether the file had groups and relations. Scoring then
loads the index (:class:`IndexedRun`) and replays the reading: the same sentences, the same warnings in the
same order, the same counts, without parsing the XML.

What scoring's reading depends on besides the file is replayed, not stored: which sentences have gold (a
repeated relation is warned about only in a sentence that has gold, so such warnings are stored apart and
said only there), and the gold's forms, checked against the stored ones; a document whose forms differ
from its gold's, or that the index lacks, is read from its file, which then reports what it reports.

The format is a NumPy ``.npz`` archive of integer and byte arrays (not compressed: compressing took more CPU
than the rest of the index), loaded with ``allow_pickle=False``, one group of members per document (read only
when its document is scored): ``meta`` holds a small JSON
document (format name, version, the key it was built for, the type names the integer codes refer to, per
document its name, layers and warnings); texts are UTF-8 joined with NUL, which XML cannot hold. An index
whose format, version or key is not the one expected, or that cannot be read whole, is
:class:`~parseval.evaluation.easy.gold_index.IndexUnreadable`: the caller then reads the files, so a stale
or half-written index costs time, never a result.

Form ids are not stored: a valid run numbers its forms ``<sentence>F1..Fk`` (validation checks them
against the corpus's, which the reader numbers so); a document whose forms are numbered otherwise is not
indexed.
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from parseval.annotations.easy.model import Sentence, SentenceParts
from parseval.annotations.easy.reader import warn_duplicates
from parseval.annotations.easy.schema import EasySchema
from parseval.annotations import plausibility
from parseval.annotations.errors import Problem

from .gold_index import IndexUnreadable, _joined, _split

INDEX_FORMAT = "easy-run-index"
INDEX_VERSION = 1
_ARRAYS = ("sids", "texts", "form_off", "g_off", "groups", "r_off", "r_type", "a_off", "args")
_POSITION = -2  # args[:, 1] of a target that is a form's position (a group's range has end > start >= 0)


def run_index_key(run_sha256: str, schema: EasySchema, scorer_version: str, converter: str = "") -> str:
    """What a run's index depends on: the uploaded file's bytes (their SHA-256), the schema it was read with,
    the scorer, the converter that made the EASY XML of a CoNLL-U run, and the index format."""
    h = hashlib.sha256()
    h.update(json.dumps([INDEX_FORMAT, INDEX_VERSION, scorer_version, run_sha256, converter, schema.to_dict()],
                        sort_keys=True).encode("utf-8"))
    return h.hexdigest()


class DocumentIndexer:
    """Builds one run document's index while validation reads it: given as ``index`` to
    :func:`parseval.annotations.easy.validate.validate_run`, which reads every sentence (``want`` all,
    ``parts``), passes each to :meth:`sentence` with the reader's warnings so far, and at the end takes
    the warnings of its report from :meth:`end` (those of the reading without a repeated relation's, which
    a run's reading says only for the sentences scored, as before)."""

    def __init__(self, schema: EasySchema, file: str):
        self.file = file
        self.gcode = {t: i for i, t in enumerate(schema.group_types)}
        self.rcode = {t: i for i, t in enumerate(schema.relation_types)}
        self.sids: list[str] = []
        self.texts: list[str] = []
        self.form_off, self.g_off, self.r_off, self.a_off = [0], [0], [0], [0]
        self.groups: list[tuple] = []
        self.r_type: list[int] = []
        self.args: list[tuple] = []
        self.warnings: list[list] = []  # [sentence position, only where scored, message, line, sentence, element]
        self.mark = 0
        self.usable = True
        self.layers: dict = {}
        self.frozen: dict[str, np.ndarray] | None = None

    def sentence(self, s, said: list) -> None:
        """One sentence as the reader built it (parts or a :class:`Sentence`); ``said``: the reader's warnings."""
        new = said[self.mark:]
        self.mark = len(said)
        repeated: list[Problem] = []
        if isinstance(s, Sentence) and len(s.relations) > 1:
            warn_duplicates(self.file, s, repeated)  # what the reader said last for this sentence
        k = len(repeated)
        if k and new[-k:] != repeated:
            self.usable = False
        pos = len(self.sids)
        for n, w in enumerate(new):
            self.warnings.append([pos, n >= len(new) - k if k else False, w.message, w.line, w.sentence, w.element])
        if not self.usable:
            return
        try:
            self._add(s)
        except (KeyError, ValueError):
            self.usable = False

    def _add(self, s) -> None:
        sid = s.id
        if "\x00" in sid:
            raise ValueError(sid)
        if isinstance(s, SentenceParts):  # the fast path's: forms numbered <sid>F1.. (it builds no other)
            forms, groups, relations = s.forms, s.groups, s.relations
        else:
            forms = tuple((f.id, f.text) for f in s.forms)
            for k, (fid, _) in enumerate(forms, 1):
                if fid != f"{sid}F{k}":
                    raise ValueError(fid)
            groups = [(g.start, g.end, g.type) for g in s.groups]
            where: dict = {f.id: i for i, f in enumerate(s.forms)}
            where.update((g.id, (g.start, g.end)) for g in s.groups)
            relations = [(r.type, tuple(where.get(t) for t in r.args.values())) for r in s.relations]
        texts = [text for _, text in forms]
        if any("\x00" in text for text in texts):
            raise ValueError(sid)
        self.sids.append(sid)
        self.texts += texts
        self.form_off.append(len(self.texts))
        gcode, rcode, args = self.gcode, self.rcode, self.args
        self.groups += [(start, end, gcode[gtype]) for start, end, gtype in groups]
        self.g_off.append(len(self.groups))
        for rtype, targets in relations:
            self.r_type.append(rcode[rtype])
            args += [(-1, -1) if t is None else (t, _POSITION) if t.__class__ is int else t for t in targets]
            self.a_off.append(len(args))
        self.r_off.append(len(self.r_type))

    def implausible(self, expected: dict) -> bool:
        """Whether a sentence may carry more relations than :mod:`parseval.annotations.plausibility` allows for
        its words (the corpus's, ``expected``): counted on the sentences built, which, in a file read without
        problems, hold every ``<relation>`` element of the file. True where they cannot tell (a sentence
        the index lacks): the file's own pass then says it, with its lines."""
        if not self.usable:
            return True
        r_off, r_type, relation_types = self.r_off, self.r_type, list(self.rcode)
        for i, sid in enumerate(self.sids):
            forms = expected.get(sid)
            if forms is None:
                return True
            types = [relation_types[t] for t in r_type[r_off[i]:r_off[i + 1]]]
            if len(types) > 4 and plausibility.excess(len(forms), plausibility.easy_counts(types)) is not None:
                return True
        return False

    def end(self, said: list, info: dict) -> list[Problem]:
        """The reading is over: its warnings for the report (a repeated relation's left out), and the file's
        layers (``info`` of the reading) kept."""
        pos = len(self.sids)
        for w in said[self.mark:]:
            self.warnings.append([pos, False, w.message, w.line, w.sentence, w.element])
        self.mark = len(said)
        self.layers = {"has_constituents": bool(info.get("has_constituents")),
                       "has_relations": bool(info.get("has_relations"))}
        if info.get("fatal"):
            self.usable = False
        return [Problem(message, file=self.file, line=line, sentence=sentence, element=element)
                for _, only_scored, message, line, sentence, element in self.warnings if not only_scored]

    def freeze(self) -> None:
        """The document is read: its lists become arrays (a large run's index is not held as Python objects)."""
        if self.frozen is None and self.usable:
            self.frozen = self.arrays()
        self.sids = self.texts = self.groups = self.r_type = self.args = []
        self.form_off = self.g_off = self.r_off = self.a_off = []

    def arrays(self) -> dict[str, np.ndarray]:
        if self.frozen is not None:
            return self.frozen
        return {
            "sids": _joined(self.sids),
            "texts": _joined(self.texts),
            "form_off": np.array(self.form_off, dtype=np.int64),
            "g_off": np.array(self.g_off, dtype=np.int64),
            "groups": np.array(self.groups, dtype=np.int32).reshape(-1, 3),
            "r_off": np.array(self.r_off, dtype=np.int64),
            "r_type": np.array(self.r_type, dtype=np.int16),
            "a_off": np.array(self.a_off, dtype=np.int64),
            "args": np.array(self.args, dtype=np.int32).reshape(-1, 2),
        }


def build_index(documents: dict[str, DocumentIndexer], schema: EasySchema, key: str) -> bytes | None:
    """The index of a run's documents (``{document name: its indexer}``), or None when one could not be indexed
    (its scoring then reads the files, as before)."""
    if not all(d.usable for d in documents.values()):
        return None
    members, docs = {}, []
    for i, (name, d) in enumerate(sorted(documents.items())):
        arrays = d.arrays()
        docs.append({"name": name, "sentences": int(arrays["form_off"].shape[0]) - 1, "warnings": d.warnings,
                     **d.layers})
        members.update({f"d{i}.{k}": v for k, v in arrays.items()})
    meta = {"format": INDEX_FORMAT, "version": INDEX_VERSION, "key": key,
            "group_types": list(schema.group_types), "relation_types": list(schema.relation_types),
            "documents": docs}
    out = io.BytesIO()
    np.savez(out, meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8), **members)
    return out.getvalue()


class IndexedRun:
    """A stored run index, read back: :meth:`document` gives one document's :class:`IndexedRunDocument`, its
    arrays decompressed only when scoring reads it."""

    def __init__(self, data: bytes, key: str):
        try:
            self._zip = np.load(io.BytesIO(data), allow_pickle=False)
            meta = json.loads(self._zip["meta"].tobytes().decode("utf-8"))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
            raise IndexUnreadable(f"unreadable run index: {exc}") from None
        if not isinstance(meta, dict) or (meta.get("format"), meta.get("version"), meta.get("key")) != (
                INDEX_FORMAT, INDEX_VERSION, key):
            raise IndexUnreadable("a run index of another format, version or run")
        self.meta = meta
        self.position = {d["name"]: i for i, d in enumerate(meta["documents"])}

    def names(self) -> list[str]:
        return list(self.position)

    def document(self, name: str, path) -> "IndexedRunDocument | None":
        """Document ``name``'s index, its file ``path`` kept for a fallback; None when it is not indexed."""
        i = self.position.get(name)
        if i is None:
            return None
        return IndexedRunDocument(self, i, path)

    def arrays(self, i: int) -> dict[str, np.ndarray]:
        try:
            return {k: self._zip[f"d{i}.{k}"] for k in _ARRAYS}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise IndexUnreadable(f"unreadable run index: {exc}") from None


class IndexedRunDocument:
    """One run document for scoring (:func:`parseval.evaluation.easy.scoring.score_corpus` takes it where it takes
    the document's path): its sentences from the run's index, or, where the index cannot stand for the file,
    the file at ``path``."""

    def __init__(self, run: IndexedRun, i: int, path):
        self.run, self.i, self.path = run, i, path
        self.doc = run.meta["documents"][i]
        self.name = Path(path).name if path is not None else f"{self.doc['name']}.xml"

    def read(self, expected: dict | None) -> "tuple[list[tuple], dict] | None":
        """``(sentences, layers)``: per sentence ``(id, parts, warnings said always, warnings said where scored)``
        in file order, the parts built only for the sentences of ``expected`` (``{sentence id: ((form id, text),
        ...)}``, the gold's: the only ones scoring may want); None when the file must be read instead: the index
        is unreadable, or a sentence's forms differ from the gold's, whose problems only the file's reading
        reports."""
        try:
            a = self.run.arrays(self.i)
            n = int(a["form_off"].shape[0]) - 1
            sids = _split(a["sids"], n)
            texts = _split(a["texts"], int(a["form_off"][-1]))
        except IndexUnreadable:
            return None
        gtypes, rtypes = self.run.meta["group_types"], self.run.meta["relation_types"]
        lists = {k: a[k].tolist() for k in ("form_off", "g_off", "groups", "r_off", "r_type", "a_off", "args")}
        form_off, g_off, groups = lists["form_off"], lists["g_off"], lists["groups"]
        r_off, r_type, a_off, args = lists["r_off"], lists["r_type"], lists["a_off"], lists["args"]
        said: list[tuple[list, list]] = [([], []) for _ in range(n + 1)]
        for pos, only_scored, message, line, sentence, element in self.doc["warnings"]:
            said[pos][1 if only_scored else 0].append((message, line, sentence, element))
        out = []
        for i, sid in enumerate(sids):
            exp = expected.get(sid) if expected is not None else None
            if exp is None:  # no gold: read, never scored (scoring wants the sentences of ``expected`` only)
                out.append((sid, None, said[i][0], said[i][1]))
                continue
            f0, f1 = form_off[i], form_off[i + 1]
            # the gold's forms, numbered <sid>F1.. as the index's are: the same texts, or the file is read
            if len(exp) != f1 - f0 or any(text != e[1] for text, e in zip(texts[f0:f1], exp)):
                return None
            forms = tuple(exp)
            gs = [(start, end, gtypes[t]) for start, end, t in groups[g_off[i]:g_off[i + 1]]]
            rels = [(rtypes[r_type[r]], tuple(_target(x) for x in args[a_off[r]:a_off[r + 1]]))
                    for r in range(r_off[i], r_off[i + 1])]
            out.append((sid, SentenceParts(sid, forms, gs, rels), said[i][0], said[i][1]))
        out.append((None, None, said[n][0], said[n][1]))
        return out, {"has_constituents": self.doc.get("has_constituents", False),
                     "has_relations": self.doc.get("has_relations", False)}


def _target(x: list):
    start, end = x
    if start < 0:
        return None
    return start if end == _POSITION else (start, end)


def replay(sentences: list[tuple], file: str, wanted, warnings, seen: list) -> Iterator[SentenceParts]:
    """The sentences of an indexed document that ``wanted(id)`` selects, as the reader yields them, its
    warnings said to ``warnings`` (as the reader says them: a repeated relation's only where wanted, all
    named ``file``) and every id to ``seen``."""
    for sid, parts, always, where_scored in sentences:
        scored = sid is not None and wanted(sid)
        for message, line, sentence, element in (always + where_scored if scored else always):
            warnings.append(Problem(message, file=file, line=line, sentence=sentence, element=element))
        if sid is None:
            continue
        seen.append(sid)
        if scored:
            yield parts


def indexed_documents(index: IndexedRun | None, files: dict, names: Iterable[str] | None = None) -> dict:
    """``{document: IndexedRunDocument or path}``: the run's files (``{document: path}``, as scoring takes them),
    each document the index holds given by its index."""
    out = {}
    for name in (files if names is None else names):
        path = files[name]
        doc = index.document(name, path) if index is not None else None
        out[name] = doc if doc is not None else path
    return out
