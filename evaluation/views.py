"""Results pages: thin views over :mod:`evaluation.summaries`.

Who sees which figures is decided by :mod:`campaign.visibility`, through
:func:`evaluation.summaries` helpers that pick the data source (live rows for
organisers, the publication snapshot for everyone after publication, a team's
own runs after the results release).
"""
from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.html import format_html

from campaign import visibility
from campaign.models import Campaign, CampaignKind, Run

from . import charts, summaries
from .summaries import ALL, CONSTITUENTS, EASY_MATCHES, EASY_MODES, RELATIONS


def _choice(request, name: str, allowed, default: str) -> str:
    value = request.GET.get(name, default)
    return value if value in allowed else default


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


_MISSING = format_html('<td class="muted" title="{}">–</td>', "not scored or not submitted")


def display(cell: dict | None) -> dict:
    """A cell as the tables print it, with its ``<td>`` built here rather than by an
    included template per cell (a page holds hundreds). The exact stored value
    rides along in ``data-f`` so that tests and readers can check the figure."""
    if cell is None:
        return {"html": _MISSING, "raw": ""}
    ci = cell.get("ci") or [None, None]
    shown = {
        "f": _pct(cell["f"]),
        "p": "undefined" if cell["p"] is None else _pct(cell["p"]),
        "r": _pct(cell["r"]),
        "raw": "" if cell["f"] is None else repr(cell["f"]),
        "ci": f"{_pct(ci[0])}–{_pct(ci[1])}" if ci[0] is not None and ci[1] is not None else "",
        "counts": f"fc={cell['fc']} fp={cell['fp']} cr={cell['cr']}",
    }
    interval = format_html('<span class="ci">{}</span>', shown["ci"]) if shown["ci"] else ""
    shown["html"] = format_html('<td data-f="{}" title="P {} · R {} · {}">{}{}</td>', shown["raw"], shown["p"],
                                shown["r"], shown["counts"], shown["f"], interval)
    return shown


def _point(cell: dict | None) -> charts.Point:
    if cell is None:
        return charts.Point(None)
    ci = cell.get("ci") or [None, None]
    return charts.Point(cell["f"], ci[0], ci[1], note=f"fc={cell['fc']} fp={cell['fp']} cr={cell['cr']}")


def _run_title(run: dict) -> str:
    return f"{run['label']} / {run['name']}"


def _ways_block(data: dict, layer: str) -> dict:
    shaped = summaries.way_series(data, layer)
    what = "relations" if layer == RELATIONS else "constituents"
    series = [charts.Series(_run_title(s["run"]), [_point(c) for c in s["cells"]]) for s in shaped["series"]]
    chart = charts.line_chart(
        shaped["labels"],
        series,
        title=f"Pooled {what} F in each of the {len(shaped['labels'])} ways of scoring",
        x_label="Constituent mode and range function" if layer == RELATIONS else "Range function",
        desc=f"One series per run; all genres and all {what} types pooled; whiskers are 95% bootstrap intervals.",
    )
    rows = [{"run": s["run"], "cells": [display(c) for c in s["cells"]]} for s in shaped["series"]]
    return {"labels": shaped["labels"], "rows": rows, "chart": chart, "layer": layer}


def _genre_type_block(data: dict, run: dict, layer: str, mode: str, match: str) -> dict:
    table = summaries.genre_type_table(data, run, layer, mode, match)
    rows = [
        {"genre": r["genre"], "cells": [display(c) for c in r["cells"]], "macro": display(r["macro"])}
        for r in table["rows"]
    ]
    pooled_by_genre = [r for r in table["rows"] if r["genre"]["code"] != ALL]
    chart = charts.bar_chart(
        [r["genre"]["name"] for r in pooled_by_genre],
        [_point(r["cells"][-1]) for r in pooled_by_genre],
        title=f"{_run_title(run)}: {layer} F per genre ({summaries.way_label(mode if layer == RELATIONS else '', match)})",
        x_label="Genre",
        series_name=_run_title(run),
    )
    return {"types": table["types"], "rows": rows, "empty": table["empty"], "chart": chart, "layer": layer}


