"""The publication bundle's format: one zip archive that anyone can cite and recompute.

Written by the platform at publication (:mod:`evaluation.bundle.publication`) and read by
``python -m evaluation reproduce``, so this module is pure (no Django): it knows the members'
names, writes the archive byte for byte the same from the same members, and reads it back,
checking every member against the manifest.

Members (docs/bundle.md):

* ``MANIFEST.json``: the format, and the SHA-256 and size of every other member;
* ``bundle.json``: the campaign, the snapshot's checksum, scorer and converter versions, the
  gold checksums, and per run its stable name, signature, parameters, file checksum, the
  definition of its figures as functions of its rows (:func:`parseval.evaluation.figure_sets.from_recipe`),
  and where its rows and files are in the archive, or why they are not;
* ``results.json``: the published figures as the results pages serve them to anyone;
* ``rows/<run>.tsv``: the per-sentence rows of sufficient statistics (only after the gold release:
  their keys list the test sentences);
* ``runs/<run>/<file>``: the run's uploaded file, where the campaign publishes them;
* ``CITATION.cff`` (Citation File Format 1.2.0) and ``CITATION.bib``; ``README.md``.

Reproducible: members sorted by name, every entry stamped 1980-01-01 00:00 with mode 0644 and
the same compression, JSON with sorted keys, rows written in key order with the shortest exact
spelling of each number.

Streamed: a campaign's run files and rows can be GBs, so a member is either bytes or a
:class:`FileMember`, a file read once for its checksum and once to be copied into the archive in
chunks; the archive itself is written to a file (:func:`write_archive_to`). Deflate gives the same
stream however its input is cut, so the bytes are those of the whole member written at once.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Mapping

import numpy as np

from parseval.evaluation.deps.ud2tree import TREE_CONVERTER_VERSION
from parseval.evaluation.ud2easy.convert import CONVERTER_VERSION

FORMAT = "parseval-bundle/1"
MANIFEST = "MANIFEST.json"
BUNDLE = "bundle.json"
RESULTS = "results.json"
ROWS_DIR = "rows/"
RUNS_DIR = "runs/"
STAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip entry can carry
MODE = 0o100644
CHUNK = 1024 * 1024


def converter_versions() -> dict[str, str]:
    """The version of every converter a run may go through before scoring (UD to EASY, UD to trees), as a
    bundle records them beside the scorer's."""
    return {"ud2easy": CONVERTER_VERSION, "ud2tree": TREE_CONVERTER_VERSION}


class BundleError(Exception):
    """An archive that is not a readable bundle; the message is one line saying why."""


def json_bytes(data) -> bytes:
    """Deterministic, readable JSON: sorted keys, two-space indent, UTF-8, a final newline."""
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class FileMember:
    """A member copied from a file rather than held in memory: ``open()`` gives a binary file of its bytes,
    whose SHA-256 and size were read beforehand (:func:`file_member`, :func:`spooled`)."""

    open: Callable[[], BinaryIO]
    sha256: str
    size: int


def digest(fh: BinaryIO) -> tuple[str, int]:
    """The SHA-256 and size of what is left to read of ``fh``, read in chunks."""
    h, size = hashlib.sha256(), 0
    for chunk in iter(lambda: fh.read(CHUNK), b""):
        h.update(chunk)
        size += len(chunk)
    return h.hexdigest(), size


def file_member(opener: Callable[[], BinaryIO]) -> FileMember:
    """The member of the file ``opener`` opens (read once now for its checksum)."""
    with opener() as fh:
        checksum, size = digest(fh)
    return FileMember(opener, checksum, size)


class _Hashing(io.RawIOBase):
    """A file written through, counting and hashing what goes by."""

    def __init__(self, fh: BinaryIO):
        self.fh, self.hash, self.size = fh, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.hash.update(data)
        self.size += len(data)
        return self.fh.write(data)


def spooled(path: Path, write: Callable[[BinaryIO], None]) -> FileMember:
    """A member made by ``write(file)`` into ``path`` (a temporary file the caller removes), hashed as written."""
    with open(path, "wb") as fh:
        out = _Hashing(fh)
        write(out)
    return FileMember(lambda: open(path, "rb"), out.hash.hexdigest(), out.size)


def _listed(member: bytes | FileMember) -> dict:
    if isinstance(member, FileMember):
        return {"sha256": member.sha256, "bytes": member.size}
    return {"sha256": sha256(member), "bytes": len(member)}


