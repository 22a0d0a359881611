"""Paired significance between the runs of a campaign: computed by a worker, stored, read by pages and the API.

:func:`compute` compares every two runs of the results table (test scope,
scored, active: their latest results) on every figure the pages show, with
the paired, genre-stratified test of :mod:`parseval.evaluation.paired`, and stores one
:class:`SignificanceSet`, which replaces the campaign's previous one (:func:`_replace`). The campaign's ``metrics["significance"]`` may set
``method`` (``bootstrap`` or ``ar``), ``resamples``, ``seed`` and ``alpha``.

One claim, one stored p-value, one family:

* the headline difference of a pair on a figure (all genres, all types) is
  Holm-adjusted across every pair of the campaign (within a track) for that
  figure: family-wise error control, what the ranking's clusters, the
  comparison page's headline and the API all read (``PairedDifference.p_holm``);
* the other cells of a comparison table (one pair, one figure, genre × type)
  are exploratory: Benjamini–Hochberg adjusted (false discovery rate) across
  that table's cells (``cells``), the headline cell left out of that family
  since it already has its own p-value.

Pages never compute a test: they read the newest set (:func:`latest_set`).
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from collections import Counter

import numpy as np
from django.db import transaction
from django.dispatch import Signal

from campaign import audit, kinds, visibility
from campaign.models import Campaign
from parseval.evaluation import paired, stats
from parseval.evaluation.figure_sets import figure_id
from evaluation.models import PairedDifference, Result, SignificanceRequest, SignificanceSet
from evaluation.results.sentence_rows import RowsUnavailable, rows_of
from evaluation.results.summaries import latest_result_ids, scored_runs
from parseval.evaluation.signature import make_signature

logger = logging.getLogger(__name__)

SIGNIFICANCE_TASK = kinds.SIGNIFICANCE_TASK
SIGNIFICANCE_COMPUTED = "significance.computed"  # the audit action of each stored set
# Sent with ``computed`` once a set is stored and the campaign's: what the pages read of it is computed then
# (evaluation.significance.precomputed, connected in evaluation.apps).
set_stored = Signal()
CELL_FIELDS = ("diff", "p", "p_bh", "se")  # a cell's interval is diff ± 1.96 se (none without se)


def settings_of(campaign: Campaign) -> dict:
    options = (campaign.metrics or {}).get("significance") or {}
    method = options.get("method", "bootstrap")
    if method not in paired.METHODS:
        raise ValueError(f"unknown significance method {method!r}")
    return {"method": method, "resamples": int(options.get("resamples", paired.DEFAULT_RESAMPLES)),
            "seed": int(options.get("seed", stats.DEFAULT_SEED)), "alpha": float(options.get("alpha", paired.ALPHA))}


def signature(method: str, resamples: int, seed: int, alpha: float) -> str:
    return make_signature("paired-" + ("bs" if method == "bootstrap" else "ar"), n=resamples, seed=seed,
                          strata="genre" if method == "bootstrap" else None,
                          p="normal" if method == "bootstrap" else "count", corr="holm-pairs+bh-cells", alpha=alpha)


def _num(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else round(value, 6)


def _significant(p: np.ndarray) -> np.ndarray:
    """p-values kept to 6 significant digits (not decimals: a p of 1e-9 must not become 0)."""
    p = np.asarray(p, dtype=np.float64)
    normal = p > 1e-290  # below, the scale would overflow: kept as it is
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = 10.0 ** (5 - np.floor(np.log10(np.where(normal, p, 1.0))))
        return np.where(normal, np.round(p * scale) / scale, p)


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
    started = time.perf_counter()
    options = settings_of(campaign)
    result_ids = sorted(latest_result_ids(list(scored_runs(campaign))).values())
    loaded, skipped = {}, []
    # One result has nothing to be compared with: its rows are not computed until a second one comes.
    candidates = Result.objects.filter(pk__in=result_ids if len(result_ids) >= 2 else [])
    for result in candidates.select_related("run__campaign").order_by("pk"):
        try:
            run_rows = rows_of(result)
            run_rows.rows = _compact(run_rows.rows)
            loaded[result.pk] = (result, run_rows)
        except RowsUnavailable as exc:
            skipped.append({"result": result.pk, "reason": str(exc)})
    kept: dict = {}
    sentences: dict[str, int] = {}
    resamples = options["resamples"]
    # Runs of different tracks of a dependency campaign are not comparable: each track is compared within.
    by_track: dict[str, dict] = {}
    for pk, entry in loaded.items():
        by_track.setdefault((entry[0].document.get("parameters") or {}).get("track") or "", {})[pk] = entry

    # The rows are stored as they come (a hundred runs' 198,000 rows never held in memory), each batch in its
    # own short transaction, into a set marked incomplete that no reader picks (:func:`latest_set`). No
    # transaction is held over the computation: on SQLite, one writer at a time, it kept the web's uploads and
    # the scoring worker waiting past their busy timeout; on PostgreSQL it pinned a snapshot for minutes.
    computed = SignificanceSet.objects.create(campaign=campaign, method=options["method"], resamples=resamples,
                                              seed=options["seed"], alpha=options["alpha"], signature="",
                                              complete=False)
    checksum = hashlib.sha256()
    try:
        for group in by_track.values():
            group, more = _comparable(group)
            skipped += more
            kept.update(group)
            if len(group) < 2:
                continue
            first = next(iter(group.values()))[0]
            figures = kinds.get(first.metric).paired_figures(first)
            ordered = dict(sorted(group.items()))
            strata = list(next(iter(ordered.values()))[1].strata)
            sentences = {**{str(g): n for g, n in Counter(strata).items()}, stats.ALL: len(strata)}
            drawn = options["resamples"]
            if options["method"] == "ar":  # a counted p-value must be able to reach its families' strictest step
                drawn = max(drawn, paired.shuffles_needed(_largest_family(len(ordered), figures, strata),
                                                          options["alpha"]))
            resamples = max(resamples, drawn)
            for part in paired.compare_parts({pk: r.rows for pk, (_, r) in ordered.items()}, strata, figures,
                                             method=options["method"], resamples=drawn, seed=options["seed"]):
                rows = _pair_rows(part, options["alpha"])
                _store(rows, computed)
                for row in rows:
                    checksum.update(_canonical(row))
    except BaseException:
        SignificanceSet.objects.filter(pk=computed.pk).delete()  # a killed worker's leftovers: see _replace
        raise
    computed.resamples = resamples
    computed.signature = signature(options["method"], resamples, options["seed"], options["alpha"])
    computed.results, computed.skipped, computed.sentences = sorted(kept), skipped, sentences
    computed.seconds = time.perf_counter() - started
    _replace(campaign, computed, {pk: result for pk, (result, _) in kept.items()}, checksum.hexdigest())
    set_stored.send(sender=SignificanceSet, computed=computed)
    return computed


def _replace(campaign: Campaign, computed: SignificanceSet, results: dict[int, Result], checksum: str) -> None:
    """In one short transaction: the new set becomes the campaign's, the sets before the one it replaces are
    removed (with their rows), and the audit log records what the computation compared.

    Readers see the old set or the new one, whole: the new one is invisible until marked complete, and the
    one it replaces is kept until the next computation, for a reader that took it just before this commit. The campaign's row is locked first, so that two computations of
    one campaign (a redelivery beside a new request) replace one after the other, never leaving two sets.
    Nothing that outlives a set refers to it: the published snapshot and the bundle carry their own frozen
    copy of what they show, and the design aid's cache is keyed by the set's id. The audit keeps what
    reproduces a set (the results and runs, scorer versions, gold, method, resamples, seed, signature) and
    the checksum of its rows, not the rows themselves."""
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()
        computed.complete = True
        computed.save(update_fields=["resamples", "signature", "results", "skipped", "sentences", "seconds",
                                     "complete"])
        # Every other set of the campaign but the one just replaced: older complete ones, and the incomplete
        # leftovers of a killed worker. The set just replaced stays until the next computation, because a page
        # reads a set and then its pairs in separate queries: one that took the old set just before this commit
        # still finds its pairs. Storage stays bounded by two sets per campaign.
        others = SignificanceSet.objects.filter(campaign=campaign).exclude(pk=computed.pk)
        replaced = others.filter(complete=True).order_by("-created_at", "-pk").values_list("pk", flat=True).first()
        superseded = list(others.exclude(pk=replaced).values_list("pk", flat=True))
        PairedDifference.objects.filter(set__in=superseded).delete()
        SignificanceSet.objects.filter(pk__in=superseded).delete()
        audit.record(SIGNIFICANCE_COMPUTED, campaign=campaign, target=f"significance set {computed.pk}", details={
            "set": computed.pk, "results": sorted(results), "runs": sorted(r.run_id for r in results.values()),
            "scorer_versions": sorted({r.scorer_version for r in results.values()}),
            "gold_sha256": sorted({r.gold_sha256 for r in results.values()}),
            "method": computed.method, "resamples": computed.resamples, "seed": computed.seed,
            "alpha": computed.alpha, "signature": computed.signature, "skipped": computed.skipped,
            "pairs": PairedDifference.objects.filter(set=computed).count(), "checksum": checksum,
            "superseded": superseded})


def _canonical(row: PairedDifference) -> bytes:
    """A stored row as canonical JSON, for the set's checksum (the same rows give the same checksum)."""
    return json.dumps([row.result_a_id, row.result_b_id, row.figure, row.diff, row.ci_low, row.ci_high,
                       row.p_value, row.p_holm, row.significant, row.se, row.family, row.cells_family,
                       row.agreement, row.cells], sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _store(rows: list[PairedDifference], computed: SignificanceSet) -> None:
    for row in rows:
        row.set = computed
    PairedDifference.objects.bulk_create(rows, batch_size=1000)


def _compact(rows: np.ndarray) -> np.ndarray:
    """Count rows in 32 bits when they fit (a hundred runs of EASY rows: 1.1 GB instead of 2.2)."""
    if np.issubdtype(rows.dtype, np.integer) and rows.dtype.itemsize > 4 and (
            not rows.size or (rows.min() >= 0 and rows.max() < 2 ** 31)):
        return rows.astype(np.int32)
    return rows


def _largest_family(runs: int, figures, strata) -> int:
    cells = max((len(part.keys) for part in paired.split(figures)), default=1) * (len(set(strata)) + 1)
    return max(runs * (runs - 1) // 2, cells)


def _tables(keys) -> dict[str, tuple[list[str], list[int]]]:
    """``{figure id: (types, key indices)}``: the keys of one page table, in key order."""
    out: dict[str, tuple[list[str], list[int]]] = {}
    for k, (aggregation, layer, mode, match, type_) in enumerate(keys):
        types, index = out.setdefault(figure_id(aggregation, layer, mode, match), ([], []))
        types.append(type_)
        index.append(k)
    return out


def _pair_rows(compared: paired.Compared, alpha: float) -> list[PairedDifference]:
    """One row per pair and figure: the headline (Holm across pairs) and the genre × type cells (BH across the
    table), with the agreement across genres."""
    strata = compared.strata
    s_all = strata.index(stats.ALL)
    genres = [s for s in range(len(strata)) if s != s_all]
    n_pairs = len(compared.pairs)
    out = []
    for fid, (types, index) in _tables(compared.keys).items():
        index = np.array(index)
        t_all = types.index(stats.ALL) if stats.ALL in types else None
        diff, se, low, high, p = (getattr(compared, f)[:, :, index] for f in ("diff", "se", "low", "high", "p"))
        if t_all is None:
            head_diff = head_p = head_se = head_low = head_high = np.full(n_pairs, np.nan)
        else:
            head_diff, head_se, head_p = diff[:, s_all, t_all], se[:, s_all, t_all], p[:, s_all, t_all]
            head_low, head_high = low[:, s_all, t_all], high[:, s_all, t_all]
        p_holm = paired.holm_adjust(head_p)  # the family: every pair of this figure
        family = int((~np.isnan(head_p)).sum())
        cell_p = p.copy()
        if t_all is not None:
            cell_p[:, s_all, t_all] = np.nan  # the headline has its own p-value, in its own family
        p_bh = paired.bh_adjust(cell_p.reshape(n_pairs, -1)).reshape(cell_p.shape)
        values = np.stack([np.round(diff, 6), _significant(p), _significant(p_bh), np.round(se, 6)], axis=-1)
        if t_all is not None:
            values[:, s_all, t_all] = np.nan  # stored once, as the headline
        stored = values.astype(object)
        stored[np.isnan(values)] = None  # JSON null, never NaN
        agreement = (_agreement(diff[:, genres, t_all], se[:, genres, t_all], p[:, genres, t_all], alpha)
                     if t_all is not None else [{}] * n_pairs)
        families = (~np.isnan(cell_p)).reshape(n_pairs, -1).sum(axis=1).tolist()
        tables = stored.tolist()
        head_p_kept = [None if v != v else v for v in _significant(head_p).tolist()]
        p_holm_kept = [None if v != v else v for v in _significant(p_holm).tolist()]
        for i, (a, b) in enumerate(compared.pairs):
            if t_all is None or math.isnan(head_diff[i]):
                continue
            p_head = p_holm_kept[i]
            out.append(PairedDifference(
                result_a_id=a, result_b_id=b, figure=fid, diff=_num(head_diff[i]),
                ci_low=_num(head_low[i]), ci_high=_num(head_high[i]), p_value=head_p_kept[i], p_holm=p_head,
                significant=p_head is not None and p_head < alpha, se=_num(head_se[i]), family=family,
                cells_family=families[i], agreement=agreement[i],
                cells={"genres": strata, "types": types, "values": tables[i]}))
    return out


def _agreement(diff: np.ndarray, se: np.ndarray, p: np.ndarray, alpha: float) -> list[dict]:
    """Per pair, "A is better than B in k of N genres": the raw counts and the error-controlled ones (Dror et al.
    2017), from one-sided p-values per genre (arrays of shape (pairs, genres)), in each direction. Under
    approximate randomisation, which gives no standard error, the one-sided p is half the two-sided one in
    the observed direction."""
    if np.isnan(se).all():
        defined = ~(np.isnan(diff) | np.isnan(p))
        half = p / 2
        a_better, b_better = np.where(diff > 0, half, 1 - half), np.where(diff < 0, half, 1 - half)
    else:
        defined = ~(np.isnan(diff) | np.isnan(se))
        a_better = paired.normal_p(diff, se, one_sided=True)
        b_better = paired.normal_p(-diff, se, one_sided=True)
    a_better, b_better = np.where(defined, a_better, np.nan), np.where(defined, b_better, np.nan)
    columns = {"genres": defined.sum(axis=1), "a_better": ((diff > 0) & defined).sum(axis=1),
               "b_better": ((diff < 0) & defined).sum(axis=1)}
    for side, one_sided in (("a", a_better), ("b", b_better)):
        for method in ("bonferroni", "fisher"):
            columns[f"{side}_better_{method}"] = paired.replicability_counts(one_sided, alpha, method)
    return [dict(zip(columns, values)) for values in zip(*(c.tolist() for c in columns.values()))]


# -- reading (pages and the API: never a test computed here) -----------------------------------

def latest_set(campaign: Campaign) -> SignificanceSet | None:
    return SignificanceSet.objects.filter(campaign=campaign, complete=True).order_by("-created_at", "-pk").first()


HEADLINE_FIELDS = ("result_a_id", "result_b_id", "figure", "diff", "ci_low", "ci_high", "p_value", "p_holm",
                   "significant", "se", "family", "cells_family", "agreement")


def headline_pairs(computed: SignificanceSet | None, figure: str, result_ids) -> dict[tuple[int, int], dict]:
    """``{(a, b): headline}`` (see :func:`headline`) for both orders of every pair of ``result_ids`` (one query).

    The difference is always the first result minus the second.
    """
    if computed is None:
        return {}
    ids = list(result_ids)
    rows = computed.pairs.filter(figure=figure, result_a__in=ids, result_b__in=ids).values(*HEADLINE_FIELDS)
    out = {}
    for r in rows:
        a, b = r["result_a_id"], r["result_b_id"]
        out[(a, b)] = headline(r, 1, computed.alpha)
        out[(b, a)] = headline(r, -1, computed.alpha)
    return out


def headline(r: dict, sign: int, alpha: float) -> dict:
    """A stored pair's headline, oriented (``sign`` −1: the second run minus the first): the difference, its
    interval, standard error, p-value, Holm-adjusted p across ``family`` pairs, verdict, minimum detectable
    effect and agreement across genres."""
    flip = (lambda v: None if v is None else sign * v)
    low, high = flip(r["ci_low"]), flip(r["ci_high"])
    if sign < 0:
        low, high = high, low
    se, family = r.get("se"), r.get("family") or 0
    agreement = dict(r.get("agreement") or {})
    if sign < 0:
        agreement = swapped(agreement)
    return {"diff": flip(r["diff"]), "ci": None if low is None else [low, high], "se": se, "p": r["p_value"],
            "p_holm": r["p_holm"], "significant": r["significant"], "family": family,
            "mde": None if se is None else round(paired.detectable(se, alpha), 6),
            "mde_family": None if se is None else round(paired.detectable(se, alpha, family=max(family, 1)), 6),
            "agreement": agreement}


def swapped(agreement: dict) -> dict:
    """The agreement across genres of B against A, from that of A against B."""
    swap = {"a_": "b_", "b_": "a_"}
    return {swap.get(k[:2], k[:2]) + k[2:]: v for k, v in agreement.items()}


def pair_tables(computed: SignificanceSet | None, a: int, b: int, figures: list[str] | None = None) -> dict[str, dict]:
    """``{figure: {"headline": headline, "cells": {genre: {type: cell}}, "cells_family": n}}`` of result ``a``
    minus result ``b``: the headline is the pair's stored headline (the family of every pair of the figure),
    each other cell ``{diff, ci, se, p, p_bh, significant}`` (Benjamini–Hochberg across the table).
    ``figures``: only those (a pair's tables of every figure are large)."""
    if computed is None:
        return {}
    pairs = computed.pairs if figures is None else computed.pairs.filter(figure__in=figures)
    sign, rows = 1, list(pairs.filter(result_a=a, result_b=b).values(*HEADLINE_FIELDS, "cells"))
    if not rows:
        sign, rows = -1, list(pairs.filter(result_a=b, result_b=a).values(*HEADLINE_FIELDS, "cells"))
    out = {}
    for row in rows:
        cells: dict[str, dict[str, dict]] = {}
        stored = row["cells"] or {}
        for genre, values in zip(stored.get("genres", []), stored.get("values", [])):
            for type_, c in zip(stored["types"], values):
                if c is None or c[0] is None:  # undefined in both runs, or the headline (stored as the pair's)
                    continue
                cell = dict(zip(CELL_FIELDS, c))
                half = None if cell["se"] is None else paired.Z_CI * cell["se"]
                cells.setdefault(genre, {})[type_] = {
                    **headline({"diff": cell["diff"], "ci_low": None if half is None else round(cell["diff"] - half, 6),
                                "ci_high": None if half is None else round(cell["diff"] + half, 6), "se": cell["se"],
                                "p_value": cell["p"], "p_holm": None, "significant": None}, sign, computed.alpha),
                    "p_bh": cell["p_bh"], "significant": cell["p_bh"] is not None and cell["p_bh"] < computed.alpha}
        head = headline(row, sign, computed.alpha)
        cells.setdefault(stats.ALL, {})[stats.ALL] = head
        out[row["figure"]] = {"headline": head, "cells": cells, "cells_family": row["cells_family"]}
    return out


def ranking(scores: dict[int, float | None], pairs: dict[tuple[int, int], dict]) -> list[paired.Ranked]:
    """Results ordered by score, with rank ranges and clusters, from stored headline pairs."""
    return paired.rank_clusters(scores, lambda x, y: bool(pairs.get((x, y), {}).get("significant")))


def enqueue(campaign_id: int) -> None:
    """Ask a worker for the campaign's tests (at most one pending computation per campaign does the work:
    :mod:`evaluation.significance.tasks`); never lets a broker problem fail the caller (scoring, publication)."""
    try:
        kinds.enqueue(SIGNIFICANCE_TASK, campaign_id, requested=SignificanceRequest.ask(campaign_id))
    except Exception:  # the tests can be asked for again; the score or the snapshot must stand
        logger.exception("could not enqueue the significance tests of campaign %s", campaign_id)


def on_test_result_stored(sender, run, **kwargs) -> None:
    """A test run was scored (:data:`evaluation.pipeline.signals.test_result_stored`): its campaign's pairs are
    tested again."""
    enqueue(run.campaign_id)


def visible_significance(user, campaign: Campaign):
    """The significance set ``user`` is shown, or None: organisers the newest; everyone else the newest from
    `released` on (:func:`campaign.visibility.can_see_significance`). Pair it with what
    :func:`visible_results` shows: the pairs are read between those runs only."""
    return latest_set(campaign) if visibility.can_see_significance(user, campaign) else None


def served_significance(user, campaign: Campaign, document: dict) -> dict:
    """The significance document as ``user`` receives it: until the gold is released, without the order in
    which results were made.

    Result ids are given out as scoring ends, and a pair's run A is the one whose result came first, so
    result ids, the pairs' orientation and their order would tell which run finished scoring first. For
    those who may not see scoring times each pair is turned to run A = the lower run id (an upload order,
    which the team knows), the difference and its interval negated where that turns it, the result ids
    left out, and the pairs sorted by figure and runs."""
    if not document.get("pairs") or visibility.can_see_scoring_times(user, campaign):
        return document
    pairs = []
    for pair in document["pairs"]:
        pair = {k: v for k, v in pair.items() if k not in ("result_a", "result_b")}
        if pair["run_a"] > pair["run_b"]:
            ci = pair.get("ci")
            pair.update(run_a=pair["run_b"], run_b=pair["run_a"],
                        diff=None if pair["diff"] is None else -pair["diff"],
                        ci=None if ci is None else [-ci[1], -ci[0]])
            if pair.get("agreement"):  # the genres where each run is better, turned with the pair
                pair["agreement"] = swapped(pair["agreement"])
        pairs.append(pair)
    pairs.sort(key=lambda p: (p["figure"], p["run_a"], p["run_b"]))
    return dict(document, pairs=pairs)


__all__ = ["SIGNIFICANCE_TASK", "compute", "enqueue", "headline", "headline_pairs", "latest_set", "pair_tables", "ranking", "served_significance",
           "visible_significance"]
