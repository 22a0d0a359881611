"""The scorer's index of one gold file: what scoring reads of the gold, as a few flat arrays.

Scoring needs little of a gold sentence: its id, its forms' ids and texts
(run sentences are checked against them), its groups as ranges and its
relations with their arguments resolved to ranges (:class:`ReferenceView`),
and the file's warnings. Parsing the XML again for every run of a campaign
costs more than all of the counting; the index is built once from the parsed
file and read back in a few milliseconds.

The format is a NumPy ``.npz`` archive of integer and byte arrays, loaded
with ``allow_pickle=False``: nothing in it is ever executed. ``meta`` holds
a small JSON document (format name, version, the key it was built for, the
type names the integer codes refer to, the warnings); texts are UTF-8 joined
with NUL, which XML cannot hold. A file whose format, version or key is not
the one expected, or that cannot be read whole (a zip member's CRC, a
truncated archive), is :class:`IndexUnreadable`: the caller then reads the
XML, so a stale or half-written index costs time, never a result.

Form ids are not stored: a gold file that reads without problems numbers
its forms ``<sentence>F1..Fk`` (the reader refuses anything else).
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Iterable, Iterator

import numpy as np

from parseval.annotations.easy.model import Document
from parseval.annotations.easy.schema import EasySchema
from parseval.annotations.errors import Problem

from .ranges import ReferenceView

INDEX_FORMAT = "easy-gold-index"
INDEX_VERSION = 1
_SEP = "\x00"


class IndexUnreadable(Exception):
    """A stored index that cannot be used (another version or key, damaged, half written)."""


def index_key(gold_sha256: str, schema: EasySchema, scorer_version: str) -> str:
    """What an index depends on: the gold file's bytes, the schema it was read with, the scorer and the
    index format. A new gold import changes the first, so its index is never taken for the old one's."""
    h = hashlib.sha256()
    h.update(json.dumps([INDEX_FORMAT, INDEX_VERSION, scorer_version, gold_sha256, schema.to_dict()],
                        sort_keys=True).encode("utf-8"))
    return h.hexdigest()