def _genre_stats(user, campaign: Campaign) -> dict:
    # Annotated counts tell the size of the test subset per genre: shown when the subset itself may be.
    annotated = visibility.can_see_test_subset(user, campaign)
    return {"rows": summaries.genre_statistics(campaign, annotated=annotated), "annotated": annotated}


def _selection(request) -> tuple[str, str]:
    return _choice(request, "mode", EASY_MODES, "HYP"), _choice(request, "match", EASY_MATCHES, "EQUAL")


def _campaign_or_404(user, slug: str) -> Campaign:
    campaign = get_object_or_404(Campaign, slug=slug)
    if not visibility.can_see_campaign(user, campaign):
        raise Http404("No such campaign.")
    return campaign


def campaign_results(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    if campaign.kind != CampaignKind.EASY:
        from evaluation.kinds.pages import campaign_page

        return campaign_page(request, campaign)
    mode, match = _selection(request)
    visible = summaries.visible_results(request.user, campaign, way=(mode, match))
    data = visible.data
    context = {
        "campaign": campaign,
        "visible": visible,
        "mode": mode,
        "match": match,
        "modes": EASY_MODES,
        "matches": EASY_MATCHES,
        "genre_stats": _genre_stats(request.user, campaign),
    }
    if data and data["runs"]:
        layers = summaries.layers_of(data)
        chosen_id = request.GET.get("run", "")
        chosen = next((r for r in data["runs"] if str(r["run"]) == chosen_id), data["runs"][0])
        indexes = [summaries.CellIndex(r) for r in data["runs"]]
        context.update(
            runs=data["runs"],
            chosen=chosen,
            overview=[
                {
                    "run": index.run,
                    "relations": display(index.get(RELATIONS, mode, match)),
                    "constituents": display(index.get(CONSTITUENTS, mode, match)),
                }
                for index in indexes
            ],
            way_blocks=[_ways_block(data, layer) for layer in layers if layer in (RELATIONS, CONSTITUENTS)],
            genre_type_blocks=[_genre_type_block(data, chosen, layer, mode, match) for layer in layers],
            runs_by_genre=_runs_by_genre(data, indexes, mode, match),
        )
    return render(request, "results/campaign.html", context)


def _runs_by_genre(data: dict, indexes: list, mode: str, match: str) -> dict:
    """Runs x genres, pooled over types, in the chosen way (relations)."""
    present = {c["genre"] for r in data["runs"] for c in r["cells"] if c["layer"] == RELATIONS}
    genres = summaries.genre_order(data, present)
    return {
        "genres": genres,
        "rows": [
            {"run": index.run, "cells": [display(index.get(RELATIONS, mode, match, genre=g["code"])) for g in genres]}
            for index in indexes
        ],
    }


def run_results(request, slug: str, pk: int):
    campaign = _campaign_or_404(request.user, slug)
    run = get_object_or_404(Run.objects.select_related("team", "campaign"), pk=pk, campaign=campaign)
    if campaign.kind != CampaignKind.EASY:
        from evaluation.kinds.pages import run_page

        return run_page(request, campaign, run)
    mode, match = _selection(request)
    visible = summaries.visible_run_result(request.user, run)
    if visible is None:
        raise Http404("No results to show for this run.")
    data, entry = visible.data, visible.data["runs"][0] if visible.data["runs"] else None
    context = {"campaign": campaign, "run": run, "entry": entry, "visible": visible, "mode": mode, "match": match,
               "modes": EASY_MODES, "matches": EASY_MATCHES}
    if entry is not None:
        one = dict(data, runs=[entry])
        layers = summaries.layers_of(one)
        context.update(
            way_blocks=[_ways_block(one, layer) for layer in layers if layer in (RELATIONS, CONSTITUENTS)],
            genre_type_blocks=[_genre_type_block(one, entry, layer, mode, match) for layer in layers],
        )
    return render(request, "results/run.html", context)


def campaign_results_json(request, slug: str):
    """The same dict the page draws from, as the requesting user may see it."""
    campaign = _campaign_or_404(request.user, slug)
    # With mode and match, only what the page of that way draws; without, every cell.
    way = _selection(request) if ("mode" in request.GET or "match" in request.GET) else None
    visible = summaries.visible_results(request.user, campaign, way=way)
    return JsonResponse({"source": visible.source, "data": visible.data})
