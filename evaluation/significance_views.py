"""Ranking with ties and the comparison of two runs: pages and JSON read the stored paired tests.

Nothing here computes a test (:mod:`evaluation.significance` does, in a
worker). What a user sees is what :func:`summaries.visible_results` lets them
see: pairs are shown only between runs of the visible table.
"""
from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import render

from campaign import kinds, tracks, visibility

from . import metrics, significance, summaries
from .kinds import pages as kind_pages
from .figure_sets import figure_id, parse_figure_id
from .ranking_chart import dot_plot
from .stats import ALL
from .text import percent
from .views import _campaign_or_404


def _figure_label(figure: str) -> str:
    """A figure's readable name: the registry's name of its layer (EASY's layers are already words), its way and
    its aggregation."""
    f = parse_figure_id(figure)
    layer = metrics.layers().get(f["layer"])
    parts = [layer.label if layer else f["layer"], f["mode"], f["match"], "micro" if f["aggregation"] == "micro" else "macro (mean of types)"]
    return " · ".join(p for p in parts if p)


def _explained(figures) -> list:
    """The registry's layers of ``figures``, in registry order: what the page explains (EASY's layers are not in it)."""
    codes = {parse_figure_id(f)["layer"] for f in figures}
    return [kind_pages.header(layer) for code, layer in metrics.layers().items() if code in codes]


def _headline_cells(runs: list[dict]) -> dict[str, dict[int, dict]]:
    """``{figure: {result id: cell}}`` of every pooled cell (all genres, all types) of the visible runs."""
    out: dict[str, dict[int, dict]] = {}
    for run in runs:
        for c in run["cells"]:
            if c["genre"] == ALL and c["type"] == ALL:
                fid = figure_id(c["aggregation"], c["layer"], c["mode"] or "", c["match"] or "")
                out.setdefault(fid, {})[run["result"]["id"]] = c
    return out


def _pooled_only(request, campaign):
    """What the user may see of the results, narrowed to the pooled cells (all genres, all types) of every way:
    all a ranking or a comparison's header needs. ``("", "")`` names no way, so only the pooled cells remain."""
    return summaries.visible_results(request.user, campaign, way=("", ""))


def _choose_figure(request, cells: dict[str, dict]) -> str | None:
    wanted = request.GET.get("figure")
    if wanted in cells:
        return wanted
    for preferred in ("micro|relations|HYP|EQUAL", "micro|evalb||", "micro|deps-las||"):
        if preferred in cells:
            return preferred
    return next(iter(sorted(cells)), None)


def ranking_context(request, campaign) -> dict:
    visible = _pooled_only(request, campaign)
    runs = [] if visible.empty else visible.data["runs"]
    runs, track, track_choices = _one_track(request, runs)
    cells = _headline_cells(runs)
    figure = _choose_figure(request, cells)
    computed = summaries.visible_significance(request.user, campaign)
    by_result = {r["result"]["id"]: r for r in runs}
    rows, chart, headline = [], None, "f"
    if figure:
        # F, else recall (GEIG 1991 publishes no F): the figure the layer heads its pages with.
        headline = "f" if any(c.get("f") is not None for c in cells[figure].values()) else "r"
        scores = {rid: cells[figure].get(rid, {}).get(headline) for rid in by_result}
        pairs = significance.headline_pairs(computed, figure, by_result)
        tested = computed is not None and all(rid in computed.results for rid in by_result)
        ranked = significance.ranking(scores, pairs if tested else {})
        for i, r in enumerate(ranked):
            cell = cells[figure].get(r.run, {})
            ci = cell.get("ci")
            nxt = ranked[i + 1].run if i + 1 < len(ranked) else None
            rows.append({"run": by_result[r.run], "rank": r, "f": percent(r.score),
                         "ci": f"{percent(ci[0])}–{percent(ci[1])}" if ci else "",
                         "new_cluster": i > 0 and r.cluster != ranked[i - 1].cluster,
                         "next": by_result[nxt] if nxt else None,
                         "vs_next": pairs.get((r.run, nxt)) if nxt else None})
        chart = dot_plot([(f"{row['run']['label']} / {row['run']['name']}", row["rank"].score,
                           *(cells[figure].get(row["rank"].run, {}).get("ci") or (None, None)))
                          for row in rows], title=f"Ranking by {_figure_label(figure)}")
    return {"campaign": campaign, "visible": visible, "figure": figure, "figure_label": _figure_label(figure) if figure
            else "", "score_label": "Recall (%)" if figure and headline == "r" else "F (%)", "figures": [(f, _figure_label(f)) for f in sorted(cells)], "rows": rows, "chart": chart,
            "computed": computed, "kind": kinds.for_campaign(campaign).name, "explained": _explained(cells),
            "track": track, "tracks": track_choices,
            "figure_layer": parse_figure_id(figure)["layer"] if figure else "",
            "diagnostics": visible.source == "live" and getattr(kinds.for_campaign(campaign), "has_diagnostics", False), "tested": bool(figure) and computed is not None and
            all(rid in computed.results for rid in by_result)}


