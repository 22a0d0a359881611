"""Shaping stored results for pages, exports and the publication snapshot.

:func:`campaign_results` is the one place that turns stored rows into the
JSON-serialisable dict the results pages draw from. The governance code
stores exactly this dict in ``PublishedSnapshot.data`` at publication, so the
public page renders a snapshot and organisers render live data through the
same helpers below, which only read that dict.

Query budget: :func:`campaign_results` costs three queries whatever the number
of runs (runs with their team, their latest results, the cells of those
results).
"""
from __future__ import annotations

import json
import logging
import re
import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from django.core.cache import cache
from django.db import transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from parseval.annotations.easy.schema import DEFAULT_SCHEMA
from parseval.evaluation.easy.ranges import MATCHES, MODES
from campaign import tracks, visibility
from campaign.models import Campaign, Run, RunStatus, Sentence

from evaluation.results import disclosure
from evaluation.results.disclosure import pooled
from evaluation.models import PublishedSnapshot, Result, ResultCell
from evaluation.results.text import percent

logger = logging.getLogger(__name__)

ALL = "ALL"

# The engine's, so that a new range function or mode appears on the pages without an edit here.
EASY_MODES, EASY_MATCHES = MODES, MATCHES
CONSTITUENTS = "constituents"
RELATIONS = "relations"

_CELL_FIELDS = ("aggregation", "layer", "mode", "match", "genre", "type", "fc", "fp", "cr", "p", "r", "f", "ci_low", "ci_high")


def scored_runs(campaign: Campaign):
    """Runs that belong in a results table: evaluation scope, active, scored."""
    return (
        Run.objects.filter(
            campaign=campaign,
            scope=Run.Scope.TEST,
            status=RunStatus.SCORED,
            withdrawn_at__isnull=True,
            disqualified=False,
        )
        .select_related("team", "campaign")
        .order_by("uploaded_at", "pk")
    )


def latest_result_ids(runs: Iterable[Run]) -> dict[int, int]:
    """``{run id: id of its newest result}`` in one query."""
    run_ids = [r.pk for r in runs]
    if not run_ids:
        return {}
    newest = Result.objects.filter(run=OuterRef("pk")).order_by("-created_at", "-pk").values("pk")[:1]
    rows = Run.objects.filter(pk__in=run_ids).annotate(latest=Subquery(newest)).values_list("pk", "latest")
    return {run_id: result_id for run_id, result_id in rows if result_id is not None}


def _cell_dict(row: dict) -> dict:
    ci = [row["ci_low"], row["ci_high"]] if row["ci_low"] is not None or row["ci_high"] is not None else None
    return {
        "aggregation": row["aggregation"],
        "layer": row["layer"],
        "mode": row["mode"],
        "match": row["match"],
        "genre": pooled(row["genre"]),
        "type": pooled(row["type"]),
        "fc": row["fc"],
        "fp": row["fp"],
        "cr": row["cr"],
        "p": row["p"],
        "r": row["r"],
        "f": row["f"],
        "ci": ci,
    }


