"""EASY scoring: ranges, range functions, modes, one-to-one matching, counts, bootstrap.

Public entry points (pure functions, no Django):

* :func:`score_corpus` -- score run documents against gold documents and
  return the result document (the ``--json`` contract).
* :func:`gold_sha256` / :func:`gold_sha256_bytes` -- the gold checksum.
* :func:`genre_of` -- a document's genre from its file name.
"""
from parseval.annotations.compiled import guard as _guard

_guard(__name__, __path__[0])  # before any module of the package is imported (see parseval/annotations/compiled.py)

from .files import gold_sha256, gold_sha256_bytes, genre_of, list_xml, pair_files, read_genres
from .matching import match_counts, maximum_matching
from .ranges import MATCHES, MODES, HypothesisView, ReferenceView, range_holds, range_mask
from .scoring import ALL, DEFAULT_BOOTSTRAP, DEFAULT_SEED, prf, score_corpus

__all__ = [
    "ALL", "DEFAULT_BOOTSTRAP", "DEFAULT_SEED", "MATCHES", "MODES", "HypothesisView", "ReferenceView",
    "genre_of", "gold_sha256", "gold_sha256_bytes", "list_xml", "match_counts", "maximum_matching",
    "pair_files", "prf", "range_holds", "range_mask", "read_genres", "score_corpus",
]
