"""What the organisers' design aid reads of a significance set, computed once when the set is stored.

The design aid says, per genre, what difference a pair's test detects with 80% power
(:func:`parseval.evaluation.design.detectables`, from the standard error of each genre's cell): a page never
computes it. :func:`store` runs right after a set is stored (:data:`evaluation.significance.sets.set_stored`,
sent last by :func:`~evaluation.significance.sets.compute`, in the worker) and keeps, in
:class:`~evaluation.models.SignificanceSummary` rows named by the set's id and :func:`stamp`:

* the set's row (``figure`` empty): its figures, its compared results with what the design aid says of
  their runs (name, synthetic, the platform's consensus), its test sentences per genre and its alpha;
* one row per figure: for the pair the design aid opens on (:func:`default_pair`), per genre and over all
  genres, the standard error and the difference the current sentences detect. Another pair's are read from
  its one stored table when the design aid first shows it, and cached under the set's id and stamp
  (:func:`genre_errors`): every pair's at once would read every pair's whole genre × type table.

The pairs' headlines are not copied here: the ranking, the comparison, the design aid's list of pairs and
the significance document read them from the set's packed rows (:mod:`evaluation.significance.headlines`),
formatting only the pairs they show. Kept here, every headline had to be written again for each new run
(each changes every pair's Holm-adjusted p-value): more CPU than the set itself at a hundred runs.

The rows of a campaign's previous sets are removed when new ones are stored: one summary per campaign. A
design aid that finds no summary for the newest set says its figures are being computed (:func:`missing`),
and asks a worker for them (:func:`request`) when the worker is not this process;
``python manage.py precompute_significance`` computes them for sets stored before this module's version.
"""
from __future__ import annotations

import hashlib
import json
import logging
from typing import Iterator

import numpy as np
from celery import shared_task
from django.conf import settings
from django.db import transaction

from evaluation.models import Result, SignificanceSet, SignificanceSummary
from evaluation.pipeline.worker import ask_once
from evaluation.significance import headlines, sets as significance
from parseval.evaluation import design

logger = logging.getLogger(__name__)

VERSION = 2  # the shape of the stored values: rows of another version are never read
PRECOMPUTE_TASK = "evaluation.significance_tasks.precompute_pages"


def stamp(computed: SignificanceSet) -> str:
    """A digest of what the set compared and how: a set changed in place (new results) gets a new stamp."""
    described = [computed.pk, computed.created_at.isoformat() if computed.created_at else None,
                 sorted(computed.results or []), computed.signature, computed.method, computed.resamples,
                 computed.seed, computed.alpha, computed.sentences]
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:32]


def build(computed: SignificanceSet) -> dict[str, dict]:
    """``{"": the set's row, figure: the figure's row}`` (see the module's docstring), from the stored set."""
    return dict(_rows(computed))


def _rows(computed: SignificanceSet) -> Iterator[tuple[str, dict]]:
    """The summary's rows, ``(figure, data)``: the set's row, then one per figure with at least one pair
    (sorted), holding what each genre detects for the pair the design aid opens on."""
    results = sorted(computed.results or [])
    runs = {r.pk: {"run": r.run_id, "name": r.run.name, "synthetic": r.run.synthetic,
                   "consensus": r.run.team.system}
            for r in Result.objects.filter(pk__in=results).select_related("run__team")
            .only("pk", "run_id", "run__name", "run__synthetic", "run__team__system")}
    sentences = {str(g): int(n) for g, n in (computed.sentences or {}).items()}
    columns = headlines.figure_columns(computed, columns=significance.defined_pairs)
    # What each genre detects, for the pair the design aid opens on (one stored table per pair: any other
    # pair's is read once, when asked for, and cached: genre_errors).
    defaults: dict[tuple[int, int], list[str]] = {}
    for figure, found in columns.items():
        chosen = _default_index(found, runs)
        defaults.setdefault((int(found["a"][chosen]), int(found["b"][chosen])), []).append(figure)
    genres: dict[str, dict] = {figure: {} for figure in columns}
    for (a, b), named in defaults.items():  # mostly one pair for every figure: its stored tables in one query
        for figure, found in _genres(computed, a, b, named, sentences).items():
            genres[figure][pair_key(a, b)] = found
    yield "", {"figures": sorted(columns), "runs": {str(k): v for k, v in runs.items()}, "sentences": sentences,
               "alpha": computed.alpha}
    for figure in sorted(columns):
        yield figure, {"genres": genres[figure]}


def _default_index(found: dict, runs: dict) -> int:
    """:func:`default_pair` of a figure's pairs given as columns: the index of the first pair it would pick."""
    ids = sorted(set(found["a"].tolist()) | set(found["b"].tolist()))
    described = [runs.get(pk) or {"synthetic": False, "consensus": False} for pk in ids]
    consensus = np.array([int(bool(d["consensus"])) for d in described])
    other = np.array([int(bool(d["synthetic"] or d["consensus"])) for d in described])  # not a real run
    a, b = np.searchsorted(ids, found["a"]), np.searchsorted(ids, found["b"])
    return int(np.argmin((consensus[a] + consensus[b]) * 3 + other[a] + other[b]))  # the first of the least


