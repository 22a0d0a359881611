"""What teams and the public see of test-run figures before the gold release (docs/threat-model.md).

A run's counts per genre × type are sums over the scored sentences only. A team that uploads a run
whose sentences carry 1, 2, 4, ... 2^j items of one type reads from its own ``fp`` in each cell which
of those sentences are scored: membership, decoded from the run's own figures at the results
release. So, unless the campaign's organisers chose full figures (``Campaign.team_figures``), what
anyone but the organisers sees of test-run results between the results release and the gold release
is, cell by cell:

* no counts: ``fc``, ``fp`` and ``cr`` are ``None`` (they come back at the gold release, when
  membership is public anyway);
* rates (P, R, F and their intervals) to 0.1 point, the precision the pages print: a rate is a ratio
  of two sums over the scored sentences, and its full float would give those sums back;
* with ``primary`` (the default), one figure per layer (F of all genres and types together, in the
  layer's first way of scoring) of each team's *primary* run (its latest active test run), nothing of
  its other runs, and no paired test: a team reads one figure per layer, so no run of its own calibrates
  another, and a single F carries the gold's unknown size in its denominator. Measured by
  :mod:`evaluation.results.secrecy_budget`: at most 1 decodable sentence per team on the demo campaigns and a
  40,000-sentence campaign, where ``pooled`` gives 14 per extra run (docs/threat-model.md). Where even that
  figure would let the admitted teams decode more than 1 bit per run or 1 % of the non-development sentences
  (a small test set with very long sentences, many teams), no figure at all is shown before the gold release;
* with ``pooled``, P, R and F of the cells of all genres and all types together for every way and run:
  a difference between two runs then reads a sum over the whole test set; with ``rates``, the cells per
  genre and type too, but no cell of a genre with fewer than ``Campaign.min_genre_sentences`` scored
  sentences; no cell at all if the whole test set is that small.

The plausibility bound at validation (:mod:`parseval.annotations.plausibility`) refuses the runs that carry
such an encoding in the first place; this module makes what a run that slips under it can show a
rate over many sentences. Organisers always see everything.
"""
from __future__ import annotations

from campaign import visibility
from campaign.models import Campaign, Run, TeamFigures
from evaluation.models import ResultCell
from evaluation.results.secrecy_shape import campaign_budget, scored_sentences_by_genre

from evaluation.results.text import percent

COUNTS = ("fc", "fp", "cr")
RATES = ("p", "r", "f")
DECIMALS = 3  # fractions to 0.001: 0.1 point, as the pages print them
ALL = "ALL"
# The engine may spell "all genres/types together" differently; the pages use ALL.
_POOLED_SPELLINGS = {"all", "*", "_all", "__all__", "total", ""}


def pooled(value: str) -> str:
    return ALL if value is None or value.strip().lower() in _POOLED_SPELLINGS else value


def limited(campaign: Campaign) -> bool:
    """Whether figures shown to anyone but the organisers are limited now (before the gold release, unless the
    organisers chose full figures)."""
    return campaign.team_figures != TeamFigures.FULL and not visibility.gold_is_released(campaign)


def _shown_type(campaign: Campaign, type_: str) -> bool:
    return type_ == ALL or campaign.team_figures not in (TeamFigures.POOLED, TeamFigures.PRIMARY)


def _one_figure(campaign: Campaign) -> bool:
    return campaign.team_figures == TeamFigures.PRIMARY


def primary_run_ids(campaign: Campaign) -> set[int]:
    """Each team's primary run: its latest active (neither withdrawn nor disqualified) test run. Under ``primary``
    figures it is the only one whose figure anyone but the organisers sees before the gold release."""
    latest: dict[int, int] = {}
    rows = (Run.objects.filter(campaign=campaign, scope=Run.Scope.TEST, withdrawn_at__isnull=True,
                               disqualified=False).order_by("uploaded_at", "pk").values_list("team_id", "pk"))
    for team_id, pk in rows:
        latest[team_id] = pk
    return set(latest.values())