def campaign_results(campaign: Campaign, runs=None, *, cells: Q | None = None, with_cells: bool = True) -> dict:
    """The campaign's results as a JSON-serialisable dict.

    ``runs`` defaults to :func:`scored_runs`; runs without a result are left
    out. ``cells`` optionally narrows the cells loaded (a page needs a few
    hundred of the thousands a result holds); the snapshot takes them all.
    Without ``with_cells`` every run's ``cells`` is empty and none is read (:func:`served_results_json`
    writes them from each result's kept text).
    """
    if runs is None:
        runs = scored_runs(campaign)
    elif hasattr(runs, "select_related"):
        runs = runs.select_related("team")  # a caller's queryset: no query per run for the labels
    run_list = list(runs)
    latest = latest_result_ids(run_list)
    results = {
        r.pk: r
        for r in Result.objects.filter(pk__in=latest.values()).only(
            "pk", "run_id", "created_at", "metric", "signature", "scorer_version", "gold_sha256"
        )
    }
    cell_rows: dict[int, list[dict]] = defaultdict(list)
    query = ResultCell.objects.filter(result_id__in=list(latest.values()))
    if cells is not None:
        query = query.filter(cells)
    for row in query.order_by("pk").values("result_id", *_CELL_FIELDS) if with_cells else ():
        cell_rows[row["result_id"]].append(_cell_dict(row))

    entries = []
    for run in run_list:
        result = results.get(latest.get(run.pk))
        if result is None:
            continue
        if run.team.campaign_id == campaign.pk:
            run.team.campaign = campaign  # the label reads the campaign's setting; no query per run
        entries.append(
            {
                "run": run.pk,
                "label": visibility.public_team_label(run.team),
                "name": run.name,
                "description": run.system_description,
                "synthetic": run.synthetic,
                "scope": run.scope,
                "track": tracks.track_of(run, campaign),  # dependency campaigns: runs of different tracks are ranked apart
                "result": {
                    "id": result.pk,
                    "created_at": result.created_at.isoformat(),
                    "metric": result.metric,
                    "signature": result.signature,
                    "scorer_version": result.scorer_version,
                    "gold_sha256": result.gold_sha256,
                },
                "cells": cell_rows.get(result.pk, []),
                **({"consensus": consensus_entry(run)} if run.team.system else {}),
            }
        )
    entries.sort(key=lambda e: (e["label"], e["name"], e["run"]))
    return {
        "campaign": {"slug": campaign.slug, "name": campaign.name, "kind": campaign.kind},
        "generated_at": timezone.now().isoformat(),
        "genres": [{"code": g.code, "name": g.name} for g in campaign.genres.all()],
        "runs": entries,
    }


def consensus_entry(run: Run) -> dict:
    """What the pages say of a consensus pseudo-run (``Team.system``): how many runs, how weighed, its oracle.

    In the entry of the run, so that it is seen exactly where the run's figures are (live for organisers, in
    the snapshot after publication) and nowhere else."""
    combination = run.combination or {}
    oracle = combination.get("oracle") or {}
    return {"runs": len(combination.get("runs", [])), "weighting": combination.get("weighting", ""),
            "combined": [c.get("run") for c in combination.get("runs", [])],
            "mean_agreement": combination.get("mean_agreement"), "oracle": combination.get("oracle"),
            # tuned on the development sample (public gold) only, so it tells nothing of the test set
            "fallback": combination.get("fallback"),
            "oracle_text": percent(oracle.get("value")) if oracle.get("value") is not None else "",
            "oracle_figure": " ".join(p for p in (oracle.get("figure") or "").split("|")[1:] if p)}


def way_selection(query) -> tuple[str, str]:
    """The way ``(mode, match)`` a results page or its JSON asks for (``?mode=&match=``): a known one, else
    the engine's first of each (HYP, EQUAL)."""
    mode, match = query.get("mode", MODES[0]), query.get("match", MATCHES[0])
    return mode if mode in MODES else MODES[0], match if match in MATCHES else MATCHES[0]


def page_cells(layer: str, mode: str, match: str) -> Q:
    """The cells a results page draws: the chosen way in full, plus the pooled
    figures of every way (for the 15-way chart and the overview)."""
    chosen = Q(layer=layer, match=match) & (Q(mode=mode) if layer == RELATIONS else Q())
    pooled_everywhere = Q(genre__in=[ALL, "all", "*", ""]) & Q(type__in=[ALL, "all", "*", ""])
    return chosen | pooled_everywhere


def page_cells_any_layer(mode: str, match: str) -> Q:
    """As :func:`page_cells`, for a page showing both layers in one way."""
    chosen = Q(layer=RELATIONS, mode=mode, match=match) | (~Q(layer=RELATIONS) & Q(match=match))
    return chosen | (Q(genre__in=[ALL, "all", "*", ""]) & Q(type__in=[ALL, "all", "*", ""]))


def on_page(cell: dict, mode: str, match: str) -> bool:
    """:func:`page_cells_any_layer` for a cell of the dict (a snapshot's cells are already shaped)."""
    if cell["genre"] == ALL and cell["type"] == ALL:
        return True
    if cell["layer"] == RELATIONS:
        return cell["mode"] == mode and cell["match"] == match
    return cell["match"] == match


