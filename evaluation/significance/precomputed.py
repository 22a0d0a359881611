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
from typing import Iterator

import numpy as np
from celery import shared_task
from django.conf import settings
from django.db import connections, router, transaction
from django.utils import timezone

from evaluation.models import Result, SignificanceSet, SignificanceSummary
from evaluation.pipeline.worker import ask_once
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
    return {key: json.loads(text) for key, text in _texts(_gather(computed))}


def _gather(computed: SignificanceSet) -> dict:
    """What the summary's rows are written from, read from the stored set: the set's row, and per figure its
    pairs' headlines as columns (:func:`evaluation.significance.sets.headline_columns`) and the genres of
    the pair the design aid opens on."""
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
    # Every pair of a figure once (result a < result b), in (a, b) order, across the figure's rows (one per track).
    by_figure: dict[str, list[dict]] = {figure: [] for figure in names}
    for row in computed.figures.filter(figure__in=sorted(names)).values("figure", "results", "family", "heads"):
        by_figure[row["figure"]].append(significance.headline_columns(row, computed.alpha))
    columns = {}
    for figure, parts in sorted(by_figure.items()):
        joined = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]} if parts else None
        if joined is None or not len(joined["a"]):
            columns[figure] = None
            continue
        order = np.lexsort((joined["b"], joined["a"]))
        columns[figure] = {name: values[order] for name, values in joined.items()}
    # What each genre detects, for the pair the design aid opens on (one stored table per pair: any other
    # pair's is read once, when asked for, and cached: genre_errors).
    defaults: dict[tuple[int, int], list[str]] = {}
    for figure, found in columns.items():
        chosen = _default_index(found, runs)
        if chosen is not None:
            defaults.setdefault((int(found["a"][chosen]), int(found["b"][chosen])), []).append(figure)
    genres: dict[str, dict] = {figure: {} for figure in columns}
    for (a, b), named in defaults.items():  # mostly one pair for every figure: its stored tables in one query
        for figure, found in _genres(computed, a, b, named, sentences).items():
            genres[figure][pair_key(a, b)] = found
    return {"set": {"figures": sorted(columns), "runs": {str(k): v for k, v in runs.items()}, "sentences": sentences,
                    "alpha": computed.alpha, "document": True}, "columns": columns, "genres": genres}


def _default_index(found: dict | None, runs: dict) -> int | None:
    """:func:`default_pair` of a figure's pairs given as columns: the index of the first pair it would pick."""
    if found is None:
        return None
    ids = sorted(set(found["a"].tolist()) | set(found["b"].tolist()))
    described = [runs.get(pk) or {"synthetic": False, "consensus": False} for pk in ids]
    consensus = np.array([int(bool(d["consensus"])) for d in described])
    other = np.array([int(bool(d["synthetic"] or d["consensus"])) for d in described])  # not a real run
    a, b = np.searchsorted(ids, found["a"]), np.searchsorted(ids, found["b"])
    return int(np.argmin((consensus[a] + consensus[b]) * 3 + other[a] + other[b]))  # the first of the least


# A headline as :func:`evaluation.significance.sets.headline` gives it, written as json.dumps writes it.
_HEADLINE = ('{"diff": %s, "ci": %s, "se": %s, "p": %s, "p_holm": %s, "significant": %s, "family": %d, "mde": %s, '
             '"mde_family": %s, "agreement": {' + ", ".join(f'"{name}": %d' for name in significance.AGREEMENT)
             + '}}')


def _numbers(values: np.ndarray) -> list[str]:
    """Floats as json.dumps writes them (their repr; an infinity as Infinity), NaN as null (None in the
    headline)."""
    out = list(map(repr, values.tolist()))
    for k in np.flatnonzero(~np.isfinite(values)):
        out[k] = "null" if np.isnan(values[k]) else json.dumps(float(values[k]))
    return out