def _official(cells: list[dict]) -> list[dict]:
    """One figure per layer: F of the layer's first cell of all genres and types together (the engine's first
    way: HYP EQUAL for EASY relations), rounded, without P, R or interval."""
    out, seen = [], set()
    for cell in cells:
        layer = cell.get("layer")
        if layer in seen or cell.get("aggregation", "micro") != "micro":
            continue
        seen.add(layer)
        out.append(dict(rate_cell(cell), p=None, r=None, ci=None))
    return out


def limited_for(user, campaign: Campaign) -> bool:
    return limited(campaign) and not visibility.is_organiser(user, campaign)


def hidden_genres(campaign: Campaign) -> set[str]:
    """Genre codes (``ALL`` included when the whole test set is small) whose cells are not shown."""
    counts = scored_sentences_by_genre(campaign)
    least = campaign.min_genre_sentences
    pooled = campaign.team_figures == TeamFigures.POOLED
    hidden = {code for code, n in counts.items() if pooled or n < least}
    hidden |= {g for g in campaign.genres.values_list("code", flat=True) if pooled or counts.get(g, 0) < least}
    if sum(counts.values()) < least or (_one_figure(campaign) and _over_budget(campaign)):
        hidden.add(ALL)
    return hidden


def _over_budget(campaign: Campaign) -> bool:
    """Whether one figure per layer of each primary run would let the admitted teams decode more than 1 bit per run
    or 1 % of the non-development sentences (:mod:`evaluation.results.secrecy_budget`, cached): then none is shown before
    the gold release, as no figure is shown of a test set below the minimum."""
    budget = campaign_budget(campaign)
    return budget is not None and budget.withheld is not None


def _rounded(value):
    return None if value is None else round(value, DECIMALS)


def rate_cell(cell: dict) -> dict:
    """A cell as :mod:`evaluation.results.summaries` shapes it, with rates rounded and no counts."""
    out = dict(cell)
    for key in COUNTS:
        out[key] = None
    for key in RATES:
        out[key] = _rounded(cell.get(key))
    if cell.get("ci"):
        out["ci"] = [_rounded(v) for v in cell["ci"]]
    return out


def limit_cells(cells: list[dict], hidden: set[str], campaign: Campaign) -> list[dict]:
    """Cells shaped by :mod:`evaluation.results.summaries` (pooled genres and types spelt ``ALL``) as teams may see them now."""
    if _one_figure(campaign):
        return [] if ALL in hidden else _official([c for c in cells if c["genre"] == ALL and c["type"] == ALL])
    return [rate_cell(c) for c in cells if c["genre"] not in hidden and _shown_type(campaign, c["type"])]


def limit_results(data: dict | None, campaign: Campaign) -> dict | None:
    """A :func:`evaluation.results.summaries.campaign_results` dict (live or a snapshot's) as teams may see it now."""
    if data is None or not limited(campaign):
        return without_test_counts(data, campaign)
    hidden = hidden_genres(campaign)
    primary = primary_run_ids(campaign) if _one_figure(campaign) else None
    runs = []
    for entry in data.get("runs", []):
        if entry.get("scope") == "dev":  # a development check is scored on public gold: shown in full
            runs.append(entry)
            continue
        if primary is not None and entry.get("run") not in primary:
            # a team's other runs: listed, their figures at the gold release
            runs.append(limit_entry(dict(entry, cells=[]), hidden, campaign))
            continue
        runs.append(limit_entry(entry, hidden, campaign))
    return dict(data, runs=runs, figures=campaign.team_figures)


def limit_document(document: dict, run) -> dict:
    """The engine's result document of ``run`` as its team receives it
    (:func:`evaluation.pipeline.services.public_result_document`). Development checks are scored on public gold:
    never limited."""
    campaign = run.campaign
    if run.scope == run.Scope.DEV or not limited(campaign):
        return document
    hidden = hidden_genres(campaign)

    def shaped(cells):
        if _one_figure(campaign):
            if ALL in hidden or run.pk not in primary_run_ids(campaign):
                return []
            return _official([c for c in cells or [] if pooled(c.get("genre")) == ALL and pooled(c.get("type")) == ALL])
        out = []
        for cell in cells or []:
            if pooled(cell.get("genre")) in hidden or not _shown_type(campaign, pooled(cell.get("type"))):
                continue
            out.append(rate_cell(cell))
        return out

    return dict(document, cells=shaped(document.get("cells")), macro=shaped(document.get("macro")),
                figures=campaign.team_figures)


