"""Safe reading of uploaded run files: one XML file, a zip, or a tar.gz.

An archive comes from outside, so nothing in it is trusted: member names
(path traversal, absolute paths), member kinds (symlinks, devices,
directories of archives), declared and actual unpacked sizes (zip bombs) and
the compression ratio are all checked before a byte lands where the worker
reads it. Every refusal is an :class:`ArchiveRefused` whose message says
which member and what is wrong.
"""
from __future__ import annotations

import shutil
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.utils.translation import gettext as _

from parseval.annotations.errors import N_
from campaign.problem_texts import translated

CHUNK = 1024 * 1024
# A real XML parse output compresses about 10-20 times; 200 leaves room and
# still stops the classic bombs (which reach 1000 and more).
MAX_COMPRESSION_RATIO = 200
MAX_MEMBERS = 10_000
NESTED_SUFFIXES = (".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".rar", ".zst")


class ArchiveRefused(Exception):
    """An upload that cannot be accepted; the message is for the team."""


@dataclass(frozen=True)
class Limits:
    max_unpacked_bytes: int
    max_ratio: int = MAX_COMPRESSION_RATIO


class FileNames(tuple):
    """A kind's file suffixes (a tuple, as ``str.endswith`` takes them) and how messages name its files.

    ``name`` names one file ("EASY .xml"; default: the suffixes joined by "or"), ``short`` names them
    in passing (".xml"; default: ``name``), ``refusal`` says why an archive member is refused.
    """

    def __new__(cls, suffixes, *, name: str = "", short: str = "", refusal: str = "",
                refused: dict[str, str] | None = None):
        self = super().__new__(cls, tuple(suffixes))
        self.name = name or " or ".join(self)
        self.short = short or self.name
        self.refusal = refusal  # "" for the default, written in the reader's language when shown (refused_member)
        # Suffixes of a format this campaign could accept but does not: why, in the campaign's words.
        self.refused = dict(refused or {})
        return self

    def refused_because(self, name: str) -> str:
        """Why a file of a known but not accepted format is refused ("" if that is not the case)."""
        lower = name.lower()
        return next((translated(why) for suffix, why in self.refused.items() if lower.endswith(suffix)), "")

    def refused_member(self) -> str:
        """Why an archive member of another format is refused, in the reader's language."""
        if self.refusal:
            return translated(self.refusal)
        return _("not a %(name)s file; the archive must hold only those.") % {"name": translated(self.name)}

    def shown(self) -> tuple[str, str]:
        """``name`` and ``short`` in the reader's language (a kind's names may say "or")."""
        return translated(self.name), translated(self.short)


# The default of these functions (an EASY campaign's kind gives the same).
EASY = FileNames((".xml",), name="EASY .xml", short=".xml",
                 refusal=N_("not an .xml file; the archive must hold only the EASY .xml files."))


def _names(suffixes) -> FileNames:
    return suffixes if isinstance(suffixes, FileNames) else FileNames(suffixes)


def kind_of(filename: str, suffixes: tuple[str, ...] = EASY) -> str:
    """``xml`` (a single document file, whatever the campaign kind's suffix), ``zip`` or ``tar``,
    from the name the team gave the file."""
    lower = filename.lower()
    if lower.endswith(suffixes):
        return "xml"
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz")):
        return "tar"
    names = _names(suffixes)
    if names.refused_because(filename):
        raise ArchiveRefused(f"{filename!r}: {names.refused_because(filename)}")
    name, short = names.shown()
    raise ArchiveRefused(
        _("%(file)r: unsupported file type; upload one %(name)s file, or a .zip or .tar.gz holding one "
          "%(short)s file per corpus document.") % {"file": filename, "name": name, "short": short}
    )


def document_name(member: str, suffixes: tuple[str, ...] = EASY) -> str:
    """The corpus document a file stands for: its base name without its suffix (``.xml`` for EASY)."""
    base = PurePosixPath(member).name
    for suffix in suffixes:
        if base.lower().endswith(suffix):
            return base[: -len(suffix)]
    return base


def _check_member_name(name: str, suffixes: tuple[str, ...] = EASY) -> str:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise ArchiveRefused(_("archive member %(name)r: unsafe path (absolute or going up with '..'); refused.")
                             % {"name": name})
    if name.lower().endswith(NESTED_SUFFIXES):
        raise ArchiveRefused(_("archive member %(name)r: nested archives are not accepted; put the %(short)s "
                               "files directly in the archive.") % {"name": name, "short": _names(suffixes).shown()[1]})
    if not name.lower().endswith(suffixes):
        why = _names(suffixes).refused_because(name) or _names(suffixes).refused_member()
        raise ArchiveRefused(_("archive member %(name)r: %(why)s") % {"name": name, "why": why})
    return path.name


def _copy_limited(src, dest: Path, member: str, budget: list[int], limits: Limits, compressed: int,
                  *, cumulative: bool = False, archive_bytes: int = 0) -> None:
    """Copy in chunks, stopping as soon as a limit is passed (declared sizes can lie).

    ``compressed`` is the member's compressed size, or with ``cumulative`` the
    whole archive's (a gzip stream has one ratio for all its members). With
    ``archive_bytes``, the running total of the whole archive written so far must
    also stay within that many bytes times the ratio, whatever the headers declare.
    """
    written = 0
    with open(dest, "wb") as out:
        while True:
            chunk = src.read(CHUNK)
            if not chunk:
                break
            written += len(chunk)
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise ArchiveRefused(
                    _("archive member %(name)r: the archive unpacks to more than %(limit)s bytes, the limit; "
                      "refused.") % {"name": member, "limit": f"{limits.max_unpacked_bytes:,}"}
                )
            total = limits.max_unpacked_bytes - budget[0]
            measured = total if cumulative else written
            # Whatever the member's size: many small bombs add up as much as one big one.
            if measured > max(compressed, 1) * limits.max_ratio or (
                    archive_bytes and total > archive_bytes * limits.max_ratio):
                raise ArchiveRefused(_("archive member %(name)r: compression ratio above %(ratio)s:1 (a zip bomb?); "
                                       "refused.") % {"name": member, "ratio": limits.max_ratio})
            out.write(chunk)


def unpack(path: Path, filename: str, dest: Path, limits: Limits, suffixes: tuple[str, ...] = EASY,
           documents: set[str] | None = None) -> dict[str, Path]:
    """Unpack a run file into ``dest``; returns ``{document name: xml path}``.

    ``filename`` is the name the team gave (it decides the kind). A single XML
    file is linked, not copied. ``documents``: of an archive, write only the
    files of these documents (a shard of a stored run reads no others); every
    member is still checked. On refusal ``dest`` may hold partial files: the
    caller owns ``dest`` and removes it.
    """
    kind = kind_of(filename, suffixes)
    dest.mkdir(parents=True, exist_ok=True)
    if kind == "xml":
        return {document_name(filename, suffixes): path}
    if kind == "zip":
        return _unpack_zip(path, filename, dest, limits, suffixes, documents)
    return _unpack_tar(path, filename, dest, limits, suffixes, documents)


def _claim(out: dict[str, Path], base: str, dest: Path, member: str, suffixes: tuple[str, ...] = EASY) -> Path:
    doc = document_name(base, suffixes)
    if doc in out:
        raise ArchiveRefused(_("archive member %(name)r: a second file for document %(document)r; refused.")
                             % {"name": member, "document": doc})
    # The unpacked copy keeps the suffix it was accepted by: where a kind takes two formats, it tells them apart.
    suffix = next(s for s in suffixes if base.lower().endswith(s))
    out[doc] = dest / f"{len(out):05d}{suffix}"
    return out[doc]


def _unpack_zip(path: Path, filename: str, dest: Path, limits: Limits, suffixes: tuple[str, ...] = EASY,
                documents: set[str] | None = None) -> dict[str, Path]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveRefused(_("%(file)r: not a readable zip archive (%(why)s).") % {"file": filename, "why": exc}) from None
    out: dict[str, Path] = {}
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        if len(infos) > MAX_MEMBERS:
            raise ArchiveRefused(_("%(file)r: %(n)s files in the archive, more than %(max)s; refused.")
                                 % {"file": filename, "n": len(infos), "max": MAX_MEMBERS})
        for info in infos:
            # The high bits of external_attr carry the Unix mode; 0o120000 is a symlink.
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise ArchiveRefused(_("archive member %(name)r: symbolic links are not accepted; refused.")
                                     % {"name": info.filename})
            base = _check_member_name(info.filename, suffixes)
            if info.file_size > max(info.compress_size, 1) * limits.max_ratio:
                raise ArchiveRefused(_("archive member %(name)r: compression ratio above %(ratio)s:1 (a zip bomb?); "
                                       "refused.") % {"name": info.filename, "ratio": limits.max_ratio})
        declared = sum(i.file_size for i in infos)
        if declared > limits.max_unpacked_bytes:
            raise ArchiveRefused(
                _("%(file)r: the archive declares %(declared)s unpacked bytes, more than the limit of %(limit)s; "
                  "refused.") % {"file": filename, "declared": f"{declared:,}", "limit": f"{limits.max_unpacked_bytes:,}"}
            )
        budget = [limits.max_unpacked_bytes]
        archive_bytes = max(path.stat().st_size, 1)
        for info in infos:
            base = _check_member_name(info.filename, suffixes)
            if documents is not None and document_name(base, suffixes) not in documents:
                continue
            target = _claim(out, base, dest, info.filename, suffixes)
            try:
                with zf.open(info) as src:
                    _copy_limited(src, target, info.filename, budget, limits, info.compress_size,
                                  archive_bytes=archive_bytes)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as exc:
                raise ArchiveRefused(_("archive member %(name)r: cannot be unpacked (%(why)s).")
                                     % {"name": info.filename, "why": exc}) from None
    if not out and documents is None:
        raise ArchiveRefused(_("%(file)r: the archive holds no %(short)s file.")
                             % {"file": filename, "short": _names(suffixes).shown()[1]})
    return out


def _unpack_tar(path: Path, filename: str, dest: Path, limits: Limits, suffixes: tuple[str, ...] = EASY,
                documents: set[str] | None = None) -> dict[str, Path]:
    try:
        tf = tarfile.open(path, mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveRefused(_("%(file)r: not a readable tar.gz archive (%(why)s).") % {"file": filename, "why": exc}) from None
    out: dict[str, Path] = {}
    compressed = path.stat().st_size
    budget = [limits.max_unpacked_bytes]
    declared = 0
    count = 0
    with tf:
        try:
            for member in tf:
                if member.isdir():
                    continue
                count += 1
                if count > MAX_MEMBERS:
                    raise ArchiveRefused(_("%(file)r: more than %(max)s files in the archive; refused.")
                                         % {"file": filename, "max": MAX_MEMBERS})
                if member.issym() or member.islnk():
                    raise ArchiveRefused(_("archive member %(name)r: links are not accepted; refused.")
                                         % {"name": member.name})
                if not member.isfile():
                    raise ArchiveRefused(_("archive member %(name)r: not a regular file; refused.")
                                         % {"name": member.name})
                base = _check_member_name(member.name, suffixes)
                declared += member.size
                if declared > limits.max_unpacked_bytes:
                    raise ArchiveRefused(
                        _("%(file)r: the archive unpacks to more than %(limit)s bytes, the limit; refused.")
                        % {"file": filename, "limit": f"{limits.max_unpacked_bytes:,}"}
                    )
                if documents is not None and document_name(base, suffixes) not in documents:
                    continue  # a stream: the member is read past, not written
                target = _claim(out, base, dest, member.name, suffixes)
                src = tf.extractfile(member)
                _copy_limited(src, target, member.name, budget, limits, compressed, cumulative=True)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
            raise ArchiveRefused(_("%(file)r: the archive is damaged (%(why)s).") % {"file": filename, "why": exc}) from None
    if not out and documents is None:
        raise ArchiveRefused(_("%(file)r: the archive holds no %(short)s file.")
                             % {"file": filename, "short": _names(suffixes).shown()[1]})
    return out


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
