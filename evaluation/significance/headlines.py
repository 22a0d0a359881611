"""Every pair's headline as the pages and the API show it, read from the set's packed figure rows.

A set keeps, per figure and track, its pairs' raw headline numbers in one packed row
(:class:`~evaluation.models.SignificanceFigure`: difference, standard error, p-value, Holm-adjusted p-value,
agreement across genres). What a page shows of a pair is arithmetic on them: rounding, the interval
(difference ± 1.96 standard errors), the verdict and the minimum detectable effects (a constant times the
standard error). This module does that arithmetic for a whole figure at once
(:func:`evaluation.significance.sets.headline_columns`) and builds headlines only for the pairs the reader
asks for: value for value what :func:`evaluation.significance.sets.headline` gives one pair at a time (a
test compares them).

No test is computed here and nothing is resampled. Formatting every headline once per set, in the worker,
cost more than the set itself when a run arrives: each new run changes every pair's Holm-adjusted p-value,
so a hundred runs' 4,950 pairs × 40 figures were written again, three times, for every run (2.3 s of CPU,
220 MB of text). A page reads one figure (about 1 ms to unpack at a hundred runs, a few more for the
columns); the significance document, every figure.
"""
from __future__ import annotations

import numpy as np

from evaluation.models import SignificanceSet
from evaluation.significance import sets as significance


def figure_columns(computed: SignificanceSet | None, figures: list[str] | None = None,
                   columns=significance.headline_columns) -> dict[str, dict]:
    """``{figure: columns}`` of ``figures`` (all when None), every pair once (result ``a`` < result ``b``,
    ``a`` minus ``b``) ordered by ``(a, b)`` across the figure's rows (one per track), as ``columns``
    (:func:`evaluation.significance.sets.headline_columns`, or :func:`~evaluation.significance.sets.defined_pairs`
    for the pairs alone) gives them; a figure without a pair with a difference is left out."""
    if computed is None:
        return {}
    rows = computed.figures.all() if figures is None else computed.figures.filter(figure__in=list(figures))
    parts: dict[str, list[dict]] = {}
    for row in rows.values("figure", "results", "family", "heads"):
        parts.setdefault(row["figure"], []).append(columns(row, computed.alpha))
    out = {}
    for figure, found in sorted(parts.items()):
        joined = {name: np.concatenate([part[name] for part in found]) for name in found[0]}
        if len(joined["a"]):
            order = np.lexsort((joined["b"], joined["a"]))
            out[figure] = {name: values[order] for name, values in joined.items()}
    return out


def _listed(values: np.ndarray) -> list:
    """Python floats, NaN as None (what :func:`~evaluation.significance.sets.headline` gives for undefined)."""
    out = values.tolist()
    for k in np.flatnonzero(np.isnan(values)).tolist():
        out[k] = None
    return out


def entries(columns: dict, result_ids=None) -> list[tuple[int, int, dict]]:
    """``[(a, b, headline)]`` of the pairs of one figure's ``columns`` between ``result_ids`` (all when None),
    in the columns' order, each headline as :func:`~evaluation.significance.sets.headline` gives it with
    ``sign`` 1 (its keys in that order)."""
    a, b = columns["a"], columns["b"]
    if result_ids is not None:
        ids = np.fromiter((int(pk) for pk in result_ids), dtype=np.int64)
        chosen = np.flatnonzero(np.isin(a, ids) & np.isin(b, ids))
        columns = {name: values[chosen] for name, values in columns.items()}
    diff, low, high, se, p, p_holm, mde, mde_family = (_listed(columns[name]) for name in (
        "diff", "ci_low", "ci_high", "se", "p", "p_holm", "mde", "mde_family"))
    names = significance.AGREEMENT
    return [(x, y, {"diff": d, "ci": None if lo is None else [lo, hi], "se": e, "p": q, "p_holm": h,
                    "significant": s, "family": f, "mde": m, "mde_family": mf, "agreement": dict(zip(names, ag))})
            for x, y, d, lo, hi, e, q, h, s, f, m, mf, ag in zip(
                columns["a"].tolist(), columns["b"].tolist(), diff, low, high, se, p, p_holm,
                columns["significant"].tolist(), columns["family"].tolist(), mde, mde_family,
                columns["agreement"].tolist())]


def figure_pairs(computed: SignificanceSet | None, figure: str) -> list[dict]:
    """``[{"a", "b", "headline"}]``: every pair of ``figure`` once, lower result first, ``a`` minus ``b``."""
    found = figure_columns(computed, [figure]).get(figure)
    return [] if found is None else [{"a": a, "b": b, "headline": head} for a, b, head in entries(found)]


def headline_pairs(computed: SignificanceSet | None, figure: str, result_ids) -> dict[tuple[int, int], dict]:
    """``{(a, b): headline}`` for both orders of every pair of ``result_ids`` on ``figure``, the first result
    minus the second: what :func:`evaluation.significance.sets.headline_pairs` gives."""
    found = figure_columns(computed, [figure]).get(figure)
    out = {}
    for a, b, head in [] if found is None else entries(found, result_ids):
        out[(a, b)] = head
        out[(b, a)] = oriented(head, -1)
    return out


def pair_headlines(computed: SignificanceSet | None, a: int, b: int) -> dict[str, dict]:
    """``{figure: headline}`` of result ``a`` minus result ``b`` on every figure that compares them (``{}`` for
    a pair the set did not compare): one packed row read per figure, one pair taken from each."""
    low, high = min(a, b), max(a, b)
    sign = 1 if a == low else -1
    return {figure: significance.headline(head, sign, computed.alpha)
            for figure, (head, _context) in significance.pair_heads(computed, low, high).items()}


def document_pairs(computed: SignificanceSet | None, result_ids, figure: str | None = None) -> list[tuple]:
    """``[(figure, result a, result b, headline)]`` between ``result_ids``, of ``figure`` (all when None), each
    pair as the set stores it (run A the result listed first), ordered by figure, then results: what
    :func:`evaluation.significance.sets.stored_headlines` then :func:`~evaluation.significance.sets.headline`
    give the significance document."""
    out = []
    for name, found in figure_columns(computed, None if figure is None else [figure]).items():
        out += [(name, a, b, head) for a, b, head in entries(found, result_ids)]
    return out


def oriented(head: dict, sign: int) -> dict:
    """A headline of ``a`` minus ``b`` as :func:`evaluation.significance.sets.headline` turns it for ``sign``
    −1 (``b`` minus ``a``): the difference and interval negated, the agreement swapped; the standard error,
    p-values and detectable differences are those of the pair."""
    if sign > 0:
        return head
    ci = head.get("ci")
    return dict(head, diff=None if head.get("diff") is None else -head["diff"],
                ci=None if ci is None else [-ci[1], -ci[0]],
                agreement=significance.swapped(head.get("agreement") or {}))
