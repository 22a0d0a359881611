"""evalb (Sekine & Collins 1997): labelled bracket recall, precision, F, exact match, tagging accuracy."""
from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path

import numpy as np

from parseval.annotations.errors import InputError, Problem

from parseval.evaluation import stats
from parseval.evaluation.trees.evalb import evalb_params, format_evalb, score_evalb

from .base import Layer, rows_array
from .common import TreeMetric

_BLOCK = ("valid", "matched", "gold_brackets", "test_brackets", "crossing", "words", "correct_tags", "complete",
          "no_crossing_count", "two_or_less_count")
RATIOS = ("recall", "precision", "f", "exact_match", "no_crossing", "two_or_less_crossing", "tagging_accuracy")


def _row(row: dict) -> tuple:
    if row["status"] != "ok":
        return (0,) * len(_BLOCK)
    return (1, row["matched"], row["gold_brackets"], row["test_brackets"], row["crossing"], row["words"],
            row["correct_tags"], int(row["gold_brackets"] == row["test_brackets"] == row["matched"]),
            int(row["crossing"] == 0), int(row["crossing"] <= 2))


def _block_figures(s, prefix: str) -> dict:
    """evalb's own expressions (``_finish``), so the figures of summed rows are the engine's to the last digit."""
    get = lambda name: s[f"{prefix}{name}"]  # noqa: E731
    r = stats.ratio(get("matched"), get("gold_brackets"))
    p = stats.ratio(get("matched"), get("test_brackets"))
    valid = get("valid")
    return {"matched": get("matched"), "gold_brackets": get("gold_brackets"),
            "test_brackets": get("test_brackets"), "recall": r, "precision": p, "f": stats.f_measure(p, r),
            "exact_match": stats.ratio(get("complete"), valid), "avg_crossing": stats.ratio(get("crossing"), valid),
            "no_crossing": stats.ratio(get("no_crossing_count"), valid),
            "two_or_less_crossing": stats.ratio(get("two_or_less_count"), valid),
            "tagging_accuracy": stats.ratio(get("correct_tags"), get("words"))}


@dataclasses.dataclass(frozen=True)
class Evalb(TreeMetric):
    # None: LABELED as the parameter file says; False: brackets by span only whatever it says (evalb-unlabelled)
    labeled: bool | None = None

    def params(self, value=None):
        """The :class:`~parseval.evaluation.trees.evalb.EvalbParams` of a ``params`` value, with this metric's LABELED."""
        return with_labeled(evalb_params(value), self.labeled)

    def rows(self, doc: dict) -> np.ndarray:
        cutoff = doc["summary"]["cutoff_len"]
        out = []
        for row in doc["sentences"]:
            whole = _row(row)
            out.append(whole + (whole if row["length"] <= cutoff else (0,) * len(_BLOCK)))
        return rows_array(out, len(self.columns), np.int64)

    def figures(self, sums) -> dict:
        out = {}
        for block, prefix in (("all", ""), ("cutoff", "cut_")):
            out.update({f"summary.{block}.{k}": v for k, v in _block_figures(sums, prefix).items()})
        return out

    def from_args(self, args) -> dict:
        return {"params": with_labeled(_checked_prm(args.param), self.labeled)}


def with_labeled(params, labeled: bool | None):
    """``params`` with LABELED forced to ``labeled`` (unchanged when None)."""
    if labeled is None or params.labeled == labeled:
        return params
    return dataclasses.replace(params, labeled=labeled)


def _checked_prm(path: str | None):
    """evalb's parameters; a file of which no line is an evalb setting (a tree file given by mistake) is refused.

    A file with some unknown keywords is still read as evalb reads it (they are warnings)."""
    params = evalb_params(path)
    if path is None:
        return params
    lines = Path(path).read_bytes().decode("latin-1").split("\n")
    # evalb's keyword runs up to the first C-space; a line that starts with a space names none
    keywords = [line.split(" ", 1)[0].split("\t", 1)[0] for line in lines
                if not line.startswith("#") and len(line.rstrip()) >= 3]
    if keywords and not any(word in _PRM_KEYWORDS for word in keywords):
        raise InputError([Problem("not an evalb parameter file: no line sets a known keyword ("
                                  + ", ".join(_PRM_KEYWORDS) + ")", file=path)] + params.warnings)
    return params


_PRM_KEYWORDS = ("DEBUG", "MAX_ERROR", "CUTOFF_LEN", "LABELED", "DELETE_LABEL", "DELETE_LABEL_FOR_LENGTH",
                 "QUOTE_LABEL", "EQ_LABEL", "EQ_WORD")


def score(gold, test, *, on_error, params, labeled: bool | None = None, metric: str = "evalb", **where) -> dict:
    return score_evalb(gold, test, with_labeled(evalb_params(params.pop("params", None)), labeled),
                       on_error=on_error, metric=metric, **where)


def variant(*, name: str, labeled: bool | None, **fields) -> Evalb:
    """evalb with LABELED fixed (``evalb-unlabelled``): evalb's rows, figures and report; its own name and layers."""
    return Evalb(name=name, columns=METRIC.columns, ratios=METRIC.ratios,
                 score=partial(score, labeled=labeled, metric=name), report=METRIC.report,
                 defaults=dict(METRIC.defaults), fast_reader=True, labeled=labeled, **fields)


METRIC = Evalb(
    name="evalb", label="evalb (labelled brackets)",
    columns=_BLOCK + tuple(f"cut_{c}" for c in _BLOCK),
    ratios=tuple(f"summary.{b}.{k}" for b in ("all", "cutoff") for k in RATIOS),
    score=score, report=format_evalb, defaults={"on_error": "skip", "params": "COLLINS.prm"}, fast_reader=True,
    layers=(
        Layer("evalb", "evalb F (labelled brackets)", f="summary.all.f", p="summary.all.precision",
              r="summary.all.recall", fc="summary.all.matched", fp="summary.all.test_brackets",
              cr="summary.all.gold_brackets",
              description="labelled bracket F-measure, every sentence length, COLLINS.prm conventions"),
        Layer("evalb-exact", "evalb exact match", f="summary.all.exact_match",
              description="sentences whose brackets are all right"),
    ),
)
