"""The results JSON with every cell (``/results/<slug>/data.json``) is written from kept text (each result's cells
kept once, a snapshot's cells as the database writes them) rather than built per request: the same bytes as the
document built from the dicts, for every role and state, and the cells a new result brings."""
from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http import JsonResponse
from django.urls import reverse

from campaign.models import CampaignState, Run, TeamFigures
from evaluation.models import PublishedSnapshot, ResultCell, ResultCellsText
from evaluation.pipeline import signals
from evaluation.results import summaries
from evaluation.results.text import for_programs

from . import builders as b

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    org = b.user("org")
    alice, eve = b.user("alice"), b.user("eve")
    c = b.campaign(CampaignState.SCORED, organiser=org)
    b.corpus(c)
    ta, tb = b.team(c, "Alpha", alice, code="A"), b.team(c, "Bêta ✓ 𝄞", b.user("bob"), code="B")
    ra, rb = b.scored_run(c, ta, "alpha-1", index=1), b.scored_run(c, tb, "bêta «1»", index=2)
    Run.objects.filter(pk=rb.pk).update(system_description="analyseur à règles\n\t\"entre guillemets\"")
    return {"c": c, "org": org, "alice": alice, "eve": eve, "ra": ra, "rb": rb}


def slow_way(user, campaign) -> bytes:
    """The document as the view wrote it before: built from the dicts of :func:`summaries.visible_results`."""
    with for_programs():
        visible = summaries.visible_results(user, campaign)
        return JsonResponse({"source": visible.source,
                             "data": summaries.served_results(user, campaign, visible.data)}).content