def narrowed(data: dict, mode: str, match: str) -> dict:
    return dict(data, runs=[dict(r, cells=[c for c in r["cells"] if on_page(c, mode, match)]) for r in data["runs"]])


@dataclass
class Visible:
    """What a user may see of a campaign's results, and where it comes from.

    ``source`` is ``live`` (organisers), ``snapshot`` (after publication),
    ``own`` (a team's own runs after the results release) or ``none``.
    """

    source: str
    data: dict | None
    snapshot: object = None

    @property
    def empty(self) -> bool:
        return not self.data or not self.data["runs"]


def latest_snapshot(campaign: Campaign):
    # Without its data: a snapshot is tens of megabytes at campaign scale, and pages often have it cached.
    return PublishedSnapshot.objects.filter(campaign=campaign).order_by("-created_at", "-pk").defer("data").first()


def snapshot_data(snapshot, way: tuple[str, str] | None = None) -> dict:
    """The snapshot's dict, narrowed to what a page showing ``way`` draws.

    Snapshots are immutable, so the narrowed copy is cached under the snapshot's id. On PostgreSQL the
    database narrows it (:func:`_narrowed_in_database`): the page never parses the whole snapshot, tens of
    megabytes at campaign scale, even the first time.
    """
    if way is None:
        return snapshot.data
    key = f"results:snapshot:{snapshot.pk}:{snapshot.sha256}:{way[0]}:{way[1]}"
    data = cache.get(key)
    if data is None:
        data = _narrowed_in_database(snapshot.pk, *way)
        if data is None:
            data = narrowed(snapshot.data, *way)
        cache.set(key, data, timeout=24 * 3600)
    return data


def snapshot_runs(snapshot, run_id: int) -> dict:
    """The snapshot's dict with only the entries of run ``run_id`` (a run page's), cached under the snapshot's
    id; on PostgreSQL read by the database, as :func:`snapshot_data`."""
    key = f"results:snapshot:{snapshot.pk}:{snapshot.sha256}:run:{run_id}"
    data = cache.get(key)
    if data is None:
        row = _in_database(snapshot.pk, "(data - 'runs')::text, "
                                        "jsonb_path_query_array(data, '$.runs[*] ? (@.run == $id)', "
                                        "jsonb_build_object('id', %s::bigint))::text", [run_id])
        if row is not None:
            data = dict(json.loads(row[0]), runs=json.loads(row[1]))
        else:
            data = dict(snapshot.data, runs=[r for r in snapshot.data.get("runs", []) if r.get("run") == run_id])
        cache.set(key, data, timeout=24 * 3600)
    return data


def _snapshots_database():
    """The connection the snapshots are read from when it is PostgreSQL's (their ``data`` is jsonb), else None."""
    from django.db import connections, router

    connection = connections[router.db_for_read(PublishedSnapshot)]
    return connection if connection.vendor == "postgresql" else None


def _in_database(snapshot_pk: int, select: str, params: list) -> tuple | None:
    """One row of ``select`` over the snapshot's stored ``data`` (a jsonb column), or None off PostgreSQL."""
    connection = _snapshots_database()
    if connection is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select} FROM {PublishedSnapshot._meta.db_table} WHERE id = %s",
                       [*params, snapshot_pk])
        return cursor.fetchone()


def _narrowed_in_database(snapshot_pk: int, mode: str, match: str) -> dict | None:
    """:func:`narrowed` done by PostgreSQL (the same test as :func:`on_page`, runs and cells in their order)."""
    row = _in_database(snapshot_pk, """(data - 'runs')::text, (
        SELECT coalesce(jsonb_agg(jsonb_set(r.value, '{cells}', (
            SELECT coalesce(jsonb_agg(c.value ORDER BY c.n), '[]'::jsonb)
            FROM jsonb_array_elements(coalesce(r.value->'cells', '[]'::jsonb)) WITH ORDINALITY AS c(value, n)
            WHERE (c.value->>'genre' = %s AND c.value->>'type' = %s)
               OR (c.value->>'layer' = %s AND c.value->>'mode' = %s AND c.value->>'match' = %s)
               OR (c.value->>'layer' <> %s AND c.value->>'match' = %s))) ORDER BY r.n), '[]'::jsonb)
        FROM jsonb_array_elements(coalesce(data->'runs', '[]'::jsonb)) WITH ORDINALITY AS r(value, n))::text""",
                       [ALL, ALL, RELATIONS, mode, match, RELATIONS, match])
    if row is None:
        return None
    return dict(json.loads(row[0]), runs=json.loads(row[1]))


