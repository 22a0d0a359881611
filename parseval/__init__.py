"""parseval: the scorers of the parser-evaluation platform, installable on their own.

EASY (groups and relations, every range function and mode), constituency trees (evalb exactly as C
evalb, evalb-unlabelled, geig1991, conformance, leaf-ancestor) and dependencies (Lin P/R, UAS, LAS; the
CoNLL 2018 shared task's figures), with bootstrap intervals, paired tests and signatures, and the
converters (UD to EASY, UD to phrase structure). No Django, no database: the web app depends on this
package, never the other way (docs/architecture.md).

* the command line: ``parseval COMMAND ...`` (``python -m parseval``; the platform's checkout also
  answers to ``python -m evaluation``);
* the Python API: :func:`score_easy`, :func:`score_trees`, :func:`score_deps`, each returning a
  :class:`Result` (figures, intervals, per-sentence rows, signature; :mod:`parseval.api`);
* the parts: :mod:`parseval.annotations` (formats: readers, writers, ``Problem`` reports) and
  :mod:`parseval.evaluation` (engines, metrics and their registry, statistics, signatures, consensus,
  publication bundles and ``reproduce``).
"""
from parseval.evaluation.version import SCORER_VERSION

__version__ = SCORER_VERSION

__all__ = ["Result", "SCORER_VERSION", "__version__", "score_deps", "score_easy", "score_trees"]

_API = ("Result", "score_deps", "score_easy", "score_trees")


def __getattr__(name: str):
    """The API's names, imported when first asked for: ``parseval easy`` (the command line imports this package
    first) then loads the EASY scorer alone, not every engine the API reaches."""
    if name in _API:
        from parseval import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'parseval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
