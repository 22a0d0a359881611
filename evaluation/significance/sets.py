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
  comparison page's headline and the API all read (``p_holm`` of :func:`headline`);
* the other cells of a comparison table (one pair, one figure, genre × type)
  are exploratory: Benjamini–Hochberg adjusted (false discovery rate) across
  that table's cells (``cells``), the headline cell left out of that family
  since it already has its own p-value.

Pages never compute a test: they read the newest set (:func:`latest_set`).
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import time
from collections import Counter
from collections.abc import Mapping

import numpy as np
from django.db import transaction
from django.dispatch import Signal
from django.db.models import Q

from campaign import audit, kinds, visibility
from campaign.models import Campaign
from parseval.evaluation import paired, stats
from parseval.evaluation.figure_sets import figure_id
from evaluation.models import Result, SignificanceFigure, SignificanceRequest, SignificanceSet, SignificanceTable
from evaluation.significance import packing, run_cache
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


def _round6(values) -> np.ndarray:
    """``round(v, 6)`` of every value, as Python rounds a float (the double nearest its decimal rounding), NaN
    kept: 10**6·v rounded to an integer and divided back gives that double unless 10**6·v lies within
    rounding of a half, where its rounding could go the other way: those few are rounded by Python."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        y = x * 1e6
        out = np.rint(y) / 1e6
        doubt = ~(np.abs(y) < 2.0 ** 50) | (np.abs(y - np.floor(y) - 0.5) <= 2 * np.spacing(np.abs(y)))
    for k in np.flatnonzero(doubt & ~np.isnan(x)):
        out.flat[k] = round(float(x.flat[k]), 6)
    return out


def _significant(p: np.ndarray) -> np.ndarray:
    """p-values kept to 6 significant digits (not decimals: a p of 1e-9 must not become 0). The power of ten
    is taken one exponent at a time, as for a single p-value: numpy's vectorised power differs from it in
    the last bit for some exponents, and a p-value must be kept the same in an array as alone."""
    p = np.asarray(p, dtype=np.float64)
    normal = p > 1e-290  # below, the scale would overflow: kept as it is
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        digits = 5 - np.floor(np.log10(np.where(normal, p, 1.0)))
        if np.ndim(digits):
            exponents, where = np.unique(digits, return_inverse=True)
            scale = np.array([10.0 ** np.float64(e) for e in exponents])[where].reshape(digits.shape)
        else:
            scale = 10.0 ** digits
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
    """Every pair of the campaign's results table, on every figure, as one new set: the pairs already computed
    in the same context are kept as they are, only the pairs a new run adds are computed, and the corrections
    are recomputed over the raw values of every pair (:func:`_store_figures`)."""
    started = time.perf_counter()
    options = settings_of(campaign)
    result_ids = sorted(latest_result_ids(list(scored_runs(campaign))).values())
    loaded, skipped = {}, []
    # One result has nothing to be compared with: its rows are not computed until a second one comes.
    candidates = Result.objects.filter(pk__in=result_ids if len(result_ids) >= 2 else [])
    parameters = {}
    distinct: list = []  # one copy of each list of test sentences (a hundred runs: one, not a hundred)
    # Not the results' documents (the engine's whole output: megabytes each), read once per result (run_cache).
    for result in candidates.select_related("run__campaign").defer("document").order_by("pk"):
        try:  # the test sentences only: a run's rows are read when its figures are not kept (run_cache)
            sentences_of, parameters[result.pk] = run_cache.sentences(result)
            same = next((s for s in distinct if np.array_equal(s.keys, sentences_of.keys)
                         and np.array_equal(s.strata, sentences_of.strata)), None)
            if same is None:
                distinct.append(sentences_of)
            loaded[result.pk] = (result, sentences_of if same is None else same)
        except RowsUnavailable as exc:
            skipped.append({"result": result.pk, "reason": str(exc)})
    kept: dict = {}
    sentences: dict[str, int] = {}
    resamples = options["resamples"]
    # Runs of different tracks of a dependency campaign are not comparable: each track is compared within.
    by_track: dict[str, dict] = {}
    for pk, entry in loaded.items():
        by_track.setdefault((parameters.get(pk) or {}).get("track") or "", {})[pk] = entry

    # No transaction is held over the computation (on SQLite, one writer at a time, it kept the web's uploads
    # and the scoring worker waiting past their busy timeout; on PostgreSQL it pinned a snapshot for minutes):
    # each figure set's new tables are written in their own short transaction, the new set is marked
    # incomplete (no reader picks it: :func:`latest_set`) until :func:`_replace` swaps it in.
    computed = SignificanceSet.objects.create(campaign=campaign, method=options["method"], resamples=resamples,
                                              seed=options["seed"], alpha=options["alpha"], signature="",
                                              complete=False)
    try:
        for track, group in sorted(by_track.items()):
            group, more = _comparable(group)
            skipped += more
            kept.update(group)
            if len(group) < 2:
                continue
            ordered = dict(sorted(group.items()))
            first_result, first_rows = next(iter(ordered.values()))
            figures = kinds.get(first_result.metric).paired_figures(first_result)  # its document read: one
            strata = list(first_rows.strata)
            sentences = {**{str(g): n for g, n in Counter(strata).items()}, stats.ALL: len(strata)}
            drawn = options["resamples"]
            if options["method"] == "ar":  # a counted p-value must be able to reach its families' strictest step
                drawn = max(drawn, paired.shuffles_needed(_largest_family(len(ordered), figures, strata),
                                                          options["alpha"]))
            resamples = max(resamples, drawn)
            context = _context(options, drawn, first_result.gold_sha256, first_rows, figures)
            _add_tables(campaign, context, ordered, strata, figures, options, drawn)
            computed.stored += _store_figures(computed, track, context, list(ordered), figures)
    except BaseException:
        SignificanceSet.objects.filter(pk=computed.pk).delete()  # a killed worker's leftovers: see _replace
        raise
    computed.resamples = resamples
    computed.signature = signature(options["method"], resamples, options["seed"], options["alpha"])
    computed.results, computed.skipped, computed.sentences = sorted(kept), skipped, sentences
    computed.seconds = time.perf_counter() - started
    _replace(campaign, computed, {pk: result for pk, (result, _) in kept.items()})
    set_stored.send(sender=SignificanceSet, computed=computed)
    return computed


FORMAT = 1  # of the stored tables and of what a context names: a new format is a new context


def _context(options: dict, drawn: int, gold_sha256: str, rows, figures) -> str:
    """What a pair's stored values depend on besides its two results: the test, its draws (the seed, the
    number of resamples, the sentences and their genres), the figures and α (the agreement across genres).
    Pairs of one context are computed once; a new context (another seed, gold, figure...) recomputes all."""
    digest = hashlib.sha256()
    digest.update(json.dumps([FORMAT, options["method"], drawn, options["seed"], options["alpha"], gold_sha256,
                              [list(map(str, k)) for k in paired.keys_of(figures)]]).encode())
    digest.update(np.ascontiguousarray(rows.keys).astype(str).tobytes())
    digest.update(np.ascontiguousarray(rows.strata).astype(str).tobytes())
    return digest.hexdigest()


def pair_index(i: int, j: int, n: int) -> int:
    """The place of pair (results[i], results[j]), i < j, among the n·(n − 1)/2 pairs of n results."""
    return i * (2 * n - i - 1) // 2 + (j - i - 1)


AGREEMENT = ("genres", "a_better", "b_better", "a_better_bonferroni", "a_better_fisher", "b_better_bonferroni",
             "b_better_fisher")


def _figure_ids(figures) -> list[str]:
    """The page tables the figures fill (those with an all-types column: a headline)."""
    return [fid for fid, (types, _) in _tables(paired.keys_of(figures)).items() if stats.ALL in types]


def _add_tables(campaign, context: str, ordered: dict, strata, figures, options: dict, drawn: int) -> None:
    """Computes and stores the pairs of ``ordered`` not yet stored in ``context``: those of the runs that came
    since, none for a run withdrawn (its pairs are left out of the set: :func:`_store_figures`)."""
    ids = list(ordered)
    present: dict[tuple[str, int], set[int]] = {}
    for figure, b, others in SignificanceTable.objects.filter(context=context, result_b__in=ids).values_list(
            "figure", "result_b", "others"):
        present.setdefault((figure, b), set()).update(others)
    fids = _figure_ids(figures)
    # the runs a whose pair (a, b) is stored on every figure
    complete = {b: set.intersection(*(present.get((fid, b), set()) for fid in fids)) if fids else set() for b in ids}
    missing = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if fids and a not in complete[b]]
    if not missing:
        return
    results = {pk: result for pk, (result, _) in ordered.items()}
    prepared = None
    if options["method"] == "ar":  # every pair shuffled from the two runs' rows
        runs = {pk: _compact(rows_of(result).rows) for pk, result in results.items()}
    else:
        # Each run's figures kept per result and context (run_cache): computed once, the first time the result
        # is compared, its rows read only then, one run at a time.
        runs = _LazyRows(results)
        draws = functools.cache(lambda: paired.shared_draws(strata, drawn, options["seed"]))
        strata_count = len(set(strata)) + 1

        def prepared(pk):
            return run_cache.run_figures(results[pk], context, figures, strata_count, len(strata), draws,
                                         lambda: _compact(rows_of(results[pk]).rows))
    missing.sort(key=lambda pair: (pair[1], pair[0]))  # by second run: a block of pairs holds its whole tables
    for part in paired.compare_parts(runs, strata, figures, method=options["method"], resamples=drawn,
                                     seed=options["seed"], pairs=missing, prepared=prepared,
                                     pairs_at_once=PAIRS_AT_ONCE):
        _store(_table_rows(campaign, context, part, options["alpha"], present))


class _LazyRows(Mapping):
    """``{result id: its rows}``, each read when first asked for (and kept for this computation)."""

    def __init__(self, results: dict):
        self.results, self.read = results, {}

    def __getitem__(self, pk):
        if pk not in self.read:
            self.read[pk] = _compact(rows_of(self.results[pk]).rows)
        return self.read[pk]

    def __iter__(self):
        return iter(self.results)

    def __len__(self):
        return len(self.results)


PAIRS_AT_ONCE = 1000  # pairs of one figure set tested and stored at a time (a hundred runs: 4,950)


def _table_rows(campaign, context: str, compared: paired.Compared, alpha: float,
                present: dict) -> list[SignificanceTable]:
    """One row per figure and second result: the raw values of its pairs not yet stored."""
    strata = compared.strata
    s_all = strata.index(stats.ALL)
    genres = [s for s in range(len(strata)) if s != s_all]
    by_b: dict[int, list[int]] = {}
    for k, (a, b) in enumerate(compared.pairs):
        by_b.setdefault(b, []).append(k)
    out = []
    for fid, (types, index) in _tables(compared.keys).items():
        if stats.ALL not in types:
            continue
        index = np.array(index)
        t_all = types.index(stats.ALL)
        diff, se, p = (getattr(compared, f)[:, :, index] for f in ("diff", "se", "p"))
        agreement = _agreement(diff[:, genres, t_all], se[:, genres, t_all], p[:, genres, t_all], alpha)
        heads = np.stack([diff[:, s_all, t_all], se[:, s_all, t_all], p[:, s_all, t_all]], axis=1)
        cells = np.stack([diff, se, p], axis=1).astype(np.float32)  # (pairs, 3, strata, types)
        for b, ks in by_b.items():
            have = present.get((fid, b), set())
            ks = [k for k in ks if compared.pairs[k][0] not in have]
            if not ks:
                continue
            out.append(SignificanceTable(
                campaign=campaign, context=context, figure=fid, result_b_id=b,
                others=[compared.pairs[k][0] for k in ks], strata=list(strata), types=list(types),
                heads=packing.pack({"heads": heads[ks], "agreement": agreement[ks]}),
                cells=packing.pack({"cells": cells[ks]})))
    return out


def _store(rows: list[SignificanceTable]) -> None:
    with transaction.atomic():
        SignificanceTable.objects.bulk_create(rows, batch_size=200)


def _store_figures(computed: SignificanceSet, track: str, context: str, ids: list[int], figures) -> int:
    """The set's figure rows of one track: every pair's raw headline, and the Holm correction across the pairs
    of each figure recomputed over them. Returns the pairs × figures with a difference.

    A pair's raw headline depends on the pair and the context only, so the pairs of the newest set in the same
    context (the set this one replaces) are taken from its figure rows as they are; only the others (a new
    run's) are unpacked from the stored tables, those whose second run has a pair still to find."""
    n = len(ids)
    count = n * (n - 1) // 2
    first, second = np.triu_indices(n, 1)  # the order of pair_index
    fids = _figure_ids(figures)
    arrays = {fid: (np.full((count, 3), np.nan), np.zeros((count, len(AGREEMENT)), dtype=np.int32),
                    np.zeros(count, dtype=bool)) for fid in fids}
    previous = latest_set(computed.campaign)
    if previous is not None:
        rows = previous.figures.filter(track=track, context=context, figure__in=fids)
        for figure, results, blob in rows.values_list("figure", "results", "heads"):
            old = {pk: i for i, pk in enumerate(results)}
            at = np.array([old.get(pk, -1) for pk in ids], dtype=np.int64)
            both = (at[first] >= 0) & (at[second] >= 0)
            i, j, m = at[first[both]], at[second[both]], len(results)  # i < j: both lists are sorted
            unpacked = packing.unpack(blob)
            heads, agreement, known = arrays[figure]
            heads[both] = unpacked["heads"][i * (2 * m - i - 1) // 2 + (j - i - 1)]
            agreement[both] = unpacked["agreement"][i * (2 * m - i - 1) // 2 + (j - i - 1)]
            known[both] = True
    wanted = sorted({ids[j] for _, _, known in arrays.values() for j in second[~known]})
    where = {pk: i for i, pk in enumerate(ids)}
    tables = SignificanceTable.objects.filter(context=context, result_b__in=wanted, figure__in=fids).order_by("pk")
    for figure, b, others, blob in tables.values_list("figure", "result_b", "others", "heads"):
        heads, agreement, known = arrays[figure]
        j = where[b]
        rows, ks = [], []
        for row, a in enumerate(others):
            i = where.get(a)
            if i is not None and i < j and not known[pair_index(i, j, n)]:
                rows.append(row)
                ks.append(pair_index(i, j, n))
        if ks:
            unpacked = packing.unpack(blob)
            heads[ks] = unpacked["heads"][rows]
            agreement[ks] = unpacked["agreement"][rows]
    stored, rows = 0, []
    for fid, (heads, agreement, _) in arrays.items():
        p_holm = paired.holm_adjust(heads[:, 2])  # the family: every pair of this figure (with a p-value)
        stored += int((~np.isnan(heads[:, 0])).sum())
        rows.append(SignificanceFigure(set=computed, track=track, figure=fid, context=context, results=ids,
                                       family=int((~np.isnan(heads[:, 2])).sum()), heads=packing.pack(
                                           {"heads": heads, "p_holm": p_holm, "agreement": agreement})))
    with transaction.atomic():
        SignificanceFigure.objects.bulk_create(rows, batch_size=100)
    return stored


def _replace(campaign: Campaign, computed: SignificanceSet, results: dict[int, Result]) -> None:
    """In one short transaction: the new set becomes the campaign's, the sets before the one it replaces are
    removed (with their figure rows), the tables no kept set reads are removed, and the audit log records
    what the computation compared.

    Readers see the old set or the new one, whole: the new one is invisible until marked complete, and the
    one it replaces is kept until the next computation, for a reader that took it just before this commit
    (with the tables it reads). The campaign's row is locked first, so that two computations of one campaign
    (a redelivery beside a new request) replace one after the other, never leaving two sets. Nothing that
    outlives a set refers to it: the published snapshot and the bundle carry their own frozen copy of what
    they show, and the design aid's cache is keyed by the set's id. The audit keeps what reproduces a set
    (the results and runs, scorer versions, gold, method, resamples, seed, signature) and the checksum of its
    headlines, not the rows themselves."""
    checksum = set_checksum(computed)
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()
        computed.complete = True
        computed.save(update_fields=["resamples", "signature", "results", "skipped", "sentences", "seconds",
                                     "complete", "stored"])
        # Every other set of the campaign but the one just replaced: older complete ones, and the incomplete
        # leftovers of a killed worker. The set just replaced stays until the next computation, because a page
        # reads a set and then its pairs in separate queries: one that took the old set just before this commit
        # still finds its pairs. Storage stays bounded by two sets per campaign.
        others = SignificanceSet.objects.filter(campaign=campaign).exclude(pk=computed.pk)
        replaced = others.filter(complete=True).order_by("-created_at", "-pk").first()
        superseded = list(others.exclude(pk=getattr(replaced, "pk", None)).values_list("pk", flat=True))
        SignificanceSet.objects.filter(pk__in=superseded).delete()  # with their figure rows
        needed = Q(pk__in=[])
        for kept_set in (computed, replaced):
            if kept_set is not None:
                for context in set(kept_set.figures.values_list("context", flat=True)):
                    needed |= Q(context=context, result_b__in=kept_set.results)
        SignificanceTable.objects.filter(campaign=campaign).exclude(needed).delete()
        audit.record(SIGNIFICANCE_COMPUTED, campaign=campaign, target=f"significance set {computed.pk}", details={
            "set": computed.pk, "results": sorted(results), "runs": sorted(r.run_id for r in results.values()),
            "scorer_versions": sorted({r.scorer_version for r in results.values()}),
            "gold_sha256": sorted({r.gold_sha256 for r in results.values()}),
            "method": computed.method, "resamples": computed.resamples, "seed": computed.seed,
            "alpha": computed.alpha, "signature": computed.signature, "skipped": computed.skipped,
            "pairs": computed.stored, "checksum": checksum, "superseded": superseded})


def _set_header(computed: SignificanceSet) -> bytes:
    return json.dumps([computed.method, computed.resamples, computed.seed, computed.alpha, computed.signature,
                       sorted(computed.results), computed.skipped, computed.sentences], sort_keys=True,
                      separators=(",", ":")).encode() + b"\n"


def _figure_bytes(row: SignificanceFigure) -> bytes:
    arrays = packing.unpack(row.heads)
    return (json.dumps([row.track, row.figure, row.context, row.results, row.family],
                       separators=(",", ":")).encode() + b"\n"
            + b"".join(np.ascontiguousarray(arrays[name]).tobytes() for name in ("heads", "p_holm", "agreement")))


def set_checksum(computed: SignificanceSet) -> str:
    """SHA-256 of the set's settings, results and every pair's headline on every figure (raw values, Holm
    correction, agreement), in a canonical order: the same runs and seed give the same checksum. The cells are
    a function of the pair and its context, which the figure rows name."""
    digest = hashlib.sha256(_set_header(computed))
    for row in computed.figures.order_by("track", "figure"):
        digest.update(_figure_bytes(row))
    return digest.hexdigest()


def set_bytes(computed: SignificanceSet) -> bytes:
    """The whole set serialised canonically: settings, results, every figure's headlines and every pair's
    table (raw cell values), pairs in result order. Two sets of the same runs and settings give the same bytes,
    however their pairs were computed (at once, or as runs arrived)."""
    out = [_set_header(computed)]
    for row in computed.figures.order_by("track", "figure"):
        out.append(_figure_bytes(row))
        ids = row.results
        for j, b in enumerate(ids):
            cells = _pair_cells(row.context, row.figure, b, set(ids[:j]))
            for a in ids[:j]:
                out.append(f"{a}-{b}\n".encode() + cells[a].tobytes())
    return b"".join(out)


def _pair_cells(context: str, figure: str, b: int, wanted: set[int]) -> dict[int, np.ndarray]:
    """``{a: cells (3, strata, types)}`` of the pairs (a, b) of one figure, a in ``wanted``."""
    out = {}
    for others, blob in SignificanceTable.objects.filter(context=context, figure=figure, result_b=b).order_by(
            "pk").values_list("others", "cells"):
        if not wanted.intersection(others):
            continue
        cells = packing.unpack(blob)["cells"]
        for row, a in enumerate(others):
            if a in wanted and a not in out:
                out[a] = cells[row]
    return out


def _compact(rows: np.ndarray) -> np.ndarray:
    """Count rows in the smallest unsigned type that holds them (a hundred runs of EASY rows in 8 bits: 280 MB
    instead of 2.2 GB in 64); the resampling multiplies them in float32 either way."""
    if np.issubdtype(rows.dtype, np.integer) and (not rows.size or rows.min() >= 0):
        top = int(rows.max()) if rows.size else 0
        for dtype in (np.uint8, np.uint16, np.int32):
            if top <= np.iinfo(dtype).max:
                return rows.astype(dtype, copy=False)
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


def _agreement(diff: np.ndarray, se: np.ndarray, p: np.ndarray, alpha: float) -> np.ndarray:
    """Per pair (one row of :data:`AGREEMENT` counts), "A is better than B in k of N genres": the raw counts and the error-controlled ones (Dror et al.
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
    return np.stack([np.asarray(columns[name]) for name in AGREEMENT], axis=1).astype(np.int32)


# -- reading (pages and the API: never a test computed here) -----------------------------------

def latest_set(campaign: Campaign) -> SignificanceSet | None:
    return SignificanceSet.objects.filter(campaign=campaign, complete=True).order_by("-created_at", "-pk").first()


HEADLINE_FIELDS = ("result_a_id", "result_b_id", "figure", "diff", "ci_low", "ci_high", "p_value", "p_holm",
                   "significant", "se", "family", "cells_family", "agreement")


def _p_kept(value) -> float | None:
    """A p-value as shown: 6 significant digits; None when undefined."""
    value = float(value)
    return None if math.isnan(value) else float(_significant(np.float64(value)))


def _head_row(a: int, b: int, figure: str, heads: np.ndarray, p_holm: float, agreement: np.ndarray, family: int,
              alpha: float) -> dict:
    """A pair's stored headline as a row of :data:`HEADLINE_FIELDS`: the interval is diff ± 1.96 se."""
    diff, se, p = (float(v) for v in heads)
    low = high = None
    if not math.isnan(se):
        low, high = _num(diff - paired.Z_CI * se), _num(diff + paired.Z_CI * se)
    p_head = _p_kept(p_holm)
    return {"result_a_id": a, "result_b_id": b, "figure": figure, "diff": _num(diff), "ci_low": low,
            "ci_high": high, "p_value": _p_kept(p), "p_holm": p_head,
            "significant": p_head is not None and p_head < alpha, "se": _num(se), "family": family,
            "cells_family": None, "agreement": dict(zip(AGREEMENT, (int(v) for v in agreement)))}


def _defined(row) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """A figure row's unpacked arrays, the results ``a`` and ``b`` of its pairs with a difference (in pair
    order) and which pairs those are."""
    arrays = packing.unpack(row["heads"])
    ids = np.asarray(row["results"], dtype=np.int64)
    first, second = np.triu_indices(len(ids), 1)  # the order of pair_index
    kept = ~np.isnan(arrays["heads"][:, 0])
    return arrays, ids[first[kept]], ids[second[kept]], kept


def defined_pairs(row, alpha: float) -> dict[str, np.ndarray]:
    """``{"a", "b"}``: the results of a figure row's pairs with a difference, in pair order, as
    :func:`headline_columns` gives them, without the headlines."""
    _, a, b, _ = _defined(row)
    return {"a": a, "b": b}


def headline_columns(row, alpha: float) -> dict[str, np.ndarray]:
    """Every pair's headline of one figure row as columns (a NaN where :func:`headline` gives None), pairs in
    result order, those without a difference left out: value for value what :func:`_head_row` then
    :func:`headline` (``sign`` 1) give each pair, for a summary of a hundred runs' 4,950 pairs per figure."""
    arrays, a, b, kept = _defined(row)
    diff, se, p = (arrays["heads"][kept, c] for c in range(3))
    family = row["family"] or 0
    undefined = np.isnan(se)
    se_kept = _round6(se)
    with np.errstate(invalid="ignore"):
        p_holm = _significant(arrays["p_holm"][kept])
        return {"a": a, "b": b, "diff": _round6(diff),
                "ci_low": np.where(undefined, np.nan, _round6(diff - paired.Z_CI * se)),
                "ci_high": np.where(undefined, np.nan, _round6(diff + paired.Z_CI * se)),
                "se": se_kept, "p": _significant(p), "p_holm": p_holm, "significant": p_holm < alpha,
                "family": np.full(len(diff), family, dtype=np.int64), "mde": _round6(paired.detectable(se_kept, alpha)),
                "mde_family": _round6(paired.detectable(se_kept, alpha, family=max(family, 1))),
                "agreement": arrays["agreement"][kept]}


def _figure_heads(row, alpha: float, result_ids=None) -> list[dict]:
    """The headline rows of one figure row, between ``result_ids`` (all when None), in result order; pairs
    without a difference (undefined in both runs) left out."""
    arrays = packing.unpack(row["heads"])
    ids = row["results"]
    n = len(ids)
    wanted = None if result_ids is None else set(result_ids)
    chosen = [(i, pk) for i, pk in enumerate(ids) if wanted is None or pk in wanted]
    out = []
    for x, (i, a) in enumerate(chosen):
        for j, b in chosen[x + 1:]:
            k = pair_index(i, j, n)
            if math.isnan(arrays["heads"][k, 0]):
                continue
            out.append(_head_row(a, b, row["figure"], arrays["heads"][k], arrays["p_holm"][k],
                                 arrays["agreement"][k], row["family"], alpha))
    return out


def stored_figures(computed: SignificanceSet | None) -> list[str]:
    """The figures (page tables) the set has tests for, sorted."""
    if computed is None:
        return []
    return sorted(set(computed.figures.values_list("figure", flat=True)))


def stored_headlines(computed: SignificanceSet | None, result_ids=None, figure: str | None = None) -> list[dict]:
    """Every stored headline (rows of :data:`HEADLINE_FIELDS`) between ``result_ids`` (all when None), of
    ``figure`` (all when None), ordered by figure, then results."""
    if computed is None:
        return []
    rows = computed.figures.all() if figure is None else computed.figures.filter(figure=figure)
    out = []
    for row in rows.values("figure", "results", "family", "heads"):
        out += _figure_heads(row, computed.alpha, result_ids)
    out.sort(key=lambda r: (r["figure"], r["result_a_id"], r["result_b_id"]))
    return out


def headline_pairs(computed: SignificanceSet | None, figure: str, result_ids) -> dict[tuple[int, int], dict]:
    """``{(a, b): headline}`` (see :func:`headline`) for both orders of every pair of ``result_ids`` (one query).

    The difference is always the first result minus the second.
    """
    out = {}
    for r in stored_headlines(computed, list(result_ids), figure):
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


def pair_heads(computed: SignificanceSet | None, low: int, high: int,
               figures: list[str] | None = None) -> dict[str, tuple[dict, str]]:
    """``{figure: (headline row, context)}`` of the pair ``low`` < ``high`` (a row of :data:`HEADLINE_FIELDS`,
    ``low`` minus ``high``) on each figure (``figures``: only those) whose row compares them with a
    difference."""
    if computed is None:
        return {}
    rows = computed.figures.all() if figures is None else computed.figures.filter(figure__in=figures)
    out = {}
    for row in rows.values("figure", "results", "family", "heads", "context"):
        if low in row["results"] and high in row["results"]:
            found = _figure_heads(row, computed.alpha, [low, high])
            if found:
                out[row["figure"]] = (found[0], row["context"])
    return out


def _tables_of_pair(computed: SignificanceSet, low: int, high: int, figures: list[str] | None):
    """``(figure, headline row, cells (3, strata, types), strata, types)`` of the pair ``low`` < ``high`` on each
    figure (``figures``: only those) whose row compares them: its stored table's cells, ``low`` minus ``high``."""
    heads, contexts = {}, {}
    for figure, (head, context) in pair_heads(computed, low, high, figures).items():
        heads[figure] = head
        contexts.setdefault(context, []).append(figure)
    seen = set()
    for context, names in contexts.items():
        tables = SignificanceTable.objects.filter(context=context, result_b=high, figure__in=names).order_by("pk")
        for figure, others, strata, types, blob in tables.values_list("figure", "others", "strata", "types",
                                                                      "cells"):
            if figure in seen or low not in others:
                continue
            seen.add(figure)
            cells = packing.unpack(blob)["cells"][others.index(low)].astype(np.float64)
            yield figure, heads[figure], cells, strata, types


def pair_tables(computed: SignificanceSet | None, a: int, b: int, figures: list[str] | None = None) -> dict[str, dict]:
    """``{figure: {"headline": headline, "cells": {genre: {type: cell}}, "cells_family": n}}`` of result ``a``
    minus result ``b``: the headline is the pair's stored headline (the family of every pair of the figure),
    each other cell ``{diff, ci, se, p, p_bh, significant}`` (Benjamini–Hochberg across the table, recomputed
    here over the stored raw p-values). ``figures``: only those."""
    if computed is None:
        return {}
    low, high = min(a, b), max(a, b)
    sign = 1 if a == low else -1
    out = {}
    for figure, head_row, cells, strata, types in _tables_of_pair(computed, low, high, figures):
        head = headline(head_row, sign, computed.alpha)
        table, family = _cells(cells, strata, types, sign, computed.alpha)
        table.setdefault(stats.ALL, {})[stats.ALL] = head
        out[figure] = {"headline": head, "cells": table, "cells_family": family}
    return out


def pair_genre_errors(computed: SignificanceSet | None, a: int, b: int,
                      figures: list[str] | None = None) -> dict[str, dict[str, float | None]]:
    """``{figure: {genre or ALL: standard error}}`` of the pair's difference: what :func:`pair_tables` gives as
    each genre's all-types cell's ``se`` (None where that cell is undefined; a genre none of whose cells is
    defined left out) and the headline's over all genres, without building the table."""
    if computed is None:
        return {}
    out = {}
    for figure, head_row, cells, strata, types in _tables_of_pair(computed, min(a, b), max(a, b), figures):
        diff, se, _ = cells
        s_all, t_all = strata.index(stats.ALL), types.index(stats.ALL)
        defined = ~np.isnan(diff)
        defined[s_all, t_all] = False  # the headline's own cell
        found = {genre: None if np.isnan(diff[k, t_all]) else _num(se[k, t_all])
                 for k, genre in enumerate(strata) if defined[k].any() and k != s_all}
        found[stats.ALL] = head_row["se"]
        out[figure] = found
    return out


def _cells(cells: np.ndarray, strata: list[str], types: list[str], sign: int,
           alpha: float) -> tuple[dict[str, dict[str, dict]], int]:
    """A pair's genre × type table but the headline, with the Benjamini–Hochberg correction across its cells."""
    diff, se, p = cells
    p = p.copy()
    s_all, t_all = strata.index(stats.ALL), types.index(stats.ALL)
    p[s_all, t_all] = np.nan  # the headline has its own p-value, in its own family
    p_bh = paired.bh_adjust(p.reshape(-1)).reshape(p.shape)
    family = int((~np.isnan(p)).sum())
    out: dict[str, dict[str, dict]] = {}
    for s_, genre in enumerate(strata):
        for t, type_ in enumerate(types):
            d = _num(diff[s_, t])
            if d is None or (s_ == s_all and t == t_all):  # undefined in both runs, or the headline
                continue
            e = _num(se[s_, t])
            bh = _p_kept(p_bh[s_, t])
            out.setdefault(genre, {})[type_] = {
                **headline({"diff": d, "ci_low": None if e is None else _num(d - paired.Z_CI * e),
                            "ci_high": None if e is None else _num(d + paired.Z_CI * e), "se": e,
                            "p_value": _p_kept(p[s_, t]), "p_holm": None, "significant": None}, sign, alpha),
                "p_bh": bh, "significant": bh is not None and bh < alpha}
    return out, family


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


__all__ = ["SIGNIFICANCE_TASK", "compute", "enqueue", "headline", "headline_pairs", "latest_set", "pair_genre_errors",
           "pair_heads", "pair_tables", "ranking", "served_significance", "set_bytes", "set_checksum", "stored_figures", "stored_headlines",
           "visible_significance"]
