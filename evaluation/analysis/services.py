"""What each page of the analysis explorer shows: built from the stored analysis (:mod:`.store`), never computed
per view (the first request of a result without one computes and keeps it), for whoever :mod:`.access` lets in."""
from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from campaign import kinds
from campaign.models import Campaign, Run
from evaluation.kinds.analysis import CONFUSION_SEPARATOR
from evaluation.results.charts import Point, bar_chart
from evaluation.results.text import decimal, percent
from evaluation.significance.sets import settings_of

from . import access, pairwise, precomputed, store

SENTENCE_LIMIT = 500  # sentences listed behind one number (the count says how many there are)


@dataclass
class RunAnalysis:
    campaign: Campaign
    run: Run
    result: object
    analysis: store.Stored | None

    @property
    def document(self) -> dict:
        return self.analysis.document if self.analysis else {}


def run_analysis(user, campaign: Campaign, pk: int) -> RunAnalysis:
    """The run and the analysis ``user`` may read of it; 404 when they may not (the same answer as no such run)."""
    run = get_object_or_404(Run.objects.select_related("team", "campaign"), pk=pk, campaign=campaign)
    result = access.visible_result(user, run)
    if result is None:
        raise Http404(_("No analysis of this run to show."))
    return RunAnalysis(campaign, run, result, store.analysis_of(result))


def _figure_names() -> dict[str, str]:
    return {"uas": _("UAS"), "las": _("LAS"), "precision": _("Precision"), "f": _("F"), "recall": _("Recall"),
            "p": _("Precision"), "r": _("Recall")}


def _ci_text(ci) -> str:
    return f"{percent(ci[0])}–{percent(ci[1])}" if ci else ""


def attribute_tables(document: dict, only: str | None = None) -> list[dict]:
    """Each attribute's bucket table (counts, figures with intervals) and its bar chart of the main figure."""
    block = document.get("explorer") or {}
    counts, figures, main = block.get("counts", []), block.get("figures", []), (block.get("figure") or {}).get("name")
    names = _figure_names()
    out = []
    for attribute in document.get("attributes", []):
        if only and attribute["name"] != only:
            continue
        rows = []
        for b in attribute["buckets"]:
            rows.append({"bucket": b["bucket"], "counts": [b.get(c) for c in counts],
                         "figures": [{"value": percent(b.get(f)), "ci": _ci_text(b.get(f"{f}_ci"))} for f in figures]})
        chart = bar_chart([b["bucket"] for b in attribute["buckets"]],
                          [Point(b.get(main), *(b.get(f"{main}_ci") or (None, None))) for b in attribute["buckets"]],
                          title=_("%(figure)s by %(attribute)s") % {"figure": names.get(main, main),
                                                                     "attribute": attribute["name"]},
                          x_label=attribute["name"], y_label=_("%(figure)s (%%)") % {"figure": names.get(main, main)},
                          measure=names.get(main, main)) if attribute["buckets"] and main else None
        out.append({"name": attribute["name"], "description": attribute.get("description", ""), "rows": rows,
                    "chart": chart})
    return out


def explorer_context(user, campaign: Campaign, pk: int, by: str | None) -> dict:
    ra = run_analysis(user, campaign, pk)
    document = ra.document
    block = document.get("explorer") or {}
    names = _figure_names()
    attributes = [a["name"] for a in document.get("attributes", [])]
    chosen = by if by in attributes else None
    others = [r for r in access.visible_runs(user, campaign, ra.run.scope) if r.pk != ra.run.pk]
    headline = document.get("headline") or {}
    main = (block.get("figure") or {}).get("name")
    return {"campaign": campaign, "run": ra.run, "analysis": ra.analysis, "document": document,
            "attributes": attributes, "chosen": chosen, "tables": attribute_tables(document, chosen),
            "counts": block.get("counts", []), "figures": [names.get(f, f) for f in block.get("figures", [])],
            "main_name": names.get(main, main or ""), "main": percent(headline.get(main)) if main else "",
            "main_ci": _ci_text(headline.get(f"{main}_ci")), "others": others,
            "has_confusions": bool(document.get("confusions"))}


def confusions_context(user, campaign: Campaign, pk: int) -> dict:
    ra = run_analysis(user, campaign, pk)
    tables = []
    for table in ra.document.get("confusions", []):
        columns = table.get("columns", [])
        rows = []
        for row in table["rows"]:
            cells = row.get("cells") or {}
            rows.append({"gold": row["gold"], "total": row.get("count"),
                         "cells": [{"run": col, "count": (cells.get(col) or {}).get("count"), "right": col == row["gold"],
                                    "cell": f"{row['gold']}{CONFUSION_SEPARATOR}{col}"} for col in columns]})
        tables.append({"name": table["name"], "description": table.get("description", ""), "columns": columns,
                       "rows": rows})
    return {"campaign": campaign, "run": ra.run, "analysis": ra.analysis, "tables": tables}


def errors_context(user, campaign: Campaign, pk: int) -> dict:
    """The run's errors against those of the other runs of its subset the reader may see, read from the value a
    worker keeps for that set of runs (:func:`.precomputed.errors_value`); ``being_computed`` while there is none."""
    ra = run_analysis(user, campaign, pk)
    if ra.analysis is None:
        return {"campaign": campaign, "run": ra.run, "analysis": None}
    others = []
    for run in access.visible_runs(user, campaign, ra.run.scope):
        if run.pk == ra.run.pk:
            continue
        result = access.visible_result(user, run)
        if result is not None:
            others.append(result.pk)
    if not others:  # no other run to share an error with: its first errors are read, nothing is compared
        shared = precomputed.errors_value(ra.analysis.index, [])
    else:
        shared = precomputed.value(precomputed.ERRORS, precomputed.errors_arguments(ra.analysis, others))
    return {"campaign": campaign, "run": ra.run, "analysis": ra.analysis, "shared": shared,
            "being_computed": shared is None}


