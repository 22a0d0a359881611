"""Corpus file names: what a document's name says about it."""
from __future__ import annotations

from parseval.annotations.easy.reader import document_key


def genre_of(name: str) -> str:
    """The genre of a document from its file name: the name up to the first ``_``.

    ``general_lemonde.xml`` -> ``general``; ``oral_delic_1.xml`` -> ``oral``;
    a name without ``_`` is its own genre (without ``.xml``).
    """
    key = document_key(name)
    return key.split("_", 1)[0] if "_" in key else key


# The EASY corpus's genres, by the file prefix that names them. Any other genre is named by its code
# as given (an organiser renames it in the admin): capitalising a code makes names like "Gsd".
EASY_GENRE_NAMES = {
    "general": "General press",
    "litteraire": "Literature",
    "mail": "E-mail",
    "medical": "Medical",
    "oral": "Oral transcripts",
    "questions": "Questions",
}


def genre_name(code: str) -> str:
    """A new genre's display name: EASY's own for its genres, otherwise the code itself."""
    return EASY_GENRE_NAMES.get(code, code)
