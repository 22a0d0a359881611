"""Constituency metrics: one entry point for the command line, workers and web app.

>>> doc = score_trees(gold_trees, test_trees, "leaf-ancestor", costs="sampson2003")

``score_trees`` returns the JSON document ``{"metric", "signature",
"sentences": [{"index": 1, ...}], "summary": {...}}`` described in
``docs/metrics/constituency.md``; :func:`score_files` reads two files first.
Every ratio in the document is a fraction in [0, 1].

Treebank transformations hook: pass ``transform=`` (any callable
``Tree -> Tree``, e.g. a composition of the named transformations of
``parseval.annotations.trees.transforms``) and it is applied to a copy of every gold
and test tree before scoring; or transform the trees yourself and pass the
results, the metrics never modify their input.
"""
from __future__ import annotations

import os

from parseval.annotations.compiled import guard as _guard

_guard(__name__, __path__[0])  # before any module of the package is imported (see parseval/annotations/compiled.py)

from parseval.annotations.trees.detect import read_sentences
# The registry imports this package's engines (its submodules), never this module: it is read when scoring.
from parseval.evaluation import metrics as registry

from .evalb import evalb_params, read_bytes_text, read_evalb_text
from .evalb_files import evalb_layout


def score_trees(gold_trees: list, test_trees: list, metric: str, **params) -> dict:
    """Score paired gold/test trees with one metric; returns the JSON document.

    Common parameters: ``on_error`` (``"raise"`` or ``"skip"``; evalb
    defaults to ``"skip"``, evalb's own behaviour, the others to
    ``"raise"``), ``transform`` (callable applied to copies of all trees),
    ``gold_file``/``test_file``/``gold_lines``/``test_lines`` (only used to
    locate errors).

    Per metric:

    * ``evalb``: ``params`` -- an :class:`~parseval.evaluation.trees.evalb.EvalbParams`
      or the path of a ``.prm`` file (default: COLLINS.prm's values).
    * ``geig1991``: ``table`` -- erasure table name (``penn``,
      ``black1991-example``), JSON path or :class:`ErasureTable`;
      ``rules`` -- optional rewrite rules (list of :class:`Rule` or path).
    * ``conformance``: ``rules`` -- optional flattening rules applied to the
      gold trees to make the flat keys.
    * ``leaf-ancestor``: ``costs`` -- ``strict``, ``sampson2003`` (default),
      a cost file path or a :class:`Costs`; ``drop_tags`` (default
      ``{"-NONE-"}``).
    """
    if metric not in registry.TREE_METRICS:
        raise ValueError(f"unknown metric {metric!r} (expected one of {', '.join(registry.TREE_METRICS)})")
    return registry.get(metric).score_document(gold_trees, test_trees, **params)


def __getattr__(name: str):
    # Read from the registry when asked: at this module's import the registry may be importing the engines.
    if name == "METRICS":
        return registry.TREE_METRICS
    if name == "DEFAULT_ON_ERROR":
        return {m: registry.get(m).defaults["on_error"] for m in registry.TREE_METRICS}
    raise AttributeError(name)


def _reads_like_evalb(metric: str) -> bool:
    """evalb and its variants (evalb-unlabelled): evalb's own reader, outer unlabelled pairs kept as brackets."""
    entry = registry.REGISTRY.get(metric)
    return entry is not None and entry.fast_reader


def read_pair(gold_path, test_path, metric: str, *, fmt: str | None = None, layout: str | None = None,
              on_error: str | None = None, evalb_params=None):
    """Read both files the way ``metric`` pairs sentences; returns the keyword arguments for :func:`score_trees`.

    Penn files that look like evalb's layout (one sentence per line, see
    :func:`parseval.annotations.trees.detect.is_line_layout`) are read line by line
    (malformed lines kept as errors when ``on_error="skip"``), other files tree
    by tree. evalb keeps outer unlabelled pairs (evalb counts them as
    brackets); the other metrics remove them.

    With ``evalb_params`` (an :class:`EvalbParams`) and Penn files in line
    layout, evalb's fast path reads the lines straight into evalb's own
    structures (``gold_trees``/``test_trees`` then hold pre-read sentences for
    :func:`score_trees` with the same parameters, not trees).
    """
    on_error = on_error or (registry.get(metric).defaults["on_error"] if metric in registry.REGISTRY
                            else "raise")
    evalb = _reads_like_evalb(metric)
    if evalb and evalb_params is not None:
        fast = _evalb_fast_pair(gold_path, test_path, fmt, layout, on_error, evalb_params)
        if fast is not None:
            return fast
    gold, gold_lines = read_sentences(
        gold_path, fmt=fmt, layout=layout,
        lenient=on_error == "skip", strip_outer=not evalb,
    )
    test, test_lines = read_sentences(
        test_path, fmt=fmt, layout=layout,
        lenient=on_error == "skip", strip_outer=not evalb,
    )
    return {
        "gold_trees": gold, "test_trees": test, "gold_file": os.fspath(gold_path),
        "test_file": os.fspath(test_path), "gold_lines": gold_lines, "test_lines": test_lines,
        "on_error": on_error,
    }


def _evalb_fast_pair(gold_path, test_path, fmt, layout, on_error, params):
    if not (evalb_layout(gold_path, fmt, layout) and evalb_layout(test_path, fmt, layout, test=True)):
        return None
    lenient = on_error == "skip"
    gold = read_evalb_text(read_bytes_text(gold_path), params, file=os.fspath(gold_path), lenient=lenient)
    test = read_evalb_text(read_bytes_text(test_path), params, file=os.fspath(test_path), lenient=lenient)
    return {
        "gold_trees": gold, "test_trees": test, "gold_file": os.fspath(gold_path),
        "test_file": os.fspath(test_path), "gold_lines": list(range(1, len(gold) + 1)),
        "test_lines": list(range(1, len(test) + 1)), "on_error": on_error,
    }


def score_files(gold_path, test_path, metric: str, *, fmt: str | None = None, layout: str | None = None, **params) -> dict:
    """Read two tree files (format and layout detected) and score them: see :func:`score_trees`."""
    fast = None
    if _reads_like_evalb(metric) and params.get("transform") is None:
        fast = params["params"] = registry.get(metric).params(params.get("params"))
    args = read_pair(gold_path, test_path, metric, fmt=fmt, layout=layout, on_error=params.pop("on_error", None),
                     evalb_params=fast)
    gold = args.pop("gold_trees")
    test = args.pop("test_trees")
    return score_trees(gold, test, metric, **args, **params)


__all__ = ["METRICS", "evalb_params", "score_trees", "score_files", "read_pair"]