def _one_track(request, runs: list[dict]) -> tuple[list[dict], str, list[tuple[str, str]]]:
    """Runs of different tracks (dependency campaigns) are not comparable: the ranking shows one track at a
    time (``?track=``, by default the first), ``(runs, track, [(track, label)])``."""
    order = list(tracks.TRACKS)
    present = sorted({r.get("track") or "" for r in runs}, key=lambda t: (order.index(t) if t in order else len(order), t))
    if len(present) <= 1:
        return runs, present[0] if present else "", []
    track = request.GET.get("track")
    if track not in present:
        track = present[0]
    return [r for r in runs if (r.get("track") or "") == track], track, [(t, tracks.track_label(t)) for t in present]


def ranking_page(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "results/ranking.html", ranking_context(request, campaign))


def _run_entry(runs: list[dict], run_id: int) -> dict:
    for r in runs:
        if r["run"] == run_id:
            return r
    raise Http404("No such run in the results you may see.")


def comparison_page(request, slug: str, run_a: int, run_b: int):
    campaign = _campaign_or_404(request.user, slug)
    visible = _pooled_only(request, campaign)
    runs = [] if visible.empty else visible.data["runs"]
    run_a, run_b = _run_entry(runs, run_a), _run_entry(runs, run_b)
    computed = summaries.visible_significance(request.user, campaign)
    tables = significance.pair_tables(computed, run_a["result"]["id"], run_b["result"]["id"])
    figure = request.GET.get("figure")
    if figure not in tables:
        figure = _choose_figure(request, tables)
    blocks = []
    genre_names = {g["code"]: g["name"] for g in visible.data["genres"]} if runs else {}
    if figure:
        table = tables[figure]
        genres = [ALL] + sorted(g for g in table if g != ALL)
        types = [ALL] + sorted({t for g in table.values() for t in g} - {ALL})
        blocks = [{"type": t, "cells": [_diff_cell(table.get(g, {}).get(t)) for g in genres]} for t in types]
        header = [("All genres" if g == ALL else genre_names.get(g, g)) for g in genres]
    else:
        header = []
    summary = [{"figure": f, "label": _figure_label(f), "layer": parse_figure_id(f)["layer"], **_diff_cell(t.get(ALL, {}).get(ALL))}
               for f, t in sorted(tables.items())]
    return render(request, "results/compare.html", {
        "campaign": campaign, "visible": visible, "a": run_a, "b": run_b, "computed": computed, "figure": figure,
        "figure_label": _figure_label(figure) if figure else "", "header": header, "blocks": blocks,
        "summary": summary, "kind": kinds.for_campaign(campaign).name, "explained": _explained(tables)})


def _diff_cell(cell: dict | None) -> dict:
    if not cell:
        return {"diff": "–", "ci": "", "p": "", "significant": False, "sign": ""}
    d = cell["diff"]
    return {"diff": ("+" if d and d > 0 else "") + percent(d), "ci": f"{percent(cell['ci'][0])} to "
            f"{percent(cell['ci'][1])}" if cell.get("ci") else "",
            "p": "" if cell["p_holm"] is None else f"{cell['p_holm']:.3f}", "significant": cell["significant"],
            "sign": "better" if d and d > 0 else "worse" if d and d < 0 else ""}


def significance_document(user, campaign, figure: str | None = None) -> dict:
    """The stored tests between the runs ``user`` may see: the set's signature and every pair's headline."""
    visible = summaries.visible_results(user, campaign, way=("", ""))  # the pooled cells: names and ids
    runs = [] if visible.empty else visible.data["runs"]
    by_result = {r["result"]["id"]: r["run"] for r in runs}
    computed = summaries.visible_significance(user, campaign)
    if computed is None:
        return {"computed": None, "pairs": []}
    pairs = computed.pairs.filter(result_a__in=list(by_result), result_b__in=list(by_result)).order_by(
        "figure", "result_a", "result_b").values("figure", "result_a", "result_b", "diff", "ci_low", "ci_high",
                                                 "p_value", "p_holm", "significant")
    if figure:
        pairs = pairs.filter(figure=figure)
    return summaries.served_significance(user, campaign, {
        # when the set was computed follows the last scoring: organisers only, until gold release
        "computed": {"signature": computed.signature, "created_at": computed.created_at.isoformat()
                     if visibility.can_see_scoring_times(user, campaign) else None,
                     "method": computed.method, "resamples": computed.resamples, "seed": computed.seed,
                     "alpha": computed.alpha, "correction": "holm"},
        "pairs": [{"figure": p["figure"], "run_a": by_result[p["result_a"]], "run_b": by_result[p["result_b"]],
                   "result_a": p["result_a"], "result_b": p["result_b"], "diff": p["diff"],
                   "ci": None if p["ci_low"] is None else [p["ci_low"], p["ci_high"]], "p": p["p_value"],
                   "p_holm": p["p_holm"], "significant": p["significant"]} for p in pairs]})


def significance_json(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    return JsonResponse(significance_document(request.user, campaign, request.GET.get("figure")))
