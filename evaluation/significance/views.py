"""Ranking with ties and the comparison of two runs: pages and JSON read the stored paired tests.

Nothing here computes a test (:mod:`evaluation.significance.sets` does, in a
worker). What a user sees is what :func:`summaries.visible_results` lets them
see: pairs are shown only between runs of the visible table.
"""
from __future__ import annotations

import math

from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _, ngettext

from campaign import kinds, tracks, visibility

from evaluation.results import disclosure, summaries
from parseval.evaluation import metrics, paired, design
from evaluation.significance import headlines, precomputed, sets as significance
from evaluation.kinds.sentence import pages as kind_pages
from parseval.evaluation.figure_sets import figure_id, parse_figure_id
from evaluation.results.ranking_chart import dot_plot
from parseval.evaluation.stats import ALL
from evaluation.results.text import decimal, for_programs, percent
from evaluation.results.views import _campaign_or_404
from campaign.models import Campaign
from evaluation.consensus import runs as consensus_runs
from evaluation.consensus.views import can_download_treebank


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
    computed = significance.visible_significance(request.user, campaign)
    ready = computed is not None
    # A consensus is no team: it is not ranked (no cluster, no rank) but shown below, against the best run.
    consensus = [r for r in runs if r.get("consensus")]
    by_result = {r["result"]["id"]: r for r in runs if not r.get("consensus")}
    rows, chart, headline, consensus_rows = [], None, "f", []
    if figure:
        # F, else recall (GEIG 1991 publishes no F): the figure the layer heads its pages with.
        headline = "f" if any(c.get("f") is not None for c in cells[figure].values()) else "r"
        scores = {rid: cells[figure].get(rid, {}).get(headline) for rid in by_result}
        consensus_ids = [c["result"]["id"] for c in consensus]
        # The pairs' headlines are read from the set's packed rows (evaluation.significance.headlines).
        every_pair = disclosure.limit_headlines(headlines.headline_pairs(computed, figure, [*by_result, *consensus_ids])
                                                if ready else {}, request.user, campaign)
        pairs = {k: v for k, v in every_pair.items() if k[0] in by_result and k[1] in by_result}
        tested = ready and all(rid in computed.results for rid in by_result)
        ranked = significance.ranking(scores, pairs if tested else {})
        power = _power_summary(pairs.values() if tested else [], computed,
                               disclosure.limit_sentence_counts(computed.sentences if computed else None,
                                                                request.user, campaign))
        for i, r in enumerate(ranked):
            cell = cells[figure].get(r.run, {})
            ci = cell.get("ci")
            nxt = ranked[i + 1].run if i + 1 < len(ranked) else None
            rows.append({"run": by_result[r.run], "rank": r, "f": percent(r.score),
                         "ci": f"{percent(ci[0])}–{percent(ci[1])}" if ci else "",
                         "new_cluster": i > 0 and r.cluster != ranked[i - 1].cluster,
                         "next": by_result[nxt] if nxt else None,
                         "vs_next": _verdict(pairs.get((r.run, nxt))) if nxt else None})
        consensus_rows = _consensus_rows(consensus, cells[figure], headline, figure, every_pair,
                                         by_result[ranked[0].run] if ranked else None)
        chart = dot_plot([(f"{row['run']['label']} / {row['run']['name']}", row["rank"].score,
                           *(cells[figure].get(row["rank"].run, {}).get("ci") or (None, None)))
                          for row in rows], title=_("Ranking by %(figure)s") % {"figure": _figure_label(figure)})
    kind = kinds.for_campaign(campaign)
    explained = _explained(cells)
    return {"campaign": campaign, "visible": visible, "treebank_url": _treebank_url(request.user, campaign), "figure": figure, "figure_label": _figure_label(figure) if figure
            else "", "score_label": "Recall (%)" if figure and headline == "r" else "F (%)", "figures": [(f, _figure_label(f)) for f in sorted(cells)], "rows": rows, "chart": chart,
            "computed": computed, "power": power if figure else None, "explained": explained,
            "figure_help": kind.figure_help_template(explained),
            "track": track, "tracks": track_choices, "consensus_rows": consensus_rows,
            "figure_layer": parse_figure_id(figure)["layer"] if figure else "",
            "diagnostics": visible.source == "live" and kind.has_diagnostics,
            "tested": bool(figure) and ready and all(rid in computed.results for rid in by_result)}