def download(client, campaign, user=None) -> bytes:
    client.logout()
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("results:campaign-json", args=[campaign.slug]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return response.content


def same(fast: bytes, slow: bytes) -> bool:
    """Equal bytes, but for the time a live document was generated at."""
    stamp = re.compile(rb'"generated_at": "[^"]*"')
    return stamp.sub(b"", fast) == stamp.sub(b"", slow)


def publish(campaign, state=CampaignState.PUBLISHED):
    PublishedSnapshot.objects.create(campaign=campaign, data=summaries.campaign_results(campaign), sha256="e" * 64)
    campaign.state = state
    campaign.save()


@pytest.mark.parametrize("state", [CampaignState.SCORED, CampaignState.RELEASED, CampaignState.PUBLISHED,
                                   CampaignState.GOLD_RELEASED])
@pytest.mark.parametrize("figures", [TeamFigures.FULL, TeamFigures.RATES])
def test_every_role_gets_the_bytes_of_the_document_built_from_the_dicts(client, world, state, figures):
    c = world["c"]
    c.team_figures = figures
    c.save()
    if state in (CampaignState.PUBLISHED, CampaignState.GOLD_RELEASED):
        publish(c, state)
    else:
        c.state = state
        c.save()
    # one role after the other without clearing the cache: what is kept for one is never another's document
    for user in (world["org"], world["alice"], world["eve"], None):
        fast = download(client, c, user)
        assert same(fast, slow_way(user or AnonymousUser(), c)), (state, figures, user)
        assert same(download(client, c, user), fast)  # and again, from what was kept
    cache.clear()
    for user in (None, world["alice"], world["org"]):
        assert same(download(client, c, user), slow_way(user or AnonymousUser(), c))


def test_before_the_gold_release_the_public_download_keeps_no_result_id_or_scoring_time(client, world):
    c = world["c"]
    publish(c)
    organisers = json.loads(download(client, c, world["org"]))  # kept first, as an organiser
    assert organisers["source"] == "live" and all(r["result"]["id"] and r["result"]["created_at"]
                                                  for r in organisers["data"]["runs"])
    public = json.loads(download(client, c))
    assert public["source"] == "snapshot"
    assert all("id" not in r["result"] and r["result"]["created_at"] is None for r in public["data"]["runs"])
    assert [len(r["cells"]) for r in public["data"]["runs"]] == [len(r["cells"]) for r in organisers["data"]["runs"]]


def test_a_new_result_is_in_the_next_download(client, world):
    c = world["c"]
    before = json.loads(download(client, c, world["org"]))
    old = {r["run"]: r["result"]["id"] for r in before["data"]["runs"]}
    newer = b.add_result(world["ra"], 99)
    fast = download(client, c, world["org"])
    assert same(fast, slow_way(world["org"], c))
    runs = {r["run"]: r for r in json.loads(fast)["data"]["runs"]}
    assert runs[world["ra"].pk]["result"]["id"] == newer.pk != old[world["ra"].pk]
    f = ResultCell.objects.get(result=newer, layer="relations", mode="HYP", match="EQUAL", genre="ALL", type="ALL",
                               aggregation="micro").f
    assert any(cell["f"] == f and cell["genre"] == "ALL" and cell["type"] == "ALL" and cell["mode"] == "HYP"
               and cell["match"] == "EQUAL" and cell["layer"] == "relations"
               for cell in runs[world["ra"].pk]["cells"])
    # each result's text is its own: the older result's stays as it was
    assert set(ResultCellsText.objects.values_list("result_id", flat=True)) >= {newer.pk, *old.values()}


def test_the_cells_are_kept_when_a_test_result_is_stored(world, monkeypatch):
    ra = world["ra"]
    result = ra.results.get()
    assert not ResultCellsText.objects.filter(result=result).exists()
    signals.test_result_stored.send(sender=Run, run=ra)
    kept = ResultCellsText.objects.get(result=result)
    assert kept.version == summaries.CELLS_TEXT_VERSION
    assert json.loads(kept.text) == summaries.campaign_results(world["c"], [ra])["runs"][0]["cells"]

    def broken(result_ids):
        raise RuntimeError("the database is away")

    monkeypatch.setattr(summaries, "cells_json", broken)
    signals.test_result_stored.send(sender=Run, run=world["rb"])  # the scoring stands: nothing raised


def test_a_text_of_another_version_is_written_again(client, world):
    c = world["c"]
    result = world["ra"].results.get()
    ResultCellsText.objects.create(result=result, version=summaries.CELLS_TEXT_VERSION - 1, text="[]")
    assert same(download(client, c, world["org"]), slow_way(world["org"], c))
    assert ResultCellsText.objects.get(result=result).version == summaries.CELLS_TEXT_VERSION


def test_a_snapshot_the_database_would_write_otherwise_takes_the_slow_way(client, world):
    """A number below 1e-4 is written ``0.00001`` by jsonb and ``1e-05`` by Python: such a snapshot is served
    as the dicts give it."""
    c = world["c"]
    data = summaries.campaign_results(c)
    data["runs"][0]["cells"][0]["f"] = 1e-05
    PublishedSnapshot.objects.create(campaign=c, data=data, sha256="d" * 64)
    c.state = CampaignState.GOLD_RELEASED
    c.save()
    snapshot = summaries.latest_snapshot(c)
    assert summaries._snapshot_json(AnonymousUser(), c, snapshot) is None
    fast = download(client, c)
    assert fast == slow_way(AnonymousUser(), c) and b'"f": 1e-05' in fast


def test_a_snapshot_s_cells_are_written_as_python_writes_them(client, world):
    """Characters beyond ASCII in a cell (jsonb writes them as they are, Python's json escapes them, beyond the
    basic plane as a surrogate pair) and control characters: the database's text, escaped, is Python's."""
    c = world["c"]
    data = summaries.campaign_results(c)
    data["runs"][0]["cells"][0]["type"] = "tête ✓ 𝄞 \u00a0\x7f\x1f\"\\/"
    data["runs"][1]["cells"][-1]["genre"] = "é"
    PublishedSnapshot.objects.create(campaign=c, data=data, sha256="c" * 64)
    c.state = CampaignState.GOLD_RELEASED
    c.save()
    fast = summaries._snapshot_json(AnonymousUser(), c, summaries.latest_snapshot(c))
    assert fast is not None  # the quick way, not the fallback
    with for_programs():
        assert fast == slow_way(AnonymousUser(), c) == download(client, c)
    assert b"\\ud834\\udd1e" in fast and b"t\\u00eate" in fast


def test_no_download_builds_the_cells_once_they_are_kept(client, world, monkeypatch):
    c = world["c"]
    publish(c, CampaignState.GOLD_RELEASED)
    organisers, public = download(client, c, world["org"]), download(client, c)
    cache.clear()

    def refuse(row):
        raise AssertionError("a download built a cell from its row")

    monkeypatch.setattr(summaries, "_cell_dict", refuse)
    assert same(download(client, c, world["org"]), organisers) and download(client, c) == public


def test_the_keys_the_database_takes_out_go_back_where_jsonb_keeps_them(client, world):
    """The runs and their cells are read apart from the rest of the snapshot and put back in jsonb's order of
    keys (shorter first, then bytewise, in bytes: ``é`` is two): the order the whole snapshot is read in."""
    c = world["c"]
    data = summaries.campaign_results(c)
    data.update({"z": 1, "runz": 2, "rune": 3, "cellé": 4, "a_much_longer_key": [1.5, None, "x"]})
    for entry in data["runs"]:
        entry.update({"aé": 1, "cellz": 2, "cel": 3, "zzzzz": {"b": 1, "a": 2}})
    PublishedSnapshot.objects.create(campaign=c, data=data, sha256="b" * 64)
    c.state = CampaignState.GOLD_RELEASED
    c.save()
    assert summaries._snapshot_json(AnonymousUser(), c, summaries.latest_snapshot(c)) is not None
    for user in (None, world["alice"]):
        assert download(client, c, user) == slow_way(user or AnonymousUser(), c)
