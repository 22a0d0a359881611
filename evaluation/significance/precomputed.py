"""What the design aid and the ranking read of a significance set, computed once when the set is stored.

A page never computes a detectable difference, a power figure or a test: :func:`store` runs right after a set
is stored (:data:`evaluation.significance.sets.set_stored`, sent last by
:func:`~evaluation.significance.sets.compute`, in the worker) and keeps, in
:class:`~evaluation.models.SignificanceSummary` rows named by the set's id and :func:`stamp`:

* the set's row (``figure`` empty): its figures, its compared results with what the design aid says of
  their runs (name, synthetic, the platform's consensus), its test sentences per genre and its alpha;
* one row per pair (``pair:a-b``): its headline on every figure, what the comparison page's summary lists;
* one row per figure: every pair once (result ``a`` < result ``b``, the difference ``a`` minus ``b``), with
  its stored headline as :func:`evaluation.significance.sets.headline_pairs` gives it (difference, interval,
  p, Holm-adjusted p, verdict, minimum detectable effect for one comparison and at the first Holm step,
  agreement across genres), and, for the pair the design aid opens on (:func:`default_pair`), per genre and
  over all genres, the standard error and the difference the current sentences detect with 80% power
  (:func:`parseval.evaluation.design.detectables`). Another pair's are read from its one stored table when
  the design aid first shows it, and cached under the set's id and stamp (:func:`genre_errors`): every
  pair's at once would build every pair's whole genre × type table, minutes at a hundred runs;
* one row per figure (``doc:`` and the figure) for the significance document (``significance.json`` and the
  API): every pair as the set stores it (run A the result listed first) with its headline, as JSON text
  (:func:`document_pairs`); the document then limits them for its reader as before.

Everything is read through the set's reading functions (:func:`~evaluation.significance.sets.pair_tables`),
whatever the set's storage. The rows of a campaign's previous sets are removed when new ones are stored:
one summary per campaign. A page that finds no summary for the newest set says the figures are being
computed (:func:`missing`), and asks a worker for them (:func:`request`) when the worker is not this
process; ``python manage.py precompute_significance`` computes them for sets stored before this module.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction

from campaign import kinds
from evaluation.models import Result, SignificanceSet, SignificanceSummary
from evaluation.significance import sets as significance
from parseval.evaluation import design
from parseval.evaluation.stats import ALL

logger = logging.getLogger(__name__)

VERSION = 1  # the shape of the stored values: rows of another version are never read
PRECOMPUTE_TASK = "evaluation.significance_tasks.precompute_pages"
DOCUMENT = "doc:"  # the rows of the significance document's pairs, one per figure ("doc:" + the figure)


def stamp(computed: SignificanceSet) -> str:
    """A digest of what the set compared and how: a set changed in place (new results) gets a new stamp."""
    described = [computed.pk, computed.created_at.isoformat() if computed.created_at else None,
                 sorted(computed.results or []), computed.signature, computed.method, computed.resamples,
                 computed.seed, computed.alpha, computed.sentences]
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:32]


def build(computed: SignificanceSet) -> dict[str, dict]:
    """``{"": the set's row, figure: the figure's row, "pair:a-b": the pair's row}`` (see the module's
    docstring), from the stored set."""
    results = sorted(computed.results or [])
    runs = {r.pk: {"run": r.run_id, "name": r.run.name, "synthetic": r.run.synthetic,
                   "consensus": r.run.team.system}
            for r in Result.objects.filter(pk__in=results).select_related("run__team")
            .only("pk", "run_id", "run__name", "run__synthetic", "run__team__system")}
    sentences = {str(g): int(n) for g, n in (computed.sentences or {}).items()}
    # The figures: those of the first pair of each track (the runs of different tracks of a dependency campaign
    # are compared within their track, as sets.compute groups them; the runs of one track share their figures).
    tracks: dict[str, list[int]] = {}
    for pk, track in Result.objects.filter(pk__in=results).values_list("pk", "document__parameters__track"):
        tracks.setdefault(track or "", []).append(pk)
    names: set[str] = set()
    for group in tracks.values():
        for a, b in itertools.combinations(sorted(group), 2):
            found = significance.pair_tables(computed, a, b)
            if found:  # else a pair left out (skipped, or scored on other gold): the next one
                names.update(found)
                break
    figures: dict[str, dict] = {}
    pairs: dict[str, dict] = {}
    for figure in sorted(names):
        heads = significance.headline_pairs(computed, figure, results)
        entries = [{"a": a, "b": b, "headline": head} for (a, b), head in sorted(heads.items()) if a < b]
        for entry in entries:
            pairs.setdefault(pair_key(entry["a"], entry["b"]), {"headlines": {}})["headlines"][figure] = entry["headline"]
        figures[figure] = {"pairs": entries, "genres": {}}
    # What each genre detects, for the pair the design aid opens on (one stored table per pair: any other
    # pair's is read once, when asked for, and cached: genre_errors).
    defaults: dict[tuple[int, int], list[str]] = {}
    for figure, row in figures.items():
        chosen = default_pair(row["pairs"], runs)
        if chosen is not None:
            defaults.setdefault((chosen["a"], chosen["b"]), []).append(figure)
    for (a, b), named in defaults.items():  # mostly one pair for every figure: its stored tables in one query
        for figure, genres in _genres(computed, a, b, named, sentences).items():
            figures[figure]["genres"][pair_key(a, b)] = genres
    rows = {"": {"figures": sorted(figures), "runs": {str(k): v for k, v in runs.items()}, "sentences": sentences,
                 "alpha": computed.alpha, "document": True}}
    rows.update(figures)
    rows.update(pairs)
    rows.update(_document_rows(computed))
    return rows


def _document_rows(computed: SignificanceSet) -> dict[str, dict]:
    """``{DOCUMENT + figure: {"pairs": text}}``: every pair of the figure as the significance document lists
    it (:func:`document_pairs`), as JSON text: a string of the jsonb column keeps the bytes (its numbers and
    its keys' order) that :func:`json.dumps` wrote, which the document must give back unchanged."""
    out = {}
    for figure in significance.stored_figures(computed):  # a figure at a time: 4,950 pairs each at 100 runs
        pairs = [[r["result_a_id"], r["result_b_id"], significance.headline(r, 1, computed.alpha)]
                 for r in significance.stored_headlines(computed, None, figure)]
        if pairs:
            out[DOCUMENT + figure] = {"pairs": json.dumps(pairs)}
    return out


def _genres(computed: SignificanceSet, a: int, b: int, figures: list[str], sentences: dict) -> dict[str, dict]:
    """``{figure: {"se": {genre or ALL: standard error}, "detectable": {genre or ALL: what it detects}}}`` of
    the pair's difference on each of ``figures``, from its stored tables (one query)."""
    out = {}
    for figure in figures:
        out[figure] = {"se": {}, "detectable": {}}
    for figure, table in significance.pair_tables(computed, a, b, figures=list(figures)).items():
        se = {g: (cells.get(ALL) or {}).get("se") for g, cells in table["cells"].items()}
        se[ALL] = table["headline"]["se"]
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


def document_pairs(computed: SignificanceSet | None, result_ids, figure: str | None = None) -> list[tuple] | None:
    """``[(figure, result a, result b, headline)]`` between ``result_ids``, of ``figure`` (all when None): what
    :func:`evaluation.significance.sets.stored_headlines` and :func:`~evaluation.significance.sets.headline`
    give the significance document (each pair as it is stored, run A the result listed first; ordered by
    figure, then results), read from the summary; None without one that holds them (being computed, or
    stored before they were): the caller reads the set."""
    if computed is None:
        return None
    mark = stamp(computed)
    rows = SignificanceSummary.objects.filter(set_id=computed.pk, stamp=mark, version=VERSION)
    head = rows.filter(figure="").values_list("data", flat=True).first()
    if not head or not head.get("document"):
        return None
    rows = rows.filter(figure=DOCUMENT + figure) if figure else rows.filter(figure__startswith=DOCUMENT)
    ids = set(result_ids)
    out = []
    # sorted here, as stored_headlines sorts: the database's collation may not order "|" as Python does
    for name, data in sorted(rows.values_list("figure", "data")):
        name = name[len(DOCUMENT):]
        out += [(name, a, b, head) for a, b, head in json.loads(data["pairs"]) if a in ids and b in ids]
    return out


def pair_key(a: int, b: int) -> str:
    """The row of a pair (its headline on every figure), lower result first."""
    return f"pair:{min(a, b)}-{max(a, b)}"


def store(computed: SignificanceSet) -> None:
    """Compute and keep the set's summary, replacing the campaign's older ones (one short transaction)."""
    rows = build(computed)
    mark = stamp(computed)
    with transaction.atomic():
        SignificanceSummary.objects.filter(campaign_id=computed.campaign_id).delete()
        SignificanceSummary.objects.bulk_create(
            [SignificanceSummary(campaign_id=computed.campaign_id, set_id=computed.pk, stamp=mark, version=VERSION,
                                 figure=figure, data=data) for figure, data in rows.items()], batch_size=50)


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
    """The figure's row ``{"pairs": [...]}``, or None (being computed, or a figure the set does not have)."""
    return _row(computed, figure)


def pair_headlines(computed: SignificanceSet | None, a: int, b: int) -> dict[str, dict] | None:
    """``{figure: headline}`` of result ``a`` minus result ``b``, as :func:`evaluation.significance.sets.pair_tables`
    gives the headlines; ``{}`` for a pair the set did not compare, None while the summary is being computed."""
    if computed is None:
        return {}
    row = _row(computed, pair_key(a, b))
    if row is None:
        return None if missing(computed) else {}
    sign = 1 if a < b else -1
    return {figure: oriented(head, sign) for figure, head in row["headlines"].items()}


def missing(computed: SignificanceSet | None) -> bool:
    """Whether ``computed`` is stored but its summary is not (yet): the pages' "being computed"."""
    return computed is not None and not SignificanceSummary.objects.filter(
        set_id=computed.pk, figure="", stamp=stamp(computed), version=VERSION).exists()


def oriented(head: dict, sign: int) -> dict:
    """A stored headline (``a`` minus ``b``) as :func:`evaluation.significance.sets.headline` turns it for
    ``sign`` −1 (``b`` minus ``a``): the difference and interval negated, the agreement swapped; the standard
    error, p-values and detectable differences are those of the pair."""
    if sign > 0:
        return head
    ci = head.get("ci")
    return dict(head, diff=None if head.get("diff") is None else -head["diff"],
                ci=None if ci is None else [-ci[1], -ci[0]],
                agreement=significance.swapped(head.get("agreement") or {}))


def headline_pairs(row: dict | None, result_ids) -> dict[tuple[int, int], dict]:
    """As :func:`evaluation.significance.sets.headline_pairs`, from a figure's stored row."""
    if not row:
        return {}
    ids = set(result_ids)
    out = {}
    for pair in row["pairs"]:
        a, b = pair["a"], pair["b"]
        if a in ids and b in ids:
            out[(a, b)] = oriented(pair["headline"], 1)
            out[(b, a)] = oriented(pair["headline"], -1)
    return out


def request(computed: SignificanceSet) -> None:
    """Ask a worker for the summary of ``computed`` (a page found none), at most once in five minutes per set;
    never when tasks run in this process (it would make the page compute it)."""
    from django.core.cache import cache

    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    if not cache.add(f"significance:summary:asked:{computed.pk}:{stamp(computed)}", True, timeout=300):
        return
    try:
        kinds.enqueue(PRECOMPUTE_TASK, computed.pk)
    except Exception:  # the page says "being computed" either way; the next view asks again
        logger.exception("could not ask for the summary of significance set %s", computed.pk)


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