def sentences_context(user, campaign: Campaign, pk: int, query) -> dict:
    """The sentences behind one bucket (``by``, ``bucket``) or one confusion cell (``table``, ``cell``)."""
    ra = run_analysis(user, campaign, pk)
    if ra.analysis is None:
        raise Http404(_("No analysis of this run to show."))
    index = ra.analysis.index
    keys = index["keys"]
    rows, title = [], ""
    if query.get("by"):
        entry = index["buckets"].get(query["by"], {}).get(query.get("bucket", ""))
        if entry is None:
            raise Http404(_("No such bucket."))
        columns = index["columns"]
        width = len(columns)
        total = len(entry["s"])
        for n, s in enumerate(entry["s"][:SENTENCE_LIMIT]):  # the count covers them all; the list, the first
            rows.append({"key": keys[s], "counts": entry["c"][n * width:(n + 1) * width]})
        title = _("Sentences with an item in %(attribute)s = %(bucket)s") % {"attribute": query["by"],
                                                                            "bucket": query.get("bucket", "")}
        columns_shown = columns
    elif query.get("table"):
        positions = index["confusions"].get(query["table"], {}).get(query.get("cell", ""))
        if positions is None:
            raise Http404(_("No such cell."))
        gold, _sep, said = query["cell"].partition(CONFUSION_SEPARATOR)
        total = len(positions)
        rows = [{"key": keys[s], "counts": []} for s in positions[:SENTENCE_LIMIT]]
        title = _("Sentences where the gold says %(gold)s and the run %(run)s") % {"gold": gold, "run": said}
        columns_shown = []
    else:
        raise Http404(_("Say which bucket or cell."))
    return {"campaign": campaign, "run": ra.run, "title": title, "total": total,
            "rows": rows, "columns": columns_shown, "limit": SENTENCE_LIMIT}


def svg_labels(run: Run, key: str) -> dict:
    return {"gold": _("gold"), "run": _("run"), "missing": _("missing (dashed)"), "right": _("right"),
            "wrong": _("wrong"), "label_only": _("right head, wrong relation"), "gold_arc": _("gold"),
            "title": _("Sentence %(key)s: the gold and the run") % {"key": key},
            "desc": _("The gold annotation and the run's, drawn together; the run's wrong items and the gold items "
                      "it missed are marked.")}


def sentence_context(user, campaign: Campaign, pk: int, key: str) -> dict:
    ra = run_analysis(user, campaign, pk)
    if ra.analysis is None or key not in set(ra.analysis.index["keys"]):
        raise Http404(_("No such sentence in this run's analysis."))
    svg = kinds.for_campaign(campaign).sentence_svg(ra.result, key, svg_labels(ra.run, key))
    if svg is None:
        raise Http404(_("No such sentence in this run's analysis."))
    errors_here = [f"{what}: {item}" for _k, what, _label, item in ra.analysis.index.errors_of(key)]
    return {"campaign": campaign, "run": ra.run, "key": key, "svg": svg, "errors": errors_here}


def compare_context(user, campaign: Campaign, run_a: int, run_b: int, by: str | None) -> dict:
    a, b = run_analysis(user, campaign, run_a), run_analysis(user, campaign, run_b)
    if a.run.scope != b.run.scope:
        raise Http404(_("Runs of different subsets are not compared."))
    attributes = [x["name"] for x in a.document.get("attributes", [])]
    chosen = by if by in attributes else (attributes[0] if attributes else None)
    table = None
    settings = settings_of(campaign)
    being_computed = False
    if a.analysis and b.analysis and chosen:
        table = precomputed.value(precomputed.COMPARE,
                                  precomputed.compare_arguments(a.analysis, b.analysis, chosen, settings))
        being_computed = table is None
        for row in (table or {}).get("rows", []):
            row.update(a_text=percent(row["a"]), b_text=percent(row["b"]), diff_text=_points(row["diff"]),
                       ci_text=(f"{_points(row['ci'][0])} … {_points(row['ci'][1])}" if row["ci"] else ""),
                       mde_text=_points(row["mde"], signed=False), p_text=_p(row["p"]), p_bh_text=_p(row["p_bh"]))
    names = _figure_names()
    return {"campaign": campaign, "a": a.run, "b": b.run, "attributes": attributes, "chosen": chosen,
            "table": table, "being_computed": being_computed, "settings": settings, "figure": names.get((table or {}).get("figure"), ""),
            "no_difference_mde": _points(pairwise.NO_DIFFERENCE_MDE, signed=False)}


def compare_sentences_context(user, campaign: Campaign, run_a: int, run_b: int, by: str, bucket: str) -> dict:
    a, b = run_analysis(user, campaign, run_a), run_analysis(user, campaign, run_b)
    if a.analysis is None or b.analysis is None:
        raise Http404(_("No analysis of this run to show."))
    keys = pairwise.sentences_behind(a.analysis.index, b.analysis.index, by, bucket)
    return {"campaign": campaign, "a": a.run, "b": b.run, "by": by, "bucket": bucket, "total": len(keys),
            "keys": keys[:SENTENCE_LIMIT], "limit": SENTENCE_LIMIT}


def _points(value, signed: bool = True) -> str:
    """A difference in points, one decimal, signed ("+1.2", "−0.4"), in the page's language."""
    if value is None:
        return "–"
    text = decimal(abs(100 * value), 1)
    return text if not signed else ("−" if value < 0 else "+") + text


def _p(value) -> str:
    if value is None:
        return "–"
    return "< " + decimal(0.001, 3) if value < 0.001 else decimal(value, 3)