def visible_results(user, campaign: Campaign, *, way: tuple[str, str] | None = None,
                    with_cells: bool = True) -> Visible:
    """What ``user`` may see of the campaign's results; ``way`` (mode, match) narrows the cells to a page's.
    Without ``with_cells``, the same runs with no cell (every ``cells`` empty): for a document that names the
    runs and their results but draws no figure of them (the significance document)."""
    return _timed_for(user, campaign, _visible_results(user, campaign, way, with_cells))


def _visible_results(user, campaign: Campaign, way: tuple[str, str] | None, with_cells: bool = True) -> Visible:
    cells = page_cells_any_layer(*way) if way else None
    if visibility.can_see_all_live_results(user, campaign):
        return Visible("live", campaign_results(campaign, cells=cells, with_cells=with_cells))
    if visibility.can_see_published_results(user, campaign):
        snapshot = latest_snapshot(campaign)
        if snapshot is not None:
            data = snapshot_data(snapshot, way) if with_cells else snapshot_entries(snapshot)
            return Visible("snapshot", disclosure.limit_results(data, campaign), snapshot)
        return Visible("none", None)
    team = visibility.team_of(user, campaign)
    if team is not None:
        own = [run for run in scored_runs(campaign).filter(team=team) if visibility.can_see_own_scores(user, run)]
        if own:
            return Visible("own", disclosure.limit_results(campaign_results(campaign, own, cells=cells,
                                                                            with_cells=with_cells), campaign))
    return Visible("none", None)


def snapshot_entries(snapshot) -> dict:
    """The snapshot's dict with every run's ``cells`` empty, cut by the database on PostgreSQL (a few kilobytes
    of the megabytes), cached under the snapshot's id as :func:`snapshot_data`."""
    key = f"results:snapshot:{snapshot.pk}:{snapshot.sha256}:entries"
    data = cache.get(key)
    if data is None:
        row = _in_database(snapshot.pk, """(SELECT jsonb_set(data, '{runs}', coalesce(jsonb_agg(
            jsonb_set(r.value, '{cells}', '[]'::jsonb) ORDER BY r.n), '[]'::jsonb))
            FROM jsonb_array_elements(coalesce(data->'runs', '[]'::jsonb)) WITH ORDINALITY AS r(value, n))::text""",
                           [])
        if row is not None:
            data = json.loads(row[0])
        else:
            data = dict(snapshot.data, runs=[dict(r, cells=[]) for r in snapshot.data.get("runs", [])])
        cache.set(key, data, timeout=24 * 3600)
    return data


def visible_run_result(user, run: Run) -> Visible | None:
    """One run's latest result as ``user`` may see it, or ``None``."""
    campaign = run.campaign
    if visibility.can_see_all_live_results(user, campaign):
        return Visible("live", campaign_results(campaign, [run]))
    if visibility.can_see_own_scores(user, run):
        return _timed_for(user, campaign, Visible("own", disclosure.limit_results(campaign_results(campaign, [run]),
                                                                                 campaign)))
    if visibility.can_see_published_results(user, campaign):
        snapshot = latest_snapshot(campaign)
        if snapshot is not None:
            data = snapshot_runs(snapshot, run.pk)
            if data["runs"]:
                return _timed_for(user, campaign, Visible("snapshot", disclosure.limit_results(data, campaign),
                                                          snapshot))
    return None


def _timed_for(user, campaign: Campaign, visible: Visible) -> Visible:
    """``visible`` without the time each test run's result was made, unless ``user`` may see scoring times.

    The stored dict (live or the publication snapshot, which is cached and immutable) is not touched:
    the runs are copied with ``created_at`` set to None."""
    if visible.empty or visibility.can_see_scoring_times(user, campaign):
        return visible
    runs = [run if run.get("scope") == Run.Scope.DEV else dict(run, result=dict(run["result"], created_at=None))
            for run in visible.data["runs"]]
    return Visible(visible.source, dict(visible.data, runs=runs), visible.snapshot)