def _treebank_url(user, campaign) -> str:
    """Where the consensus treebank is downloaded, for whoever may (anyone once the results are published):
    the ranking that shows the consensus links it, so that a reader finds it ("" when there is none)."""
    from django.urls import reverse

    if not can_download_treebank(user, campaign) or consensus_runs.treebank_file(campaign) is None:
        return ""
    return reverse("results:consensus-treebank", args=[campaign.slug])


def _consensus_rows(consensus: list[dict], cells: dict, headline: str, figure: str, pairs: dict,
                    best: dict | None) -> list[dict]:
    """Each consensus pseudo-run's row: its figure and interval, the oracle's on the same figure, and its stored
    test against the best ranked run (``pairs``: the headlines as the viewer may see them)."""
    out = []
    for entry in consensus:
        rid = entry["result"]["id"]
        cell = cells.get(rid, {})
        ci = cell.get("ci")
        oracle = entry["consensus"].get("oracle") or {}
        out.append({"run": entry, "f": percent(cell.get(headline)),
                    "ci": f"{percent(ci[0])}–{percent(ci[1])}" if ci else "", "best": best,
                    "oracle": percent(oracle.get("value")) if oracle.get("figure") == figure else None,
                    "vs_best": _verdict(pairs.get((rid, best["result"]["id"]))) if best else None,
                    "diff_best": percent(None if cell.get(headline) is None or best is None
                                         or cells.get(best["result"]["id"], {}).get(headline) is None
                                         else cell[headline] - cells[best["result"]["id"]][headline])})
    return out


def _one_track(request, runs: list[dict]) -> tuple[list[dict], str, list[tuple[str, str]]]:
    """Runs of different tracks (dependency campaigns) are not comparable: the ranking shows one track at a
    time (``?track=``, by default the first), ``(runs, track, [(track, label)])``."""
    order = tracks.track_order()
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
    computed = significance.visible_significance(request.user, campaign)
    ra, rb = run_a["result"]["id"], run_b["result"]["id"]
    # Every figure's headline (evaluation.significance.headlines: one pair read from each figure's packed row),
    # the chosen figure's whole table from the stored set (one row).
    tables = {f: {"headline": h, "cells": {}, "cells_family": 0}
              for f, h in (headlines.pair_headlines(computed, ra, rb) if computed is not None else {}).items()}
    chosen_figure = request.GET.get("figure")
    if chosen_figure not in tables:
        chosen_figure = _choose_figure(request, tables)
    if chosen_figure:
        tables.update(significance.pair_tables(computed, ra, rb, figures=[chosen_figure]))
    tables = disclosure.limit_pair_tables(tables, request.user, campaign)  # genre cells read sums over scored sentences
    figure = request.GET.get("figure")
    if figure not in tables:
        figure = _choose_figure(request, tables)
    blocks, header, cells_family, chosen = [], [], 0, None
    genre_names = {g["code"]: g["name"] for g in visible.data["genres"]} if runs else {}
    if figure:
        table, cells_family = tables[figure]["cells"], tables[figure]["cells_family"]
        chosen = _verdict(tables[figure]["headline"])
        genres = [ALL] + sorted(g for g in table if g != ALL)
        types = [ALL] + sorted({t for g in table.values() for t in g} - {ALL})
        blocks = [{"type": t, "cells": [_diff_cell(table.get(g, {}).get(t), headline=(g == ALL and t == ALL))
                                        for g in genres]} for t in types]
        header = [(_("All genres") if g == ALL else genre_names.get(g, g)) for g in genres]
    summary = [{"figure": f, "label": _figure_label(f), "layer": parse_figure_id(f)["layer"],
                **_diff_cell(t["headline"], headline=True), **_verdict(t["headline"])}
               for f, t in sorted(tables.items())]
    families = sorted({s["family"] for s in summary})
    explained = _explained(tables)
    return render(request, "results/compare.html", {
        "campaign": campaign, "visible": visible, "a": run_a, "b": run_b, "computed": computed, "figure": figure,
        "figure_label": _figure_label(figure) if figure else "", "header": header, "blocks": blocks,
        "summary": summary, "family": families[0] if len(families) == 1 else None, "cells_family": cells_family,
        "chosen": chosen, "explained": explained,
        "figure_help": kinds.for_campaign(campaign).figure_help_template(explained)})


def _points(value: float | None) -> str:
    return percent(value)