class IndexedDocument:
    """One gold file's index (every sentence), or a view of it keeping some sentences (:meth:`restricted`)."""

    def __init__(self, name: str, arrays: dict[str, np.ndarray], meta: dict, keep: list[int] | None = None):
        self.name = name
        self.arrays = arrays
        self.meta = meta
        self.sids: list[str] = _split(arrays["sids"], int(arrays["form_off"].shape[0]) - 1)
        self.keep = keep  # sentence positions kept, in file order; None: every sentence

    # -- building and storing ------------------------------------------------------------------
    @classmethod
    def from_document(cls, doc: Document, schema: EasySchema, key: str = "") -> "IndexedDocument":
        """The index of a gold file read without problems (``read_document(..., gold=True)``)."""
        gtypes = list(schema.group_types)
        rtypes = list(schema.relation_types)
        gcode = {t: i for i, t in enumerate(gtypes)}
        rcode = {t: i for i, t in enumerate(rtypes)}
        form_off, texts = [0], []
        g_off, g_rows = [0], []
        r_off, r_type, a_off, a_rows = [0], [], [0], []
        groups_read, relations_read = [], []
        for s in doc.sentences:
            for k, f in enumerate(s.forms, 1):
                if f.id != f"{s.id}F{k}" or _SEP in f.text:
                    raise ValueError(f"form {f.id} of sentence {s.id} is not numbered in text order")
                texts.append(f.text)
            form_off.append(form_off[-1] + len(s.forms))
            ref = ReferenceView(s, schema.relation_roles)
            for g in s.groups:
                g_rows.append((g.start, g.end, gcode[g.type]))
            g_off.append(len(g_rows))
            # relations as the reference view resolves them: one entry per distinct (type, arguments)
            for rtype, items in ref.rels.items():
                for args in sorted(items, key=_order):
                    r_type.append(rcode[rtype])
                    a_rows.extend((-1, -1) if a is None else a for a in args)
                    a_off.append(len(a_rows))
            r_off.append(len(r_type))
            groups_read.append(len(s.groups))
            relations_read.append(len(s.relations))
        arrays = {
            "sids": _joined([s.id for s in doc.sentences]),
            "texts": _joined(texts),
            "form_off": np.array(form_off, dtype=np.int64),
            "g_off": np.array(g_off, dtype=np.int64),
            "groups": np.array(g_rows, dtype=np.int32).reshape(-1, 3),
            "r_off": np.array(r_off, dtype=np.int64),
            "r_type": np.array(r_type, dtype=np.int16),
            "a_off": np.array(a_off, dtype=np.int64),
            "args": np.array(a_rows, dtype=np.int32).reshape(-1, 2),
            "groups_read": np.array(groups_read, dtype=np.int32),
            "relations_read": np.array(relations_read, dtype=np.int32),
        }
        meta = {"format": INDEX_FORMAT, "version": INDEX_VERSION, "key": key, "name": doc.name,
                "group_types": gtypes, "relation_types": rtypes,
                "warnings": [w.as_dict() for w in doc.warnings]}
        return cls(doc.name, arrays, meta)

    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        np.savez_compressed(out, meta=np.frombuffer(json.dumps(self.meta).encode("utf-8"), dtype=np.uint8),
                            **self.arrays)
        return out.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, key: str) -> "IndexedDocument":
        """An index read back; :class:`IndexUnreadable` unless it is whole and built for ``key``."""
        arrays, meta = _load(data, key, _ARRAYS)
        return cls(meta["name"], arrays, meta)

    @staticmethod
    def sentence_ids_from_bytes(data: bytes, key: str) -> list[str]:
        """The sentence ids of a stored index, in file order, without reading (or decompressing) its other
        arrays: what is known of a gold file before its run comes. :class:`IndexUnreadable` as
        :meth:`from_bytes` (a damage elsewhere in the archive shows only when the whole index is read)."""
        arrays, _ = _load(data, key, ("sids", "form_off"))
        return _split(arrays["sids"], int(arrays["form_off"].shape[0]) - 1)

    # -- reading ---------------------------------------------------------------------------------
    def restricted(self, wanted: Iterable[str]) -> "IndexedDocument":
        """The same index keeping only the sentences in ``wanted`` (file order)."""
        wanted = set(wanted)
        return IndexedDocument(self.name, self.arrays, self.meta,
                               [i for i, sid in enumerate(self.sids) if sid in wanted])

    @property
    def positions(self) -> list[int]:
        return list(range(len(self.sids))) if self.keep is None else self.keep

    @property
    def sentence_ids(self) -> list[str]:
        return [self.sids[i] for i in self.positions]

    @property
    def whole(self) -> bool:
        return self.keep is None or len(self.keep) == len(self.sids)

    @property
    def warnings(self) -> list[Problem]:
        return [Problem(**w) for w in self.meta["warnings"]]

    def scoring_sentences(self) -> Iterator[tuple[str, ReferenceView, tuple, int, int]]:
        """Per kept sentence: ``(id, reference view, ((form id, text), ...), groups read, relations read)``."""
        a = {k: v.tolist() for k, v in self.arrays.items() if k not in ("sids", "texts")}
        texts = _split(self.arrays["texts"], a["form_off"][-1])
        gtypes, rtypes = self.meta["group_types"], self.meta["relation_types"]
        form_off, g_off, groups = a["form_off"], a["g_off"], a["groups"]
        r_off, r_type, a_off, args = a["r_off"], a["r_type"], a["a_off"], a["args"]
        for i in self.positions:
            sid = self.sids[i]
            f0, f1 = form_off[i], form_off[i + 1]
            prefix = sid + "F"
            forms = tuple((prefix + str(k), texts[j]) for k, j in enumerate(range(f0, f1), 1))
            gs = [(start, end, gtypes[t]) for start, end, t in groups[g_off[i]:g_off[i + 1]]]
            rels = [(rtypes[r_type[r]], tuple(None if x[0] < 0 else (x[0], x[1]) for x in args[a_off[r]:a_off[r + 1]]))
                    for r in range(r_off[i], r_off[i + 1])]
            yield sid, ReferenceView.from_parts(f1 - f0, gs, rels), forms, a["groups_read"][i], a["relations_read"][i]


_ARRAYS = ("sids", "texts", "form_off", "g_off", "groups", "r_off", "r_type", "a_off", "args", "groups_read",
           "relations_read")


def _load(data: bytes, key: str, names: Iterable[str]) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays ``names`` of a stored index and its meta; :class:`IndexUnreadable` unless they are there,
    readable, and of the format, version and ``key`` expected. An ``.npz`` member is read only when asked."""
    names = tuple(names)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {name: z[name] for name in ("meta", *names) if name in z.files}
        meta = json.loads(arrays.pop("meta").tobytes().decode("utf-8"))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise IndexUnreadable(f"unreadable index: {exc}") from None
    if not isinstance(meta, dict) or (meta.get("format"), meta.get("version"), meta.get("key")) != (
            INDEX_FORMAT, INDEX_VERSION, key):
        raise IndexUnreadable("an index of another format, version or gold")
    missing = set(names) - set(arrays)
    if missing:
        raise IndexUnreadable(f"an index without {', '.join(sorted(missing))}")
    return arrays, meta


def _order(args) -> list:
    return [(-1, -1) if a is None else a for a in args]


def _joined(items: list[str]) -> np.ndarray:
    return np.frombuffer(_SEP.join(items).encode("utf-8"), dtype=np.uint8)


def _split(blob: np.ndarray, n: int) -> list[str]:
    if n == 0:
        return []
    out = blob.tobytes().decode("utf-8").split(_SEP)
    if len(out) != n:
        raise IndexUnreadable("an index whose texts do not match its counts")
    return out