def served_results(user, campaign: Campaign, data: dict | None) -> dict | None:
    """The results dict as the JSON download gives it: result ids (made in scoring order) left out until
    the user may see scoring times. The pages keep them: they only key their tables with them."""
    if not data or not data.get("runs") or visibility.can_see_scoring_times(user, campaign):
        return data
    runs = [dict(run, result={k: v for k, v in run["result"].items() if k != "id"}) for run in data["runs"]]
    return dict(data, runs=runs)


def served_results_json(user, campaign: Campaign) -> bytes:
    """The body of the results JSON download with every cell (``{"source": ..., "data": ...}``): the same bytes
    as ``JsonResponse({"source": visible.source, "data": served_results(user, campaign, visible.data)})`` over
    :func:`visible_results`, without building or parsing the cells per request.

    The cells are most of the document (5 MB for the EASY demo) and nothing that shapes the document for a
    reader changes them unless the figures are limited (:func:`disclosure.limited`): the rest of the document
    goes through the very functions of the slow way (:func:`visible_results`' limits, :func:`served_results`)
    with each run's cells stood in for by a token, and each run's cells are written in as JSON text: a
    snapshot's cut by the database, a live result's kept under its id (its cells never change). Limited
    figures, a team's own runs, or a text the token does not stand in for exactly, take the slow way."""
    if visibility.can_see_all_live_results(user, campaign):
        fast = _live_json(user, campaign)
    elif visibility.can_see_published_results(user, campaign) and not disclosure.limited(campaign):
        snapshot = latest_snapshot(campaign)
        fast = _snapshot_json(user, campaign, snapshot) if snapshot is not None else None
    else:
        fast = None
    if fast is not None:
        return fast
    visible = visible_results(user, campaign)
    return _dumps({"source": visible.source, "data": served_results(user, campaign, visible.data)})


def _dumps(document) -> bytes:
    from django.core.serializers.json import DjangoJSONEncoder

    return json.dumps(document, cls=DjangoJSONEncoder).encode("utf-8")  # as JsonResponse writes it


def _spliced(user, campaign: Campaign, source: str, data: dict, texts: list[str], token: str) -> bytes | None:
    """``data`` (its runs' ``cells`` each the string ``token + n``) shaped for ``user`` as the slow way shapes
    it, serialised, each token replaced by ``texts[n]``; None when a token is not found exactly once."""
    if source == "snapshot":
        data = disclosure.limit_results(data, campaign)
    data = served_results(user, campaign, _timed_for(user, campaign, Visible(source, data)).data)
    text = _dumps({"source": source, "data": data}).decode("utf-8")
    parts = text.split(f'"{token}')
    if len(parts) != len(texts) + 1:
        return None
    out = [parts[0]]
    for part in parts[1:]:
        number, quote, rest = part.partition('"')
        if not number.isdigit() or not quote or int(number) >= len(texts):
            return None
        out += [texts[int(number)], rest]
    return "".join(out).encode("utf-8")


CELLS_TEXT_VERSION = 1  # the shape of ResultCellsText.text: _cell_dict's, serialised by _dumps


def cells_json(result_ids: list[int]) -> dict[int, str]:
    """``{result id: its cells as the JSON download writes them}`` (a list of :func:`_cell_dict`, by
    :func:`_dumps`): kept once per result (:class:`~evaluation.models.ResultCellsText`, written when the result
    is stored: :func:`on_test_result_stored`), and cached under the result's id; a result's cells are
    immutable rows, so neither ever goes stale. A result without its text (stored before it was kept) has it
    written here."""
    from evaluation.models import ResultCellsText

    keys = {rid: f"results:cells-json:{CELLS_TEXT_VERSION}:{rid}" for rid in result_ids}
    cached = cache.get_many(list(keys.values()))
    out = {rid: cached[key] for rid, key in keys.items() if key in cached}
    wanted = [rid for rid in result_ids if rid not in out]
    if wanted:
        kept = dict(ResultCellsText.objects.filter(result_id__in=wanted, version=CELLS_TEXT_VERSION)
                    .values_list("result_id", "text"))
        missing = [rid for rid in wanted if rid not in kept]
        if missing:
            made = _cells_texts(missing)
            ResultCellsText.objects.bulk_create(
                [ResultCellsText(result_id=rid, version=CELLS_TEXT_VERSION, text=text) for rid, text in made.items()],
                update_conflicts=True, unique_fields=["result"], update_fields=["version", "text"])
            kept.update(made)
        cache.set_many({keys[rid]: text for rid, text in kept.items()}, timeout=7 * 24 * 3600)
        out.update(kept)
    return out


