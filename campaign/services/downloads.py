"""Streaming downloads: the corpus text of a campaign as one zip.

Per document, the stored text file (EASY ``.xml``; the tree and dependency
kinds' word lists ``.tok``) and, where the import wrote them, the extra
team-facing files of its kind (:data:`EXTRA_SUFFIXES`: a dependency corpus's
raw text ``.txt`` and gold tokenisation ``.tokens.conllu``). Every one is
written at import for every sentence alike, so none says which sentences are
scored.

The zip is written as it is sent (no temporary file, no whole archive in
memory): :class:`zipfile.ZipFile` writes data descriptors when its output
cannot seek, which every unzip tool reads.
"""
from __future__ import annotations

import zipfile
from pathlib import PurePosixPath
from typing import Iterator

from campaign.models import Campaign

CHUNK = 256 * 1024
EXTRA_SUFFIXES = (".txt", ".tokens.conllu")


def extra_file_name(doc, suffix: str) -> str:
    """Where a document's extra team-facing file is stored: beside its text file, named after the document."""
    folder = PurePosixPath(doc.text_file.name).parent
    return str(folder / f"{doc.name}{suffix}")


def read_extra_file(doc, suffix: str) -> bytes | None:
    name = extra_file_name(doc, suffix)
    storage = doc.text_file.storage
    if not storage.exists(name):
        return None
    with storage.open(name, "rb") as fh:
        return fh.read()


class _Pipe:
    """A write-only, non-seekable sink whose content is taken out piece by piece."""

    def __init__(self):
        self.buffer = bytearray()

    def write(self, data) -> int:
        self.buffer += data
        return len(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        out = bytes(self.buffer)
        self.buffer.clear()
        return out


def corpus_zip_name(campaign: Campaign) -> str:
    return f"{campaign.slug}-corpus.zip"


def iter_corpus_zip(campaign: Campaign) -> Iterator[bytes]:
    pipe = _Pipe()
    with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for doc in campaign.documents.select_related("genre").order_by("order", "name"):
            # EASY texts are .xml; the tree and dependency kinds' word lists are .tok (as stored).
            suffix = PurePosixPath(doc.text_file.name).suffix or ".xml"
            files = [(f"{doc.name}{suffix}", doc.text_file.storage, doc.text_file.name)]
            files += [(f"{doc.name}{extra}", doc.text_file.storage, extra_file_name(doc, extra))
                      for extra in EXTRA_SUFFIXES if doc.text_file.storage.exists(extra_file_name(doc, extra))]
            for arcname, storage, stored in files:
                with storage.open(stored, "rb") as src, zf.open(arcname, "w", force_zip64=True) as dst:
                    while chunk := src.read(CHUNK):
                        dst.write(chunk)
                        if len(pipe.buffer) >= CHUNK:
                            yield pipe.take()
                yield pipe.take()
    yield pipe.take()
