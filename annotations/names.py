"""Corpus file names: what a document's name says about it."""
from __future__ import annotations

from annotations.easy.reader import document_key


def genre_of(name: str) -> str:
    """The genre of a document from its file name: the name up to the first ``_``.

    ``general_lemonde.xml`` -> ``general``; ``oral_delic_1.xml`` -> ``oral``;
    a name without ``_`` is its own genre (without ``.xml``).
    """
    key = document_key(name)
    return key.split("_", 1)[0] if "_" in key else key
