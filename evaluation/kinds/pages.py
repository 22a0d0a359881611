"""Results pages of the constituency and dependency kinds: the metrics side by side.

Same visibility as the EASY pages (they read :func:`evaluation.summaries.visible_results`:
organisers live, everyone from the publication snapshot, a team its own runs after release);
only the shaping differs: one row per run, one column per figure, and one table per figure
with the genres as columns.
"""
from __future__ import annotations

from django.http import Http404
from django.shortcuts import render
from django.utils.html import format_html

from evaluation import charts, summaries
from evaluation.summaries import ALL

# Column order and names of the figures (ResultCell.layer) the kinds store.
LAYERS = {
    "evalb": "evalb F",
    "evalb-exact": "evalb exact match",
    "geig1991": "GEIG 1991 (P/R)",
    "conformance": "Conformance",
    "leaf-ancestor": "Leaf-ancestor (word mean)",
    "la-sentence": "Leaf-ancestor (sentence mean)",
    "deps-lin": "Lin 1998 F",
    "deps-uas": "UAS",
    "deps-las": "LAS",
}


def headline(cell: dict | None) -> float | None:
    """The figure a column shows: F (or the metric's one score), else recall."""
    if cell is None:
        return None
    return cell["f"] if cell["f"] is not None else cell["r"]


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def display(cell: dict | None):
    if cell is None:
        return format_html('<td class="muted" title="{}">–</td>', "not scored with this metric")
    value = headline(cell)
    parts = []
    if cell["p"] is not None:
        parts.append(f"P {_pct(cell['p'])}")
    if cell["r"] is not None:
        parts.append(f"R {_pct(cell['r'])}")
    if cell["fc"] is not None:
        parts.append(f"matched={cell['fc']} test={cell['fp']} gold={cell['cr']}")
    return format_html('<td data-f="{}" title="{}">{}</td>', "" if value is None else repr(value),
                       " · ".join(parts) or "score", _pct(value))


def layers_in(data: dict) -> list[str]:
    found = {c["layer"] for run in data["runs"] for c in run["cells"]}
    return [layer for layer in LAYERS if layer in found] + sorted(found - set(LAYERS))


def _index(run: dict) -> dict:
    return {(c["layer"], c["genre"]): c for c in run["cells"] if c["type"] == ALL}


def tables(data: dict) -> dict:
    """The overview (runs x figures), one runs x genres table per figure, and the chart."""
    layers = layers_in(data)
    indexes = [(run, _index(run)) for run in data["runs"]]
    present = {c["genre"] for run in data["runs"] for c in run["cells"]}
    genres = summaries.genre_order(data, present)
    overview = [{"run": run, "cells": [display(ix.get((layer, ALL))) for layer in layers]} for run, ix in indexes]
    per_layer = [
        {"layer": layer, "name": LAYERS.get(layer, layer),
         "rows": [{"run": run, "cells": [display(ix.get((layer, g["code"]))) for g in genres]} for run, ix in indexes]}
        for layer in layers
    ]
    chart = charts.line_chart(
        [LAYERS.get(layer, layer) for layer in layers],
        [charts.Series(f"{run['label']} / {run['name']}", [charts.Point(headline(ix.get((layer, ALL))))
                                                           for layer in layers]) for run, ix in indexes],
        title="Every figure of every run, all genres pooled",
        x_label="Metric",
        desc="One series per run; F where the metric has one, otherwise its score.",
    ) if layers else None
    return {"layers": [{"code": layer, "name": LAYERS.get(layer, layer)} for layer in layers], "overview": overview,
            "genres": genres, "per_layer": per_layer, "chart": chart}


def campaign_page(request, campaign):
    visible = summaries.visible_results(request.user, campaign)
    context = {"campaign": campaign, "visible": visible}
    if visible.data and visible.data["runs"]:
        context.update(tables(visible.data))
    return render(request, "results/kind_campaign.html", context)


def run_page(request, campaign, run):
    visible = summaries.visible_run_result(request.user, run)
    if visible is None:
        raise Http404("No results to show for this run.")
    from campaign import visibility

    context = {"campaign": campaign, "run": run, "visible": visible,
               "per_word": campaign.kind == "constituency" and visibility.can_see_diagnostics(request.user, run)}
    if visible.data["runs"]:
        context.update(tables(visible.data))
    return render(request, "results/kind_run.html", context)