def limit_summary(rows: list[dict], campaign: Campaign, run=None) -> list[dict] | None:
    """The pooled rows a run page shows first (:func:`evaluation.pipeline.services.result_summary`), limited as
    :func:`limit_results`: rates to 0.1 point, nothing when the whole test set is below the minimum; under
    ``primary``, the first row of each layer with its F alone, and nothing for a run that is not its team's
    primary run (or when ``run`` is not given)."""
    if not limited(campaign):
        return rows
    if ALL in hidden_genres(campaign):
        return None
    if _one_figure(campaign):
        if run is None or run.pk not in primary_run_ids(campaign):
            return None
        out, seen = [], set()
        pooled_counts = {ResultCell.Aggregation.MICRO.value, ResultCell.Aggregation.MICRO.label}
        micro = [row for row in rows if row.get("aggregation", "micro") in pooled_counts]
        for row in micro or rows:
            if row.get("layer") in seen:
                continue
            seen.add(row.get("layer"))
            shown = dict(row.get("shown") or {}, p="–", r="–", ci="")
            out.append(dict(row, p=None, r=None, f=_rounded(row.get("f")), ci=None, shown=shown))
        return out
    out = []
    for row in rows:
        row = dict(row, **{k: _rounded(row.get(k)) for k in RATES if k in row})
        if row.get("ci"):
            row["ci"] = tuple(_rounded(v) for v in row["ci"])
        out.append(row)
    return out


# -- the paired tests (evaluation.significance.sets): the same limits on differences between runs ---------------

_DIFFERENCES = ("diff", "se", "mde", "mde_family")
# A p-value is a function of the difference and its standard error (their ratio, through the normal quantile): to
# six significant digits it read them more finely than they are shown, so it is kept to the same 0.001.
_P_VALUES = ("p", "p_holm", "p_bh")


def _rounded_difference(cell: dict) -> dict:
    out = dict(cell)
    for key in _DIFFERENCES + _P_VALUES:
        if key in out:
            out[key] = _rounded(out[key])
    if out.get("ci"):
        out["ci"] = [_rounded(v) for v in out["ci"]]
    return out


def _limited_headline(head: dict | None, hidden: set[str]) -> dict | None:
    # The difference of two pooled rates is itself rounded to 0.1 point (its full float gives the difference of
    # two sums over the scored sentences back), and the agreement across genres (one one-sided test per genre) is
    # left out while genre cells are.
    if head is None:
        return None
    out = _rounded_difference(head)
    if hidden and "agreement" in out:
        out["agreement"] = None
    return out


def limit_pair_tables(tables: dict, user, campaign: Campaign) -> dict:
    """The paired tests as ``user`` may see them now: the one place that limits them, for the comparison page,
    the ranking page and the significance document (page JSON and API) alike.

    ``tables``: ``{key: {"headline": headline, "cells": {genre: {type: cell}}, ...}}``, as
    :func:`evaluation.significance.sets.pair_tables` gives them by figure (or headlines alone, with empty cells:
    :func:`limit_headlines`). For anyone but the organisers while figures are limited: the cells of the genres
    and types :func:`limit_results` hides are left out, the other cells and the headline rounded, the headline's
    agreement across genres left out while genre cells are; nothing when the whole test set is below the
    minimum."""
    if not limited_for(user, campaign):
        return tables
    hidden = hidden_genres(campaign)
    if ALL in hidden or _one_figure(campaign):  # under ``primary``: the paired tests come with the gold release
        return {}
    out = {}
    for key, table in tables.items():
        cells = {genre: {t: (_rounded_difference(c) if c else c) for t, c in types.items()
                         if _shown_type(campaign, t)}
                 for genre, types in table["cells"].items() if genre not in hidden}
        out[key] = dict(table, headline=_limited_headline(table["headline"], hidden), cells=cells)
    return out


def limit_headlines(heads: dict, user, campaign: Campaign) -> dict:
    """``{key: headline}`` (pairs with their headline only) as ``user`` may see them now: :func:`limit_pair_tables`."""
    tables = limit_pair_tables({key: {"headline": head, "cells": {}} for key, head in heads.items()}, user, campaign)
    return {key: table["headline"] for key, table in tables.items()}


