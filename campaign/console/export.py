"""The results export: one CSV row per run x stored cell of its latest result.

Rows are streamed from the database in chunks, so the export of a large
campaign never sits in memory as a whole.
"""
from __future__ import annotations

from typing import Iterator

from django.db.models import OuterRef, Subquery

from campaign import results as scoring_results, visibility
from campaign.csv_export import csv_stream
from campaign.models import Campaign, Run

HEADER = [
    "campaign", "run_id", "team", "public_label", "run_name", "scope", "synthetic", "status", "withdrawn",
    "disqualified", "result_id", "scored_at", "signature", "scorer_version", "gold_sha256",
    "aggregation", "layer", "mode", "match", "genre", "type", "fc", "fp", "cr", "p", "r", "f", "ci_low", "ci_high",
]


def _latest_results(campaign: Campaign):
    Result = scoring_results.model("Result")
    newest = Result.objects.filter(run=OuterRef("run")).order_by("-created_at", "-pk").values("pk")[:1]
    return Result.objects.filter(run__campaign=campaign).filter(pk=Subquery(newest))


def rows(campaign: Campaign) -> Iterator[list]:
    runs = {r.pk: r for r in Run.objects.filter(campaign=campaign).select_related("team")}
    for run in runs.values():
        run.team.campaign = campaign
    results = {r.pk: r for r in _latest_results(campaign).defer("document")}
    cells = (
        scoring_results.model("ResultCell").objects.filter(result_id__in=list(results))
        .order_by("result__run_id", "result_id", "aggregation", "layer", "mode", "match", "genre", "type", "pk")
        .values_list("result_id", "aggregation", "layer", "mode", "match", "genre", "type",
                     "fc", "fp", "cr", "p", "r", "f", "ci_low", "ci_high")
    )
    for row in cells.iterator(chunk_size=2000):
        result = results[row[0]]
        run = runs[result.run_id]
        yield [
            campaign.slug, run.pk, run.team.name, visibility.public_team_label(run.team), run.name, run.scope,
            int(run.synthetic), run.status, int(run.withdrawn_at is not None), int(run.disqualified),
            result.pk, result.created_at.isoformat(), result.signature, result.scorer_version, result.gold_sha256,
            *row[1:],
        ]


def csv_lines(campaign: Campaign) -> Iterator[str]:
    return csv_stream(HEADER, rows(campaign))