def _entry(name: str, size: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, whatever system builds it, so that the mode below reads the same
    info.external_attr = MODE << 16
    info.file_size = size  # known beforehand, as writestr knows it: the same ZIP64 choice for a large member
    # writestr's compresslevel=9 for open(): the attribute lost its underscore in Python 3.13
    setattr(info, "compress_level" if hasattr(info, "compress_level") else "_compresslevel", 9)
    return info


def write_archive_to(out: BinaryIO, members: Mapping[str, bytes | FileMember]) -> None:
    """The zip of ``members`` and their manifest, written to ``out`` (seekable) one member at a time; the same
    members always give the same bytes. A file member that changed since it was hashed is a ``BundleError``."""
    if MANIFEST in members:
        raise ValueError(f"{MANIFEST} is written here, not given")
    manifest = {"format": FORMAT, "members": {name: _listed(member) for name, member in members.items()}}
    every = dict(members, **{MANIFEST: json_bytes(manifest)})
    with zipfile.ZipFile(out, "w") as archive:
        for name in sorted(every):
            member = every[name]
            if not isinstance(member, FileMember):
                with archive.open(_entry(name, len(member)), "w") as dest:
                    dest.write(member)
                continue
            with archive.open(_entry(name, member.size), "w") as dest, member.open() as src:
                copied = _Hashing(dest)
                shutil.copyfileobj(src, copied, CHUNK)
            if (copied.hash.hexdigest(), copied.size) != (member.sha256, member.size):
                raise BundleError(f"{name}: its file changed while the archive was written")


def write_archive(members: Mapping[str, bytes | FileMember]) -> bytes:
    """:func:`write_archive_to` in memory (small archives, tests)."""
    buffer = io.BytesIO()
    write_archive_to(buffer, members)
    return buffer.getvalue()


@dataclass
class Bundle:
    """An archive read and checked: ``members`` by name (manifest excluded), ``meta`` is ``bundle.json``."""

    members: dict[str, bytes]
    meta: dict
    results: dict
    manifest: dict = field(default_factory=dict)

    def json(self, name: str) -> dict:
        try:
            return json.loads(self.members[name].decode("utf-8"))
        except (KeyError, UnicodeDecodeError, ValueError) as exc:
            raise BundleError(f"{name}: not readable JSON ({exc})") from None


def read_archive(path) -> Bundle:
    """Read and check a bundle. :class:`BundleError` when it is not a zip, has no manifest, or a member
    is missing, extra, or differs from its manifest checksum."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if MANIFEST not in names:
                raise BundleError(f"{path}: no {MANIFEST} in the archive: not a publication bundle")
            data = {name: archive.read(name) for name in names if not name.endswith("/")}
    except zipfile.BadZipFile:
        raise BundleError(f"{path}: not a zip archive") from None
    except FileNotFoundError:
        raise BundleError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BundleError(f"{path}: is a folder, not a bundle archive") from None
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError) as exc:
        raise BundleError(f"{path}: unreadable archive ({exc})") from None
    try:
        manifest = json.loads(data.pop(MANIFEST).decode("utf-8"))
        listed = manifest["members"]
        assert isinstance(listed, dict)
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AssertionError):
        raise BundleError(f"{path}: {MANIFEST} is not a bundle manifest") from None
    if manifest.get("format") != FORMAT:
        raise BundleError(f"{path}: bundle format {manifest.get('format')!r}; this reader knows {FORMAT!r}")
    for name in sorted(set(listed) - set(data)):
        raise BundleError(f"{path}: member {name} is in the manifest but not in the archive")
    for name in sorted(set(data) - set(listed)):
        raise BundleError(f"{path}: member {name} is not in the manifest")
    for name in sorted(data):
        expected = listed[name].get("sha256") if isinstance(listed[name], dict) else None
        if sha256(data[name]) != expected:
            raise BundleError(f"{path}: member {name} does not match its checksum in the manifest")
    bundle = Bundle(data, {}, {}, manifest)
    for name in (BUNDLE, RESULTS):
        if name not in data:
            raise BundleError(f"{path}: no {name} in the archive")
    bundle.meta, bundle.results = bundle.json(BUNDLE), bundle.json(RESULTS)
    return bundle


# -- per-sentence rows ---------------------------------------------------------------------------

def _number(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def rows_tsv(keys, strata, rows) -> bytes:
    """Rows as tab-separated text: ``sentence`` (document/sentence id), ``genre``, then one column per
    row column (``c0``, ``c1``... in the order the run's figure definitions name them), in key order."""
    out = io.BytesIO()
    write_rows_tsv(out, keys, strata, rows)
    return out.getvalue()


def write_rows_tsv(out: BinaryIO, keys, strata, rows, *, lines_per_write: int = 10_000) -> None:
    """:func:`rows_tsv` written to ``out`` a few thousand lines at a time."""
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64)) if len(keys) else np.zeros((0, 0))
    width = rows.shape[1] if rows.size else 0
    lines = ["\t".join(["sentence", "genre", *(f"c{i}" for i in range(width))])]
    order = sorted(range(len(keys)), key=lambda i: str(keys[i]))
    for i in order:
        lines.append("\t".join([str(keys[i]), str(strata[i]), *(_number(v) for v in rows[i])]))
        if len(lines) >= lines_per_write:
            out.write(("\n".join(lines) + "\n").encode("utf-8"))
            lines = []
    if lines:
        out.write(("\n".join(lines) + "\n").encode("utf-8"))


