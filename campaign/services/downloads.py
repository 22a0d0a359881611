"""Streaming downloads: the corpus text of a campaign as one zip.

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
            with doc.text_file.open("rb") as src, zf.open(f"{doc.name}{suffix}", "w", force_zip64=True) as dst:
                while chunk := src.read(CHUNK):
                    dst.write(chunk)
                    if len(pipe.buffer) >= CHUNK:
                        yield pipe.take()
            yield pipe.take()
    yield pipe.take()
