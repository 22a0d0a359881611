"""Results pages of the constituency and dependency kinds: the metrics side by side.

Same visibility as the EASY pages (they read :func:`evaluation.results.summaries.visible_results`:
organisers live, everyone from the publication snapshot, a team its own runs after release);
only the shaping differs: one row per run, one column per figure, and per figure a table with
the genres as columns and a chart of that figure alone. Names, units and descriptions of the
figures come from the metric registry (:mod:`parseval.evaluation.metrics`).
"""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import render
from django.utils.html import format_html
from django.utils.translation import gettext

from campaign import kinds, tracks, visibility
from campaign.problem_texts import translated
from evaluation.results import charts, summaries
from parseval.evaluation import metrics
from parseval.evaluation.metrics import Layer
from evaluation.results.summaries import ALL
from evaluation.results.text import percent
from evaluation.results.ranking_chart import dot_plot


def _layer(code: str) -> Layer:
    """A published figure's name and unit from the metric registry (a stored code it no longer knows: as is)."""
    return metrics.layers().get(code) or Layer(code, code)


def header(layer: Layer) -> dict:
    """What a column header and its explanation (``results/_figure_help.html``) show of a figure."""
    return {"code": layer.code, "name": layer.label, "unit": layer.unit, "description": layer.description}


def headline(cell: dict | None) -> float | None:
    """The figure a column shows: F (or the metric's one score), else recall."""
    if cell is None:
        return None
    return cell["f"] if cell["f"] is not None else cell["r"]


def display(cell: dict | None):
    if cell is None:
        return format_html('<td class="muted" title="{}">–</td>', "not scored with this metric")
    value = headline(cell)
    parts = []
    if cell["p"] is not None:
        parts.append(f"P {percent(cell['p'])}")
    if cell["r"] is not None:
        parts.append(f"R {percent(cell['r'])}")
    if cell["fc"] is not None:
        parts.append(f"matched={cell['fc']} test={cell['fp']} gold={cell['cr']}")
    ci = cell.get("ci") or [None, None]
    interval = ""
    if ci[0] is not None and ci[1] is not None:
        parts.append(f"95% CI {percent(ci[0])}–{percent(ci[1])}")
        interval = format_html('<span class="ci">{}–{}</span>', percent(ci[0]), percent(ci[1]))
    return format_html('<td data-f="{}" title="{}">{}{}</td>', "" if value is None else repr(value),
                       " · ".join(parts) or "score", percent(value), interval)


def layers_in(data: dict) -> list[str]:
    known = metrics.layers()
    found = {c["layer"] for run in data["runs"] for c in run["cells"]}
    return [layer for layer in known if layer in found] + sorted(found - set(known))


def _index(run: dict) -> dict:
    return {(c["layer"], c["genre"]): c for c in run["cells"] if c["type"] == ALL}


def _point(cell: dict | None) -> charts.Point:
    if cell is None:
        return charts.Point(None)
    ci = cell.get("ci") or [None, None]
    return charts.Point(headline(cell), ci[0], ci[1])


def _chart(layer: Layer, indexes: list) -> str:
    """One figure, every run, as a compact dot plot (a small multiple): a chart never puts two measures on
    one axis, its axis spans the runs' values rather than 0-100, and its run names read horizontally."""
    points = [(f"{run['label']} / {run['name']}", _point(ix.get((layer.code, ALL)))) for run, ix in indexes]
    return dot_plot([(label, p.value, p.low, p.high) for label, p in points],
                    title=gettext("%(figure)s, all genres pooled") % {"figure": layer.label})


def tables(data: dict) -> dict:
    """The overview (runs x figures), one runs x genres table and one chart per figure."""
    layers = [_layer(code) for code in layers_in(data)]
    indexes = [(run, _index(run)) for run in data["runs"]]
    present = {c["genre"] for run in data["runs"] for c in run["cells"]}
    genres = summaries.genre_order(data, present)
    overview = [{"run": run, "cells": [display(ix.get((layer.code, ALL))) for layer in layers]}
                for run, ix in indexes]
    per_layer = [
        {"layer": layer.code, "name": layer.label, "unit": layer.unit, "description": layer.description,
         "chart": _chart(layer, indexes),
         "rows": [{"run": run, "cells": [display(ix.get((layer.code, g["code"]))) for g in genres]}
                  for run, ix in indexes]}
        for layer in layers
    ]
    return {"layers": [header(layer) for layer in layers],
            "overview": overview, "genres": genres, "per_layer": per_layer}


def track_sections(data: dict, kind=None) -> list[dict]:
    """The tables once per track of a dependency campaign (runs of different tracks are not comparable, so
    each track is ranked on its own), or once for all runs when they share one track."""
    groups: dict[str, list[dict]] = {}
    for run in data["runs"]:
        groups.setdefault(run.get("track") or "", []).append(run)
    if len(groups) <= 1:
        return [{"track": "", "label": "", "id_prefix": "", **tables(data)}]
    order = tracks.track_order()
    return [{"track": track, "label": tracks.track_label(track), "id_prefix": f"{track}-",
             "note": translated(kind.track_note(track)) if kind else "",
             **tables({**data, "runs": runs})}
            for track, runs in sorted(groups.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order
                                                                      else len(order), kv[0]))]


def _sections_context(data: dict, kind=None) -> dict:
    sections = track_sections(data, kind)
    if len(sections) == 1:
        return {**sections[0], "sections": sections}
    seen = {}
    for section in sections:
        for layer in section["layers"]:
            seen.setdefault(layer["code"], layer)
    return {"sections": sections, "layers": list(seen.values())}


def campaign_page(request, campaign):
    visible = summaries.visible_results(request.user, campaign)
    context = {"campaign": campaign, "visible": visible}
    if visible.data and visible.data["runs"]:
        context.update(_sections_context(visible.data, kinds.for_campaign(campaign)))
    return render(request, "results/kind_campaign.html", context)


def run_page(request, campaign, run):
    visible = summaries.visible_run_result(request.user, run)
    if visible is None:
        raise Http404("No results to show for this run.")
    context = {"campaign": campaign, "run": run, "visible": visible,
               "per_word": kinds.for_campaign(campaign).has_word_view and visibility.can_see_diagnostics(request.user,
                                                                                                       run)}
    if visible.data["runs"]:
        context.update(tables(visible.data))
    return render(request, "results/kind_run.html", context)
