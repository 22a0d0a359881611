"""Results pages of EASY campaigns: the per-genre x per-type F tables and the 15 ways of scoring relations.

Reached through the EASY kind (:class:`evaluation.kinds.easy.EasyKind`); who sees
which figures is decided by :mod:`campaign.visibility`, through the
:mod:`evaluation.results.summaries` helpers that pick the data source (live rows for
organisers, the publication snapshot for everyone after publication, a team's
own runs after the results release).
"""
from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

from campaign import audit, visibility
from campaign.models import Campaign, Run
from campaign.rules import UploadRefused
from campaign.subsets import scoring_subset, sentence_ids_by_document
from parseval.annotations.errors import InputError
from evaluation.results import charts, summaries
from parseval.evaluation.easy.ranges import MATCHES, MODES
from evaluation.results.heatmap import heatmap
from parseval.evaluation.stats import ALL
from evaluation.results.summaries import CONSTITUENTS, RELATIONS
from evaluation.results.text import percent

from .diagnostics import run_diagnostics as diagnose


_MISSING = format_html('<td class="muted" title="{}">–</td>', "not scored or not submitted")


def counts(cell: dict) -> str:
    """The counts a cell's tooltip gives; before the gold release teams see rates only (evaluation.results.disclosure)."""
    if cell["fc"] is None and cell["fp"] is None and cell["cr"] is None:
        return "counts from the gold release"
    return f"fc={cell['fc']} fp={cell['fp']} cr={cell['cr']}"


def display(cell: dict | None) -> dict:
    """A cell as the tables print it, with its ``<td>`` built here rather than by an
    included template per cell (a page holds hundreds). The exact stored value
    rides along in ``data-f`` so that tests and readers can check the figure."""
    if cell is None:
        return {"html": _MISSING, "raw": ""}
    ci = cell.get("ci") or [None, None]
    shown = {
        "f": percent(cell["f"]),
        "p": "undefined" if cell["p"] is None else percent(cell["p"]),
        "r": percent(cell["r"]),
        "raw": "" if cell["f"] is None else repr(cell["f"]),
        "ci": f"{percent(ci[0])}–{percent(ci[1])}" if ci[0] is not None and ci[1] is not None else "",
        "counts": counts(cell),
    }
    interval = format_html('<span class="ci">{}</span>', shown["ci"]) if shown["ci"] else ""
    shown["html"] = format_html('<td data-f="{}" title="P {} · R {} · {}">{}{}</td>', shown["raw"], shown["p"],
                                shown["r"], shown["counts"], shown["f"], interval)
    return shown


def _point(cell: dict | None) -> charts.Point:
    if cell is None:
        return charts.Point(None)
    ci = cell.get("ci") or [None, None]
    return charts.Point(cell["f"], ci[0], ci[1], note=counts(cell))


def _run_title(run: dict) -> str:
    return f"{run['label']} / {run['name']}"


def _ways_block(data: dict, layer: str) -> dict:
    shaped = summaries.way_series(data, layer)
    relations = layer == RELATIONS
    series = [charts.Series(_run_title(s["run"]), [_point(c) for c in s["cells"]]) for s in shaped["series"]]
    # A heatmap, not lines: the ways have no order between them, and every run stays visible.
    chart = heatmap([s.name for s in series], shaped["labels"], [s.points for s in series],
                    title=(_("Pooled relations F in each of the %(count)s ways of scoring") if relations else
                           _("Pooled constituents F in each of the %(count)s ways of scoring")) % {
                        "count": len(shaped["labels"])},
                    desc=_("One row per run, one column per way; all genres and all relation types pooled; each "
                           "cell holds its F (%), its tooltip the 95% bootstrap interval.") if relations else
                    _("One row per run, one column per way; all genres and all constituent types pooled; each "
                      "cell holds its F (%), its tooltip the 95% bootstrap interval."))
    rows = [{"run": s["run"], "cells": [display(c) for c in s["cells"]]} for s in shaped["series"]]
    return {"labels": shaped["labels"], "rows": rows, "chart": chart, "layer": layer}


