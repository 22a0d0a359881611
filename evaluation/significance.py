"""Paired significance between the runs of a campaign: computed by a worker, stored, read by pages and the API.

:func:`compute` compares every two runs of the results table (test scope,
scored, active: their latest results) on every figure the pages show, with
the paired, genre-stratified test of :mod:`evaluation.paired`, and stores one
:class:`SignificanceSet`. The campaign's ``metrics["significance"]`` may set
``method`` (``bootstrap`` or ``ar``), ``resamples``, ``seed`` and ``alpha``.

Corrections (Holm): the headline difference of a pair (all genres, all types)
is adjusted across every pair of the campaign for that figure, which is what
the ranking clusters read; the cells of one comparison table (genre × type)
are adjusted across that table.

Pages never compute a test: they read the newest set (:func:`latest_set`).
"""
from __future__ import annotations

import logging
import math
import time
from collections import Counter, defaultdict

from django.db import transaction

from campaign import kinds
from campaign.models import Campaign
from evaluation import paired, stats
from evaluation.figure_sets import figure_id
from evaluation.models import PairedDifference, Result, SignificanceSet
from evaluation.sentence_rows import RowsUnavailable, rows_of
from evaluation.signature import make_signature

logger = logging.getLogger(__name__)

SIGNIFICANCE_TASK = kinds.SIGNIFICANCE_TASK


def settings_of(campaign: Campaign) -> dict:
    options = (campaign.metrics or {}).get("significance") or {}
    method = options.get("method", "bootstrap")
    if method not in paired.METHODS:
        raise ValueError(f"unknown significance method {method!r}")
    return {"method": method, "resamples": int(options.get("resamples", paired.DEFAULT_RESAMPLES)),
            "seed": int(options.get("seed", stats.DEFAULT_SEED)), "alpha": float(options.get("alpha", paired.ALPHA))}


def signature(method: str, resamples: int, seed: int, alpha: float) -> str:
    return make_signature("paired-" + ("bs" if method == "bootstrap" else "ar"), n=resamples, seed=seed,
                          strata="genre" if method == "bootstrap" else None, corr="holm", alpha=alpha)