def _cells_texts(result_ids: list[int]) -> dict[int, str]:
    """Each result's cells, read and serialised (what :func:`campaign_results` reads, for every cell)."""
    rows: dict[int, list[dict]] = {rid: [] for rid in result_ids}
    spelt: dict[str, str] = {}  # pooled(): the few spellings of genres and types, once each
    query = ResultCell.objects.filter(result_id__in=result_ids).order_by("pk").values_list("result_id", *_CELL_FIELDS)
    for rid, aggregation, layer, mode, match, genre, type_, fc, fp, cr, p, r, f, low, high in query:
        # _cell_dict's dict, from the row's values at once (a fifth of the time otherwise)
        if genre not in spelt:
            spelt[genre] = pooled(genre)
        if type_ not in spelt:
            spelt[type_] = pooled(type_)
        rows[rid].append({"aggregation": aggregation, "layer": layer, "mode": mode, "match": match,
                          "genre": spelt[genre], "type": spelt[type_], "fc": fc, "fp": fp, "cr": cr, "p": p, "r": r,
                          "f": f, "ci": [low, high] if low is not None or high is not None else None})
    return {rid: _dumps(cells).decode("utf-8") for rid, cells in rows.items()}


def on_test_result_stored(sender, run, **kwargs) -> None:
    """A test run was scored (:data:`evaluation.pipeline.signals.test_result_stored`): its newest result's cells
    kept as the JSON download writes them (:func:`cells_json`). Never fails the scoring: the download writes
    them itself when they are not there."""
    try:
        with transaction.atomic():  # a failure here never spoils a transaction the sender holds
            latest = latest_result_ids([run]).get(run.pk)
            if latest is not None:
                cells_json([latest])
    except Exception:
        logger.exception("could not keep the cells of run %s as JSON", run.pk)


def _live_json(user, campaign: Campaign) -> bytes | None:
    data = campaign_results(campaign, with_cells=False)
    token = f"cells-{uuid.uuid4().hex}-"
    ids = [entry["result"]["id"] for entry in data["runs"]]
    texts = cells_json(ids)
    runs = [dict(entry, cells=f"{token}{n}") for n, entry in enumerate(data["runs"])]
    return _spliced(user, campaign, "live", dict(data, runs=runs), [texts[rid] for rid in ids], token)


# A number the database writes as a decimal but Python's json as an exponent (0 < |x| < 1e-4: ``0.00001`` is
# ``1e-05``): a snapshot holding one takes the slow way. In a string it only costs that.
_EXPONENT_IN_PYTHON = re.compile(r"[\[:,] ?-?0\.0000")
_NOT_ASCII = re.compile(r"[^\x00-\x7e]")  # json.dumps escapes DEL as well, jsonb does not


def _ascii_escaped(match) -> str:
    # json.dumps' ensure_ascii: \uXXXX in lower case, a surrogate pair beyond the basic plane
    n = ord(match.group())
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000
    return f"\\u{0xd800 | (n >> 10):04x}\\u{0xdc00 | (n & 0x3ff):04x}"