def _verdict(head: dict | None) -> dict:
    """What a page says beside a stored headline: its family, the smallest difference the test set detects with
    80% power (for one comparison, and at the first Holm step of the family), and the agreement across genres."""
    if not head:
        return {}
    agreement, diff = head.get("agreement") or {}, head.get("diff") or 0.0
    side = "a" if diff >= 0 else "b"
    return {"significant": head.get("significant"), "p_holm": head.get("p_holm"), "family": head.get("family") or 0,
            "mde": head.get("mde"),
            "mde_text": _points(head.get("mde")),
            "mde_family_text": _points(head.get("mde_family")), "p_text": _p_text(head.get("p_holm")),
            "better_side": side, "genres": agreement.get("genres", 0),
            "better_raw": agreement.get(f"{side}_better", 0),
            "better_bonferroni": agreement.get(f"{side}_better_bonferroni", 0),
            "better_fisher": agreement.get(f"{side}_better_fisher", 0)}


def _power_summary(heads, computed, sentences: dict | None) -> dict | None:
    """The median minimum detectable effect over the ranking's pairs (each pair once); ``sentences``: the test
    sentences as the viewer may see them (:func:`disclosure.limit_sentence_counts`)."""
    mde = sorted(h["mde"] for h in heads if h.get("mde") is not None)
    mde_family = sorted(h["mde_family"] for h in heads if h.get("mde_family") is not None)
    if not mde:
        return None
    family = max((h.get("family") or 0) for h in heads)
    return {"mde": _points(mde[len(mde) // 2]), "mde_family": _points(mde_family[len(mde_family) // 2]),
            "family": family, "alpha": computed.alpha, "sentences": (sentences or {}).get(ALL)}


def _p_text(p: float | None) -> str:
    if p is None:
        return ""
    return f"< {decimal(0.001, 3)}" if p < 0.001 else decimal(p, 3)


def _diff_cell(cell: dict | None, *, headline: bool = False) -> dict:
    """A table cell: the difference, its interval, and its adjusted p-value (Holm across the pairs for a
    headline, Benjamini–Hochberg across the table for any other cell)."""
    if not cell:
        return {"diff": "–", "ci": "", "p": "", "p_raw": "", "significant": False, "sign": ""}
    d = cell["diff"]
    adjusted = cell.get("p_holm") if headline else cell.get("p_bh")
    return {"diff": ("+" if d and d > 0 else "") + percent(d), "ci": _("%(low)s to %(high)s") % {
            "low": percent(cell["ci"][0]), "high": percent(cell["ci"][1])} if cell.get("ci") else "",
            "p": _p_text(adjusted), "p_raw": "" if adjusted is None else repr(adjusted),
            "correction": "Holm" if headline else "Benjamini–Hochberg", "significant": bool(cell["significant"]),
            "sign": "better" if d and d > 0 else "worse" if d and d < 0 else ""}


def significance_document(user, campaign, figure: str | None = None) -> dict:
    """The stored tests between the runs ``user`` may see: the set's signature and every pair's headline, the
    very values the ranking and the comparison pages show."""
    visible = summaries.visible_results(user, campaign, with_cells=False)  # the runs and their results, no figure
    runs = [] if visible.empty else visible.data["runs"]
    by_result = {r["result"]["id"]: r["run"] for r in runs}
    computed = significance.visible_significance(user, campaign)
    if computed is None:
        return {"computed": None, "pairs": []}
    # Every pair's headline formatted from the set's packed rows, for the runs this reader may see only.
    pairs = headlines.document_pairs(computed, by_result, figure or None)
    heads = disclosure.limit_headlines({k: p[3] for k, p in enumerate(pairs)}, user, campaign)
    out, labels = [], {}  # one label per family size, translated once (a hundred runs: 198,000 pairs)
    for k, head in heads.items():
        name, a, b = pairs[k][:3]
        family = head["family"]
        if family not in labels:
            labels[family] = _("Holm, across the %(count)s pairs of this figure") % {"count": family}
        out.append({"figure": name, "run_a": by_result[a], "run_b": by_result[b], "result_a": a, "result_b": b,
                    **head, "family_label": labels[family]})
    return significance.served_significance(user, campaign, {
        # when the set was computed follows the last scoring: organisers only, until gold release
        "computed": {"signature": computed.signature, "created_at": computed.created_at.isoformat()
                     if visibility.can_see_scoring_times(user, campaign) else None,
                     "method": computed.method, "resamples": computed.resamples, "seed": computed.seed,
                     "alpha": computed.alpha, "power": paired.POWER,
                     # per genre, the test subset's size: organisers' until the gold release
                     "sentences": disclosure.limit_sentence_counts(computed.sentences, user, campaign),
                     "test": ("paired bootstrap, genre-stratified, normal approximation" if computed.method == "bootstrap"
                              else "approximate randomisation"),
                     "correction": "holm",
                     "corrections": {"pairs": "holm (family-wise), across the pairs of each figure",
                                     "cells": "benjamini-hochberg (false discovery rate), across the cells of a "
                                              "comparison table other than the headline"},
                     "agreement": "Dror et al. 2017: partial conjunction p-values (Bonferroni, Fisher), counted "
                                  "in sequence; one-sided p per genre"},
        "pairs": out})


@for_programs()
def significance_json(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    return JsonResponse(significance_document(request.user, campaign, request.GET.get("figure")))


def design_page(request, slug: str):
    """The organisers' design aid: from two runs' stored test, what the test set detects per genre and how
    many sentences would detect a chosen difference (:mod:`parseval.evaluation.design`).

    It reads the set's summary (:mod:`evaluation.significance.precomputed`: per genre, what the default pair
    detects, computed once after the set is stored; another pair's read once from its stored table and
    cached) and the pairs from the set (:mod:`evaluation.significance.headlines`); only the arithmetic of the
    chosen target is done here. Without a summary yet, the page says the figures are being computed."""
    from django.contrib.auth.views import redirect_to_login

    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    campaign = visibility.get_visible_or_404(Campaign, visibility.is_organiser, request.user, "No such campaign.",
                                             slug=slug)
    computed = significance.latest_set(campaign)
    context = {"campaign": campaign, "computed": computed, "pairs": [], "rows": [], "figures": [],
               "being_computed": False}
    summary = precomputed.of_set(computed) if computed is not None and computed.sentences else None
    if computed is not None and computed.sentences and summary is None:
        precomputed.request(computed)
        context["being_computed"] = True
    if summary is None or not summary["figures"]:
        return render(request, "results/design.html", context)
    figures = summary["figures"]
    figure = request.GET.get("figure")
    if figure not in figures:
        figure = next((f for f in ("micro|relations|HYP|EQUAL", "micro|evalb||", "micro|deps-las||") if f in figures),
                      figures[0])
    runs = summary["runs"]
    row = precomputed.of_figure(computed, figure) or {"genres": {}}
    pairs = headlines.figure_pairs(computed, figure)
    choices = [(f"{p['a']}-{p['b']}", f"{runs[str(p['a'])]['name']} vs {runs[str(p['b'])]['name']}", p)
               for p in pairs]
    wanted = request.GET.get("pair")
    default = precomputed.default_pair(pairs, runs)
    chosen = next((c for c in choices if c[0] == wanted), None) or next(
        (c for c in choices if c[2] is default), None)
    try:
        target = float(request.GET.get("target", "1")) / 100
    except ValueError:
        target = 0.01
    target = target if 0 < target < math.inf else 0.01
    rows, total = [], None
    sentences = summary["sentences"]
    if chosen:
        names = {g.code: g.name for g in campaign.genres.all()}
        names[ALL] = _("All genres")
        genres = precomputed.genre_errors(computed, row, chosen[2]["a"], chosen[2]["b"], figure, sentences)
        for need in design.plan_detectable(sentences, genres["detectable"], target, genres["se"]):
            rows.append({"stratum": need.stratum, "name": names.get(need.stratum, need.stratum),
                         "sentences": need.sentences, "detectable": _points(need.detectable), "needed": need.needed})
        pooled = rows[-1]["needed"]
        total = [(names.get(g, g), n) for g, n in design.split(pooled, sentences).items()] if pooled else None
    context.update({"figure": figure, "figure_label": _figure_label(figure),
                    "figures": [(f, _figure_label(f)) for f in figures],
                    "pairs": [(key, label) for key, label, _ in choices], "pair": chosen[0] if chosen else "",
                    "target": f"{100 * target:g}", "rows": rows, "split": total,
                    "target_points": _points_text(100 * target)})
    return render(request, "results/design.html", context)


def _points_text(points: float) -> str:
    """"1 point", "2 points", "0.5 points": the difference to detect, in words."""
    return ngettext("%(points)s point", "%(points)s points", 1 if points == 1 else 2) % {"points": f"{points:g}"}