def _genres(computed: SignificanceSet, a: int, b: int, figures: list[str], sentences: dict) -> dict[str, dict]:
    """``{figure: {"se": {genre or ALL: standard error}, "detectable": {genre or ALL: what it detects}}}`` of
    the pair's difference on each of ``figures``, from its stored tables (one query)."""
    out = {figure: {"se": {}, "detectable": {}} for figure in figures}
    for figure, se in significance.pair_genre_errors(computed, a, b, figures=list(figures)).items():
        out[figure] = {"se": se,
                       "detectable": design.detectables(sentences, se, alpha=computed.alpha) if sentences else {}}
    return out


def default_pair(entries: list[dict], runs: dict) -> dict | None:
    """The pair the design aid opens on: two real runs (docs/significance.md), neither a synthetic demo run nor
    the platform's consensus pseudo-run, which is made of the others and agrees with each more than two parsers
    do; failing that, two runs of teams (synthetic ones) rather than a run against the consensus."""
    def describe(result: int) -> dict:
        return runs.get(result) or runs.get(str(result)) or {"synthetic": False, "consensus": False}

    def real(run: dict) -> bool:
        return not run["synthetic"] and not run["consensus"]

    return min(entries, key=lambda e: (describe(e["a"])["consensus"] + describe(e["b"])["consensus"],
                                       (not real(describe(e["a"]))) + (not real(describe(e["b"])))), default=None)


def genre_errors(computed: SignificanceSet, row: dict, a: int, b: int, figure: str, sentences: dict) -> dict:
    """What each genre detects for pair ``a``, ``b`` (lower result first) on ``figure``: the summary's for the
    pair the design aid opens on; any other pair's read from its one stored table the first time it is asked
    for and then cached under the set's id and stamp (milliseconds: one row, a few genres)."""
    from django.core.cache import cache

    key = pair_key(a, b)
    if key in row.get("genres", {}):
        return row["genres"][key]
    cache_key = f"significance:genres:{computed.pk}:{stamp(computed)}:{VERSION}:{key}:{figure}"
    found = cache.get(cache_key)
    if found is None:
        found = _genres(computed, a, b, [figure], sentences)[figure]
        cache.set(cache_key, found, timeout=7 * 24 * 3600)
    return found


def pair_key(a: int, b: int) -> str:
    """A pair's key in a figure's ``genres``, lower result first."""
    return f"pair:{min(a, b)}-{max(a, b)}"


def store(computed: SignificanceSet) -> None:
    """Compute and keep the set's summary, replacing the campaign's older ones (one short transaction)."""
    mark = stamp(computed)
    rows = [SignificanceSummary(campaign_id=computed.campaign_id, set_id=computed.pk, stamp=mark, version=VERSION,
                                figure=figure, data=data) for figure, data in _rows(computed)]
    with transaction.atomic():
        SignificanceSummary.objects.filter(campaign_id=computed.campaign_id).delete()
        SignificanceSummary.objects.bulk_create(rows)


def on_set_stored(sender, computed: SignificanceSet, **kwargs) -> None:
    """:data:`evaluation.significance.sets.set_stored`'s receiver: the set's summary, never failing the computation that stored the set (a page
    then says the figures are being computed and asks again)."""
    try:
        store(computed)
    except Exception:
        logger.exception("could not precompute the pages of significance set %s", computed.pk)


# -- reading (pages: no test, no detectable difference computed here) ----------------------------------

def _row(computed: SignificanceSet | None, figure: str) -> dict | None:
    if computed is None:
        return None
    return (SignificanceSummary.objects.filter(set_id=computed.pk, figure=figure, stamp=stamp(computed),
                                               version=VERSION).values_list("data", flat=True).first())


def of_set(computed: SignificanceSet | None) -> dict | None:
    """The set's row, or None while it is being computed (or without a set)."""
    return _row(computed, "")


def of_figure(computed: SignificanceSet | None, figure: str) -> dict | None:
    """The figure's row ``{"genres": {pair key: what each genre detects}}`` (the pair the design aid opens
    on), or None (being computed, or a figure without a pair)."""
    return _row(computed, figure)


def missing(computed: SignificanceSet | None) -> bool:
    """Whether ``computed`` is stored but its summary is not (yet): the pages' "being computed"."""
    return computed is not None and not SignificanceSummary.objects.filter(
        set_id=computed.pk, figure="", stamp=stamp(computed), version=VERSION).exists()


def request(computed: SignificanceSet) -> None:
    """Ask a worker for the summary of ``computed`` (a page found none), at most once in five minutes per set;
    never when tasks run in this process (it would make the page compute it)."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        ask_once(f"significance:summary:asked:{computed.pk}:{stamp(computed)}", PRECOMPUTE_TASK, computed.pk)


@shared_task(name=PRECOMPUTE_TASK, ignore_result=True)
def precompute_pages(set_id: int) -> str:
    """The summary of set ``set_id`` if it is still its campaign's newest and has none."""
    computed = SignificanceSet.objects.filter(pk=set_id, complete=True).first()
    if computed is None or significance.latest_set(computed.campaign) != computed:
        return "superseded"
    if not missing(computed):
        return "already computed"
    store(computed)
    return "computed"