def _snapshot_json(user, campaign: Campaign, snapshot) -> bytes | None:
    """The snapshot's document with every cell: the database sends it with each run's cells as text
    (written as jsonb writes them, which is json.dumps' way but for non-ASCII characters, escaped here, and
    numbers of a tiny magnitude), the rest parsed and shaped as the slow way shapes it."""
    # The database's cut, the same for every reader (nothing in it is shaped for one), cached under the
    # snapshot's id as the pages' cuts are (snapshot_data): a snapshot never changes.
    key = f"results:snapshot:{snapshot.pk}:{snapshot.sha256}:cells-text"
    cut = cache.get(key)
    if cut is None:
        cut = _snapshot_cut(snapshot) or ()  # (): the slow way, remembered as well
        cache.set(key, cut, timeout=24 * 3600)
    if not cut:
        return None
    token, top, entries, texts = cut
    runs = [_jsonb_ordered(dict(json.loads(entry), cells=f"{token}{n}")) for n, entry in enumerate(entries)]
    return _spliced(user, campaign, "snapshot", _jsonb_ordered(dict(json.loads(top), runs=runs)), texts, token)


def _jsonb_ordered(data: dict) -> dict:
    """``data``'s keys in jsonb's order (shorter first, then bytewise): where a key taken out by the database
    goes back, as the whole snapshot read from jsonb has it."""
    return dict(sorted(data.items(), key=lambda item: (len(item[0].encode("utf-8")), item[0].encode("utf-8"))))


def _snapshot_cut(snapshot) -> tuple | None:
    """``(token, the snapshot without its runs, each run without its cells, each run's cells)`` as JSON text,
    the cells escaped as Python's json writes them; None off PostgreSQL, or for a snapshot the quick way
    cannot write as the slow way does (no list of runs, a run without a list of cells, a tiny number)."""
    connection = _snapshots_database()
    if connection is None:
        return None
    table = PublishedSnapshot._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT jsonb_typeof(data->'runs'), (data - 'runs')::text FROM {table} WHERE id = %s",
                       [snapshot.pk])
        kind, top = cursor.fetchone()
        if kind != "array":
            return None
        # Each run once, from one reading of the stored value (the runs' cells are most of its megabytes).
        cursor.execute(f"""SELECT jsonb_typeof(r.value) = 'object' AND jsonb_typeof(r.value->'cells') = 'array',
                CASE WHEN jsonb_typeof(r.value) = 'object' THEN (r.value - 'cells')::text END,
                (r.value->'cells')::text
            FROM {table} s, jsonb_array_elements(s.data->'runs') WITH ORDINALITY AS r(value, n)
            WHERE s.id = %s ORDER BY r.n""", [snapshot.pk])
        rows = cursor.fetchall()
    if not rows or not all(row[0] for row in rows):
        return None
    texts = [row[2] for row in rows]
    if any("0.0000" in t and _EXPONENT_IN_PYTHON.search(t) for t in texts):
        return None
    texts = [t if t.isascii() and "\x7f" not in t else _NOT_ASCII.sub(_ascii_escaped, t) for t in texts]
    return f"cells-{uuid.uuid4().hex}-", top, [row[1] for row in rows], texts


# -- shaping the dict for tables and charts (works on snapshots and live data) --

def type_order(layer: str, present: Iterable[str]) -> list[str]:
    known = DEFAULT_SCHEMA.group_types if layer == CONSTITUENTS else DEFAULT_SCHEMA.relation_types
    present = set(present) - {ALL}
    ordered = [t for t in known if t in present] + sorted(present - set(known))
    return ordered + [ALL]


def genre_order(data: dict, present: Iterable[str]) -> list[dict]:
    present = set(present) - {ALL}
    rows = [g for g in data.get("genres", []) if g["code"] in present]
    known = {g["code"] for g in rows}
    rows += [{"code": code, "name": code} for code in sorted(present - known)]
    return rows + [{"code": ALL, "name": gettext("All genres")}]  # pages only: never stored


def layers_of(data: dict) -> list[str]:
    found = {c["layer"] for run in data["runs"] for c in run["cells"]}
    return [layer for layer in (RELATIONS, CONSTITUENTS) if layer in found] + sorted(found - {RELATIONS, CONSTITUENTS})