def read_rows(name: str, data: bytes) -> tuple[list[str], list[str], np.ndarray]:
    """``(keys, genres, rows)`` of a rows member; BundleError when it is not one."""
    try:
        lines = data.decode("utf-8").splitlines()
        header = lines[0].split("\t")
        width = len(header) - 2
        if header[:2] != ["sentence", "genre"]:
            raise ValueError("the header is not sentence, genre, c0...")
        keys, genres, values = [], [], []
        for number, line in enumerate(lines[1:], 2):
            cells = line.split("\t")
            if len(cells) != width + 2:
                raise ValueError(f"line {number} has {len(cells)} columns, the header {width + 2}")
            keys.append(cells[0])
            genres.append(cells[1])
            values.append([float(v) for v in cells[2:]])
    except (UnicodeDecodeError, IndexError, ValueError) as exc:
        raise BundleError(f"{name}: not a rows table ({exc})") from None
    return keys, genres, np.asarray(values, dtype=np.float64).reshape(len(values), width)


# -- citation --------------------------------------------------------------------------------------

def _yaml_string(text: str) -> str:
    # A JSON string is a valid YAML double-quoted scalar.
    return json.dumps(text, ensure_ascii=False)


def citation_cff(meta: dict) -> str:
    """``CITATION.cff`` (Citation File Format 1.2.0) of the bundle described by ``meta``
    (title, authors, date, url, version, abstract, keywords)."""
    lines = ["cff-version: 1.2.0",
             f"message: {_yaml_string('If you use these results, please cite them as below.')}",
             "type: dataset",
             f"title: {_yaml_string(meta['title'])}",
             "authors:"]
    lines += [f"  - name: {_yaml_string(author)}" for author in meta["authors"]]
    lines.append(f"date-released: {_yaml_string(meta['date'])}")
    lines.append(f"version: {_yaml_string(meta['version'])}")
    if meta.get("url"):
        lines.append(f"url: {_yaml_string(meta['url'])}")
    if meta.get("abstract"):
        lines.append(f"abstract: {_yaml_string(meta['abstract'])}")
    if meta.get("keywords"):
        lines.append("keywords:")
        lines += [f"  - {_yaml_string(k)}" for k in meta["keywords"]]
    return "\n".join(lines) + "\n"


def _bibtex_text(text: str) -> str:
    out = text.replace("\\", "\\textbackslash{}")
    for char in "{}&%$#_":
        out = out.replace(char, "\\" + char)
    return out


def bibtex(meta: dict) -> str:
    """A BibTeX ``@misc`` entry of the same bundle."""
    year, month = meta["date"][:4], int(meta["date"][5:7])
    fields = [("title", "{" + _bibtex_text(meta["title"]) + "}"),
              ("author", " and ".join("{" + _bibtex_text(a) + "}" for a in meta["authors"])),
              ("year", year),
              ("month", ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")[month - 1]),
              ("version", _bibtex_text(meta["version"])),
              ("howpublished", "Publication bundle of an evaluation campaign"),
              ("note", "Figures, signatures and checksums; recompute with python -m evaluation reproduce")]
    if meta.get("url"):
        fields.append(("url", meta["url"]))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{meta['key']},\n{body}\n}}\n"
