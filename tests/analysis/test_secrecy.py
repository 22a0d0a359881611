"""The explorer before the gold release, as every role, with planted values: a test run's analysis is the
organisers' until the gold release; a development check's is its team's at once; nobody else's ever before.

Each result's analysis is replaced by one that carries markers (in a bucket's name, its description, a confusion
label, a sentence key, an error): wherever a role may not read it, no response holds a marker, and every route
answers as it does for a run that does not exist. The organisers read the markers (the plant is not blind).
"""
from __future__ import annotations

import pytest
from django.test import Client

from evaluation.analysis import store
from evaluation.models import RunAnalysis

from .conftest import advance_to

pytestmark = pytest.mark.django_db

BEFORE_GOLD = ["open", "released", "published"]


def plant(result, marker: str) -> None:
    """An analysis of ``result`` whose every shown text carries ``marker``."""
    document = {"schema": store.SCHEMA, "kind": "deps", "signature": f"sig-{marker}", "sentences": 1,
                "headline": {"gold": 7, "las": 0.123456, "las_ci": [0.1, 0.2]},
                "attributes": [{"name": "arc_length", "description": f"desc-{marker}",
                                "buckets": [{"bucket": f"bucket-{marker}", "gold": 7, "correct": 3, "las": 0.428571}]}],
                "confusions": [{"name": "relations", "description": "", "columns": [f"run-{marker}"], "rows": [
                    {"gold": f"gold-{marker}", "count": 7, "cells": {f"run-{marker}": {"count": 7}}}]}],
                "explorer": {"counts": ["gold", "head", "correct", "test", "correct_test"], "figures": ["las"],
                             "figure": {"name": "las"}}}
    index = {"kind": "deps", "keys": [f"doc/{marker}"], "genres": ["g"],
             "columns": ["gold", "head", "correct", "test", "correct_test"],
             "buckets": {"arc_length": {f"bucket-{marker}": {"s": [0], "c": [7, 3, 3, 7, 3], "e": [0]}}},
             "confusions": {"relations": {f"gold-{marker}\trun-{marker}": [0]}},
             "errors": [[f"doc/{marker}", "missed", "nsubj", f"error-{marker}"]]}
    RunAnalysis.objects.filter(result=result).delete()
    RunAnalysis.objects.create(result=result, schema=store.SCHEMA, document=document, index=store.pack(index))


def routes(campaign, runs: dict, marker_of: dict) -> dict[str, tuple[str, dict]]:
    slug = campaign.slug
    out = {}
    for name, run in runs.items():
        base = f"/results/{slug}/runs/{run.pk}/analysis"
        m = marker_of[name]
        out.update({
            f"{name}: explorer": (f"{base}/", {}),
            f"{name}: explorer by attribute": (f"{base}/", {"by": "arc_length"}),
            f"{name}: JSON": (f"{base}.json", {}),
            f"{name}: confusions": (f"{base}/confusions/", {}),
            f"{name}: errors": (f"{base}/errors/", {}),
            f"{name}: bucket sentences": (f"{base}/sentences/", {"by": "arc_length", "bucket": f"bucket-{m}"}),
            f"{name}: cell sentences": (f"{base}/sentences/", {"table": "relations", "cell": f"gold-{m}\trun-{m}"}),
        })
    a, b = runs["A"].pk, runs["B"].pk
    out["pairwise A/B"] = (f"/results/{slug}/analysis/compare/{a}/{b}/", {"by": "arc_length"})
    out["pairwise B/A"] = (f"/results/{slug}/analysis/compare/{b}/{a}/", {"by": "arc_length"})
    out["pairwise sentences"] = (f"/results/{slug}/analysis/compare/{a}/{b}/sentences/",
                                 {"by": "arc_length", "bucket": f"bucket-{marker_of['A']}"})
    return out


def clients(users) -> dict[str, Client]:
    from tests import factories

    out = {"anonymous": Client(), "outsider": Client(), "team A": Client(), "team B": Client(),
           "organiser": Client()}
    out["outsider"].force_login(factories.make_user("outsider-x"))
    out["team A"].force_login(users["A"])
    out["team B"].force_login(users["B"])
    out["organiser"].force_login(users["org"])
    return out


def may_read(role: str, run_name: str, gold_out: bool) -> bool:
    if role == "organiser":
        return True
    if run_name == "A-dev":
        return role == "team A"
    return gold_out


@pytest.mark.parametrize("state", BEFORE_GOLD + ["gold_released"])
def test_nobody_but_the_organisers_reads_a_test_analysis_before_the_gold(explorer_world, state):
    campaign, users, runs = explorer_world
    if state != "open":
        advance_to(campaign, state, users["org"])
    markers = {"A": "PLANTA7Q", "B": "PLANTB8W", "A-dev": "PLANTD9E"}
    for name, run in runs.items():
        plant(run.results.get(), markers[name])
    gold_out = state == "gold_released"
    seen, problems = 0, []
    for role, client in clients(users).items():
        for label, (url, params) in routes(campaign, runs, markers).items():
            response = client.get(url, params)
            body = response.content.decode()
            run_names = [n for n in runs if n in label.split(":")[0].split("/")] if ":" in label else ["A", "B"]
            allowed = all(may_read(role, n, gold_out) for n in run_names)
            for name, marker in markers.items():
                if marker in body and not may_read(role, name, gold_out):
                    problems.append(f"{role} [{state}] {label}: {name}'s planted analysis shown")
            if not allowed and response.status_code != 404:
                problems.append(f"{role} [{state}] {label}: answered {response.status_code}, not 404")
            if allowed and ":" in label and "sentences" not in label:
                # the plant is not blind: whoever may read it reads the marker
                assert markers[run_names[0]] in body, (role, state, label, response.status_code)
                seen += 1
    assert not problems, "\n".join(problems)
    # the organiser reads all 3 runs' 5 pages that show the marker; team A its development check's before the gold
    expected = 3 * 5 + (5 if not gold_out else 3 * 5) + (0 if not gold_out else 3 * 2 * 5)
    assert seen == expected, seen


def test_a_missing_analysis_is_no_answer_either(explorer_world):
    """Before the gold release a team asking for its own test run's explorer gets the 404 of a run that does not
    exist, whether its analysis was computed or not."""
    campaign, users, runs = explorer_world
    RunAnalysis.objects.all().delete()
    client = clients(users)["team A"]
    missing = client.get(f"/results/{campaign.slug}/runs/999999/analysis/")
    own = client.get(f"/results/{campaign.slug}/runs/{runs['A'].pk}/analysis/")
    assert own.status_code == missing.status_code == 404
    assert not RunAnalysis.objects.filter(result__run=runs["A"]).exists()  # nothing computed for a refused reader