# -- counts of test sentences, and the consensus pseudo-run: under the same limits as every run -------------

def counts_shown(user, campaign: Campaign) -> bool:
    """Whether ``user`` may read how many test sentences there are (per genre or in all): the size of the test
    subset per genre is part of the subset (:func:`campaign.visibility.can_see_test_subset`), and the total is the
    denominator a probe run's rounded rate is read against. Organisers; everyone once the gold is released."""
    return visibility.can_see_test_subset(user, campaign)


def limit_sentence_counts(counts: dict | None, user, campaign: Campaign) -> dict | None:
    """``{genre: test sentences}`` (a significance set's ``sentences``) as ``user`` may see it: None unless
    :func:`counts_shown`."""
    return counts if counts_shown(user, campaign) else None


_ORACLE_COUNTS = ("picked", "sentences")  # counts of test sentences in a consensus oracle


def limit_consensus(entry: dict, campaign: Campaign, hidden: set[str] | None = None) -> dict:
    """What the pages say of a consensus pseudo-run (:func:`evaluation.results.summaries.consensus_entry`), as anyone but
    the organisers may see it now: the same limits as the run's own cells (:func:`limit_cells`).

    The oracle is a rate of sums over the scored sentences like any cell: its value rounded, its genre values only
    for the genres whose cells are shown (none under ``pooled``), and neither how many test sentences it was read
    on (``sentences``) nor how many of them each combined run won (``picked``: counts of test sentences). The
    agreement between the combined runs is rounded as a rate is."""
    if not limited(campaign):
        return _oracle_without_counts(entry, campaign)
    hidden = hidden_genres(campaign) if hidden is None else hidden
    out = dict(entry)
    # Under ``primary`` a team reads one figure of one run: the oracle and the agreement would be more readouts of
    # test-set sums than the secrecy budget counts (:mod:`evaluation.results.secrecy_budget`), so they wait for the gold.
    one_figure = _one_figure(campaign)
    if out.get("mean_agreement") is not None:
        out["mean_agreement"] = None if one_figure else _rounded(out["mean_agreement"])
    oracle = entry.get("oracle")
    if oracle:
        shown = not one_figure and ALL not in hidden and _shown_type(campaign, oracle.get("type") or ALL)
        genres = {g: _rounded(v) for g, v in (oracle.get("genres") or {}).items() if shown and g not in hidden}
        out["oracle"] = {key: value for key, value in oracle.items() if key not in _ORACLE_COUNTS}
        out["oracle"].update(value=_rounded(oracle.get("value")) if shown else None, genres=genres)
        out["oracle_text"] = "" if out["oracle"]["value"] is None else percent(out["oracle"]["value"])
    return out


def _oracle_without_counts(entry: dict, campaign: Campaign) -> dict:
    # Counts of test sentences are the organisers' until the gold release whatever the team figures, as the genre
    # statistics' annotated counts are (:func:`counts_shown`): under ``full`` too.
    oracle = entry.get("oracle")
    if not oracle or visibility.gold_is_released(campaign):
        return entry
    return dict(entry, oracle={k: v for k, v in oracle.items() if k not in _ORACLE_COUNTS})


def without_test_counts(data: dict | None, campaign: Campaign) -> dict | None:
    """A results dict whose figures are not limited (``full``, or after the gold release), without the counts of
    test sentences it may hold (the consensus oracle's) until the gold release."""
    if data is None or visibility.gold_is_released(campaign):
        return data
    return dict(data, runs=[dict(e, consensus=_oracle_without_counts(e["consensus"], campaign))
                            if e.get("consensus") else e for e in data.get("runs", [])])


def limit_entry(entry: dict, hidden: set[str], campaign: Campaign) -> dict:
    """One run of a :func:`evaluation.results.summaries.campaign_results` dict as anyone but the organisers may see it now:
    its cells (:func:`limit_cells`) and, for the consensus pseudo-run, what is said of it (:func:`limit_consensus`).
    The one function every run goes through, a team's or the consensus."""
    out = dict(entry, cells=limit_cells(entry.get("cells", []), hidden, campaign))
    if entry.get("consensus"):
        out["consensus"] = limit_consensus(entry["consensus"], campaign, hidden)
    return out
