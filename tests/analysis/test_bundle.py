"""The publication bundle carries each run's analysis from the gold release, never before."""
from __future__ import annotations

import io
import json
import zipfile

import pytest

from evaluation.analysis import store
from evaluation.bundle.publication import NO_ANALYSIS_BEFORE_GOLD, archive_bytes

from .conftest import advance_to

pytestmark = pytest.mark.django_db


def _members(campaign) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(archive_bytes(campaign))) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_the_bundle_carries_the_analyses_after_the_gold_release(explorer_world):
    campaign, users, runs = explorer_world
    advance_to(campaign, "published", users["org"])
    members = _members(campaign)
    assert not [m for m in members if m.startswith("analysis/")]
    meta = json.loads(members["bundle.json"])
    assert {r["analysis_missing"] for r in meta["runs"]} == {NO_ANALYSIS_BEFORE_GOLD}

    advance_to(campaign, "gold_released", users["org"])
    members = _members(campaign)
    meta = json.loads(members["bundle.json"])
    assert len(meta["runs"]) == 2 and all(r["analysis"] in members for r in meta["runs"])
    run_b = next(r for r in meta["runs"] if r["run"] == runs["B"].pk)
    document = json.loads(members[run_b["analysis"]])
    kept = store.stored(runs["B"].results.get())
    assert document["schema"] == "parseval-analysis/1" and document["headline"] == kept.document["headline"]
    assert "explorer" not in document and len(document["sentence_ids"]) == 20
    root = next(b for a in document["attributes"] if a["name"] == "arc_length" for b in a["buckets"]
                if b["bucket"] == "root")
    assert root["sentences"] == document["sentence_ids"]  # every sentence has its root arc, named by its key
    relations = document["confusions"][0]
    for row in relations["rows"]:
        for cell in row["cells"].values():
            assert cell["sentences"] and set(cell["sentences"]) <= set(document["sentence_ids"])