def _genre_type_block(data: dict, run: dict, layer: str, mode: str, match: str) -> dict:
    table = summaries.genre_type_table(data, run, layer, mode, match)
    # The pooled columns (ALL, macro) come first: with twenty types the table scrolls sideways even at
    # 1280 px, and what a reader looks for first must not be its last columns.
    pooled = [k for k, t in enumerate(table["types"]) if t == ALL]
    rest = [k for k, t in enumerate(table["types"]) if t != ALL]
    rows = [
        {"genre": r["genre"], "pooled": [display(r["cells"][k]) for k in pooled], "macro": display(r["macro"]),
         "cells": [display(r["cells"][k]) for k in rest]}
        for r in table["rows"]
    ]
    way = summaries.way_label(mode if layer == RELATIONS else "", match)
    chart = heatmap([r["genre"]["name"] for r in table["rows"]], table["types"],
                    [[_point(c) for c in r["cells"]] for r in table["rows"]],
                    title=(_("%(run)s: relations F per genre and type (%(way)s)") if layer == RELATIONS else
                           _("%(run)s: constituents F per genre and type (%(way)s)")) % {
                        "run": _run_title(run), "way": way},
                    desc=_("One row per genre (ALL pools them), one column per type (ALL pools them); each cell "
                           "holds its F (%), its tooltip the 95% bootstrap interval."))
    return {"types": [table["types"][k] for k in rest], "pooled": [table["types"][k] for k in pooled], "rows": rows,
            "empty": table["empty"], "chart": chart, "layer": layer}


def _genre_stats(user, campaign: Campaign) -> dict:
    # Annotated counts tell the size of the test subset per genre: shown when the subset itself may be.
    annotated = visibility.can_see_test_subset(user, campaign)
    return {"rows": summaries.genre_statistics(campaign, annotated=annotated), "annotated": annotated}


def selection(request) -> tuple[str, str]:
    return summaries.way_selection(request.GET)


def campaign_page(request, campaign: Campaign):
    mode, match = selection(request)
    visible = summaries.visible_results(request.user, campaign, way=(mode, match))
    data = visible.data
    context = {
        "campaign": campaign,
        "visible": visible,
        "mode": mode,
        "match": match,
        "modes": MODES,
        "matches": MATCHES,
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
    return render(request, "results/easy_campaign.html", context)


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


def run_page(request, campaign: Campaign, run: Run):
    mode, match = selection(request)
    visible = summaries.visible_run_result(request.user, run)
    if visible is None:
        raise Http404("No results to show for this run.")
    data, entry = visible.data, visible.data["runs"][0] if visible.data["runs"] else None
    context = {"campaign": campaign, "run": run, "entry": entry, "visible": visible, "mode": mode, "match": match,
               "modes": MODES, "matches": MATCHES}
    if entry is not None:
        one = dict(data, runs=[entry])
        layers = summaries.layers_of(one)
        context.update(
            way_blocks=[_ways_block(one, layer) for layer in layers if layer in (RELATIONS, CONSTITUENTS)],
            genre_type_blocks=[_genre_type_block(one, entry, layer, mode, match) for layer in layers],
        )
    return render(request, "results/easy_run.html", context)


DIAGNOSTICS_PER_PAGE = 50


def diagnostics_page(request, run: Run):
    """Per-sentence counts and missed gold items of one document, in the chosen way (visibility checked)."""
    mode = request.GET.get("mode") if request.GET.get("mode") in MODES else "HYP"
    match = request.GET.get("match") if request.GET.get("match") in MATCHES else "EQUAL"
    documents = sorted(sentence_ids_by_document(run.campaign, scoring_subset(run.scope)))
    document = request.GET.get("document")
    if document not in documents:
        document = documents[0] if documents else None
    error = ""
    data = None
    if document is None:
        error = _("No sentence of this run's subset has gold.")
    else:
        try:
            data = diagnose(run, mode=mode, match=match, document=document)
        except (InputError, UploadRefused, ValueError) as exc:
            error = str(exc)
    page = None
    if data and data["shown"]:
        # One document can hold thousands of sentences: a page of them at a time.
        page = Paginator(data["shown"][0]["sentences"], DIAGNOSTICS_PER_PAGE).get_page(request.GET.get("page"))
    if visibility.is_organiser(request.user, run.campaign):
        audit.record(audit.DIAGNOSTICS_VIEW, campaign=run.campaign, target=f"run {run.pk}",
                     details={"document": document or "", "mode": mode, "match": match}, request=request)
    return render(request, "governance/diagnostics.html", {
        "run": run, "campaign": run.campaign, "data": data, "error": error, "document": document,
        "documents": documents, "page": page,
        "mode": mode, "match": match, "modes": MODES, "matches": MATCHES,
        "self_url": reverse("governance:diagnostics", kwargs={"pk": run.pk}),
    })