def _headlines(found: dict) -> list[str]:
    """The JSON text of each pair's headline of one figure (columns of headline_columns)."""
    diff, low, high, se, p, p_holm, mde, mde_family = (_numbers(found[name]) for name in (
        "diff", "ci_low", "ci_high", "se", "p", "p_holm", "mde", "mde_family"))
    ci = [f"[{x}, {y}]" if x != "null" else "null" for x, y in zip(low, high)]
    significant = ["true" if s else "false" for s in found["significant"].tolist()]
    return [_HEADLINE % (d, c, e, q, h, s, f, m, mf, *agreement) for d, c, e, q, h, s, f, m, mf, agreement in zip(
        diff, ci, se, p, p_holm, significant, found["family"].tolist(), mde, mde_family,
        found["agreement"].tolist())]


def _texts(gathered: dict) -> Iterator[tuple[str, str]]:
    """The summary's rows as ``(figure, JSON text)``, the text json.dumps writes of each: the set's row, the
    figures' (sorted), the pairs' (in the order they first appear), then the document's (one per figure, as
    :func:`document_pairs` reads them). Each headline is written once, for its figure's row, its pair's and
    the document's: a hundred runs' summary holds 4,950 pairs on each of 40 figures."""
    yield "", json.dumps(gathered["set"])
    pairs: dict[tuple[int, int], list[str]] = {}
    documents: list[tuple[str, str]] = []
    for figure, found in gathered["columns"].items():
        entries, documented = [], []
        if found is not None:
            name = json.dumps(figure)
            for a, b, text in zip(found["a"].tolist(), found["b"].tolist(), _headlines(found)):
                entries.append(f'{{"a": {a}, "b": {b}, "headline": {text}}}')
                documented.append(f"[{a}, {b}, {text}]")
                pairs.setdefault((a, b), []).append(f"{name}: {text}")
        yield figure, f'{{"pairs": [{", ".join(entries)}], "genres": {json.dumps(gathered["genres"][figure])}}}'
        if documented:
            documents.append((DOCUMENT + figure, json.dumps({"pairs": f"[{', '.join(documented)}]"})))
    for (a, b), headlines in pairs.items():
        yield pair_key(a, b), f'{{"headlines": {{{", ".join(headlines)}}}}}'
    yield from documents


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


def pair_key(a: int, b: int) -> str:
    """The row of a pair (its headline on every figure), lower result first."""
    return f"pair:{min(a, b)}-{max(a, b)}"


def store(computed: SignificanceSet) -> None:
    """Compute and keep the set's summary, replacing the campaign's older ones (one short transaction)."""
    gathered = _gather(computed)
    mark = stamp(computed)
    with transaction.atomic():
        SignificanceSummary.objects.filter(campaign_id=computed.campaign_id).delete()
        _insert(computed, mark, _texts(gathered))


def _copies(connection) -> bool:
    return connection.vendor == "postgresql"


def _insert(computed: SignificanceSet, mark: str, texts: Iterator[tuple[str, str]]) -> None:
    """The rows, written as they are made. On PostgreSQL their JSON texts are copied in as they are: the ORM
    would decode nothing but encode every row again, and its bulk insert passes each column as one array,
    whose text psycopg escapes quote by quote (a hundred runs' summary: about 150 MB of JSON, a minute)."""
    now = timezone.now()
    connection = connections[router.db_for_write(SignificanceSummary)]
    if _copies(connection):
        fields = [SignificanceSummary._meta.get_field(name).column
                  for name in ("campaign", "set_id", "stamp", "version", "figure", "data", "created_at")]
        with connection.cursor() as cursor, cursor.copy(
                f"COPY {connection.ops.quote_name(SignificanceSummary._meta.db_table)} "
                f"({', '.join(connection.ops.quote_name(f) for f in fields)}) FROM STDIN") as copy:
            for figure, text in texts:
                copy.write_row((computed.campaign_id, computed.pk, mark, VERSION, figure, text, now))
        return
    batch = []
    for figure, text in texts:
        batch.append(SignificanceSummary(campaign_id=computed.campaign_id, set_id=computed.pk, stamp=mark,
                                         version=VERSION, figure=figure, data=json.loads(text)))
        if len(batch) == 50:
            SignificanceSummary.objects.bulk_create(batch)
            batch = []
    SignificanceSummary.objects.bulk_create(batch)


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
