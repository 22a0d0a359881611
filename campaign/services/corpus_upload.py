"""A corpus import from one uploaded file (a zip or tar.gz of gold documents, or a single one).

The admin's "Import a corpus" page uses it; the archive is unpacked with the
same safety checks as a run upload, then handed to the campaign kind's import
(all or nothing, as from the command line).
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from parseval.annotations.errors import InputError
from campaign import kinds
from campaign.models import Campaign

from .archives import ArchiveRefused, remove_tree, unpack
from .runs import archive_limits, staging_dir


def import_uploaded_corpus(campaign: Campaign, uploaded, *, subset: str = "test", genres: dict | None = None,
                           actor=None):
    """Import the gold documents of ``uploaded`` (a Django ``UploadedFile``); returns the import summary.

    Raises :class:`InputError` with every problem (archive refused, unreadable gold, ...); nothing is kept then.
    """
    kind = kinds.for_campaign(campaign)
    tmp = Path(tempfile.mkdtemp(prefix="corpus-upload-", dir=staging_dir()))
    try:
        staged = tmp / "upload"
        with staged.open("wb") as out:
            for chunk in uploaded.chunks():
                out.write(chunk)
        try:
            files = unpack(staged, uploaded.name, tmp / "unpacked", archive_limits(), kind.suffixes)
        except ArchiveRefused as exc:
            raise InputError(str(exc), file=uploaded.name) from None
        # the import names each document after its file: give the unpacked copies their names back
        named = tmp / "named"
        named.mkdir()
        suffix = kind.suffixes[0]
        paths = []
        for document, path in sorted(files.items()):
            paths.append(named / f"{document}{suffix}")
            shutil.copyfile(path, paths[-1])
        options = {"genres": genres} if genres and not kind.genres_from_names_only else {}
        return kind.import_corpus(campaign, paths, subset=subset, actor=actor, **options)
    finally:
        remove_tree(tmp)