class CellIndex:
    """Constant-time lookup of a run's cells; build it once per run and page."""

    def __init__(self, run: dict):
        self.run = run
        self._cells = {
            (c["aggregation"], c["layer"], c["mode"] or "", c["match"], c["genre"], c["type"]): c for c in run["cells"]
        }

    def get(self, layer: str, mode: str, match: str, genre: str = ALL, type_: str = ALL, aggregation: str = "micro"):
        mode = mode if layer == RELATIONS else ""
        return self._cells.get((aggregation, layer, mode, match, genre, type_))


def way_cell(run: dict, layer: str, mode: str, match: str, genre: str = ALL, type_: str = ALL, aggregation: str = "micro"):
    return CellIndex(run).get(layer, mode, match, genre, type_, aggregation)


def genre_type_table(data: dict, run: dict, layer: str, mode: str, match: str) -> dict:
    """Rows genres + ALL, columns types + ALL, for one way: the paper's figure 2."""
    mode = mode if layer == RELATIONS else ""
    cells = [
        c for c in run["cells"]
        if c["aggregation"] == "micro" and c["layer"] == layer and c["match"] == match and (c["mode"] or "") == mode
    ]
    index = {(c["genre"], c["type"]): c for c in cells}
    types = type_order(layer, {c["type"] for c in cells})
    genres = genre_order(data, {c["genre"] for c in cells})
    macro = {
        c["genre"]: c for c in run["cells"]
        if c["aggregation"] == "macro" and c["layer"] == layer and c["match"] == match and (c["mode"] or "") == mode
    }
    return {
        "types": types,
        "rows": [
            {"genre": g, "cells": [index.get((g["code"], t)) for t in types], "macro": macro.get(g["code"])}
            for g in genres
        ],
        "empty": not cells,
    }


def ways(layer: str) -> list[tuple[str, str]]:
    """The ways of scoring a layer: 15 for relations (mode x function), 5 for constituents."""
    if layer == RELATIONS:
        return [(mode, match) for mode in EASY_MODES for match in EASY_MATCHES]
    return [("", match) for match in EASY_MATCHES]


def way_label(mode: str, match: str) -> str:
    return f"{mode} {match}" if mode else match


def way_series(data: dict, layer: str) -> dict:
    """Pooled F of every way, one series per run: the paper's figure 3."""
    all_ways = ways(layer)
    series = []
    for run in data["runs"]:
        index = {
            (c["mode"] or "", c["match"]): c for c in run["cells"]
            if c["aggregation"] == "micro" and c["layer"] == layer and c["genre"] == ALL and c["type"] == ALL
        }
        series.append({"run": run, "cells": [index.get(w) for w in all_ways]})
    return {"ways": all_ways, "labels": [way_label(*w) for w in all_ways], "series": series}


def genre_statistics(campaign: Campaign, *, annotated: bool) -> list[dict]:
    """Sentences and words per genre, as the paper's tables 2 and 3.

    The annotated counts reveal the size of the test subset per genre, so the
    caller asks for them only when visibility allows.
    """
    from django.db.models import Count, Sum

    totals = {
        row["genre_id"]: row
        for row in campaign.documents.values("genre_id").annotate(
            documents=Count("pk"), sentences=Sum("sentence_count"), words=Sum("word_count")
        )
    }
    marked = {}
    if annotated:
        # Counted through the reverse relation so that this module never imports the gold models.
        marked = {
            row["document__genre_id"]: row
            for row in Sentence.objects.filter(document__campaign=campaign, gold_membership__isnull=False)
            .values("document__genre_id")
            .annotate(sentences=Count("pk"), words=Sum("word_count"))
        }
    rows = []
    for genre in campaign.genres.all():
        total = totals.get(genre.pk, {})
        row = {
            "code": genre.code,
            "name": genre.name,
            "documents": total.get("documents") or 0,
            "sentences": total.get("sentences") or 0,
            "words": total.get("words") or 0,
        }
        if annotated:
            row["annotated_sentences"] = marked.get(genre.pk, {}).get("sentences") or 0
            row["annotated_words"] = marked.get(genre.pk, {}).get("words") or 0
        rows.append(row)
    if rows:
        total_row = {"code": ALL, "name": "All genres"}
        for key in rows[0]:
            if key not in ("code", "name"):
                total_row[key] = sum(r[key] for r in rows)
        rows.append(total_row)
    return rows