def _num(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else round(value, 6)


def _comparable(loaded: dict[int, tuple[Result, object]]) -> tuple[dict, list[dict]]:
    """The results scored on the most common gold and sentence list; the others skipped with the reason."""
    if not loaded:
        return {}, []
    common = Counter((r.gold_sha256, rows.keys.tobytes()) for r, rows in loaded.values()).most_common(1)[0][0]
    keep, skipped = {}, []
    for pk, (result, rows) in loaded.items():
        if (result.gold_sha256, rows.keys.tobytes()) == common:
            keep[pk] = (result, rows)
        else:
            skipped.append({"result": pk, "reason": "scored on other gold or sentences than the other runs"})
    return keep, skipped


def compute(campaign: Campaign) -> SignificanceSet:
    """Every pair of the campaign's results table, on every figure, stored as one new set."""
    from evaluation.summaries import latest_result_ids, scored_runs

    started = time.perf_counter()
    options = settings_of(campaign)
    result_ids = sorted(latest_result_ids(list(scored_runs(campaign))).values())
    loaded, skipped = {}, []
    # One result has nothing to be compared with: its rows are not computed until a second one comes.
    candidates = Result.objects.filter(pk__in=result_ids if len(result_ids) >= 2 else [])
    for result in candidates.select_related("run__campaign").order_by("pk"):
        try:
            loaded[result.pk] = (result, rows_of(result))
        except RowsUnavailable as exc:
            skipped.append({"result": result.pk, "reason": str(exc)})
    pairs: list[PairedDifference] = []
    kept: dict = {}
    # Runs of different tracks of a dependency campaign are not comparable: each track is compared within.
    by_track: dict[str, dict] = {}
    for pk, entry in loaded.items():
        by_track.setdefault((entry[0].document.get("parameters") or {}).get("track") or "", {})[pk] = entry
    for group in by_track.values():
        group, more = _comparable(group)
        skipped += more
        kept.update(group)
        if len(group) < 2:
            continue
        first = next(iter(group.values()))[0]
        figures = kinds.get(first.metric).paired_figures(first)
        ordered = dict(sorted(group.items()))
        first_rows = next(iter(ordered.values()))[1]
        compared = paired.compare_all({pk: rows.rows for pk, (_, rows) in ordered.items()}, first_rows.strata,
                                      figures, method=options["method"], resamples=options["resamples"],
                                      seed=options["seed"])
        for (pa, pb), comparison in compared.items():
            pairs += _pair_rows(ordered[pa][0], ordered[pb][0], comparison, options["alpha"])
    _holm_across_pairs(pairs, options["alpha"])
    loaded = kept
    with transaction.atomic():
        computed = SignificanceSet.objects.create(
            campaign=campaign, method=options["method"], resamples=options["resamples"], seed=options["seed"],
            alpha=options["alpha"], signature=signature(**options), results=sorted(loaded), skipped=skipped,
            seconds=time.perf_counter() - started)
        for row in pairs:
            row.set = computed
        PairedDifference.objects.bulk_create(pairs, batch_size=1000)
        computed.seconds = time.perf_counter() - started
        computed.save(update_fields=["seconds"])
    return computed


def _pair_rows(ra: Result, rb: Result, comparison: paired.Comparison, alpha: float) -> list[PairedDifference]:
    """One row per figure (aggregation, layer, mode, match): the headline and the genre × type cells."""
    tables: dict[str, dict[str, dict[str, list]]] = defaultdict(lambda: defaultdict(dict))
    for k, (aggregation, layer, mode, match, type_) in enumerate(comparison.keys):
        fid = figure_id(aggregation, layer, mode, match)
        for genre in comparison.diff:
            cell = [_num(comparison.diff[genre][k]), _num(comparison.low[genre][k]),
                    _num(comparison.high[genre][k]), _num(comparison.p[genre][k])]
            if cell[0] is not None:
                tables[fid][genre][type_] = cell
    out = []
    for fid, cells in tables.items():
        flat = [(g, t) for g in cells for t in cells[g]]
        adjusted = paired.holm([cells[g][t][3] for g, t in flat])
        for (g, t), p in zip(flat, adjusted):
            cells[g][t].append(_num(p))
        head = cells.get(stats.ALL, {}).get(stats.ALL)
        if head is None:
            continue
        out.append(PairedDifference(result_a=ra, result_b=rb, figure=fid, diff=head[0], ci_low=head[1],
                                    ci_high=head[2], p_value=head[3], cells={g: dict(c) for g, c in cells.items()}))
    return out


def _holm_across_pairs(rows: list[PairedDifference], alpha: float) -> None:
    by_figure: dict[str, list[PairedDifference]] = defaultdict(list)
    for row in rows:
        by_figure[row.figure].append(row)
    for group in by_figure.values():
        for row, p in zip(group, paired.holm([r.p_value for r in group])):
            row.p_holm = _num(p)
            row.significant = p is not None and p < alpha


# -- reading (pages and the API: never a test computed here) -----------------------------------

def latest_set(campaign: Campaign) -> SignificanceSet | None:
    return SignificanceSet.objects.filter(campaign=campaign).order_by("-created_at", "-pk").first()


def headline_pairs(computed: SignificanceSet | None, figure: str, result_ids) -> dict[tuple[int, int], dict]:
    """``{(a, b): {diff, ci, p, p_holm, significant}}`` for both orders of every pair of ``result_ids`` (one query).

    The difference is always the first result minus the second.
    """
    if computed is None:
        return {}
    ids = list(result_ids)
    rows = computed.pairs.filter(figure=figure, result_a__in=ids, result_b__in=ids).values(
        "result_a_id", "result_b_id", "diff", "ci_low", "ci_high", "p_value", "p_holm", "significant")
    out = {}
    for r in rows:
        a, b = r["result_a_id"], r["result_b_id"]
        out[(a, b)] = _oriented(r, 1)
        out[(b, a)] = _oriented(r, -1)
    return out


def _oriented(r: dict, sign: int) -> dict:
    flip = (lambda v: None if v is None else sign * v)
    low, high = flip(r["ci_low"]), flip(r["ci_high"])
    if sign < 0:
        low, high = high, low
    return {"diff": flip(r["diff"]), "ci": None if low is None else [low, high], "p": r["p_value"],
            "p_holm": r["p_holm"], "significant": r["significant"]}


def pair_tables(computed: SignificanceSet | None, a: int, b: int) -> dict[str, dict[str, dict[str, dict]]]:
    """``{figure: {genre: {type: {diff, ci, p, p_holm, significant}}}}`` of result ``a`` minus result ``b``."""
    if computed is None:
        return {}
    sign, rows = 1, list(computed.pairs.filter(result_a=a, result_b=b).values("figure", "cells"))
    if not rows:
        sign, rows = -1, list(computed.pairs.filter(result_a=b, result_b=a).values("figure", "cells"))
    out = {}
    for row in rows:
        out[row["figure"]] = {
            genre: {t: dict(_oriented({"diff": c[0], "ci_low": c[1], "ci_high": c[2], "p_value": c[3],
                                       "p_holm": c[4], "significant": c[4] is not None and c[4] < computed.alpha},
                                      sign)) for t, c in types.items()}
            for genre, types in row["cells"].items()}
    return out


def ranking(scores: dict[int, float | None], pairs: dict[tuple[int, int], dict]) -> list[paired.Ranked]:
    """Results ordered by score, with rank ranges and clusters, from stored headline pairs."""
    return paired.rank_clusters(scores, lambda x, y: bool(pairs.get((x, y), {}).get("significant")))


def enqueue(campaign_id: int) -> None:
    """Ask a worker for the campaign's tests (at most one pending computation per campaign does the work)."""
    from evaluation.significance_tasks import request

    request(campaign_id)


__all__ = ["SIGNIFICANCE_TASK", "compute", "enqueue", "headline_pairs", "latest_set", "pair_tables", "ranking"]
