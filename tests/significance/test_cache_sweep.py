"""The significance cache's sweep (evaluation/significance/run_cache.py, ``sweep``): entries planted beside a
campaign's real ones, and which of them go: those of a result that is gone or is another, of a context no set
compares, half an entry, a dead writer's file; then the least recently used past the bound, never an entry
used within the task's time limit. What is kept is what the next computation reads."""
from __future__ import annotations

import json
import os
import shutil
import time

import numpy as np
import pytest
from django.core.management import call_command

from evaluation.models import SignificanceFigure, SignificanceTable
from evaluation.significance import packing, run_cache, sets as significance

from .helpers import gold_and_damaged
from .test_incremental import Arrivals
from .test_run_cache import _watch_resampling

LATER = 2 * 3600  # past the task's time limit: no computation can still be reading what was used before


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def _reseed(campaign, seed: int):
    campaign.metrics = {**(campaign.metrics or {}), "significance": {"seed": seed}}
    campaign.save(update_fields=["metrics"])
    return significance.compute(campaign)


def _figures(cache) -> dict[str, str]:
    """``{stem: context}`` of the figures entries in the folder."""
    out = {}
    for meta in cache.glob(f"*{run_cache.META}"):
        out[meta.name[:-len(run_cache.META)]] = json.loads(str(packing.unpack(meta.read_bytes())["key"]))[3]
    return out


def _plant(cache, stem: str, key: list, *, meta: bool = True, figures: bool = True) -> None:
    if figures:
        np.save(cache / f"{stem}.npy", np.zeros((2, 3), dtype=np.int32))
    if meta:
        (cache / f"{stem}{run_cache.META}").write_bytes(packing.pack({"key": np.array(json.dumps(key, separators=(",", ":")))}))


def _plant_format_1(cache, stem: str, key: list) -> None:
    """An entry as format 1 kept it (numpy's .npz beside the .npy): never read, so swept."""
    np.save(cache / f"{stem}.npy", np.zeros((2, 3), dtype=np.int32))
    np.savez(cache / f"{stem}.meta.npz", key=np.array(json.dumps(key, separators=(",", ":"))))
    np.savez(cache / f"{stem}.sentences.npz", key=np.array(json.dumps(key, separators=(",", ":"))))


def test_the_sweep_removes_what_no_set_reads_and_keeps_what_the_next_computation_reads(
        scored, significance_cache, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    Arrivals(good, bad).add()
    shutil.rmtree(significance_cache, ignore_errors=True)  # the scoring's own computations' entries
    first = _reseed(campaign, 11)
    _reseed(campaign, 12)
    last = _reseed(campaign, 13)  # the sets kept: seed 13's and the one it replaced (12); 11's is gone
    contexts = {row.context: row.set.seed for row in SignificanceFigure.objects.select_related("set")}
    assert set(contexts.values()) == {12, 13}
    by_context = _figures(significance_cache)
    seeds = {stem: contexts.get(context) for stem, context in by_context.items()}
    assert sorted(seeds.values(), key=str).count(None) == 3  # seed 11's three results: no set compares them
    live = {stem for stem, seed in seeds.items() if seed is not None}
    assert len(live) == 6
    sentences = {p.name for p in significance_cache.glob(f"*{run_cache.SENTENCES}")}
    assert len(sentences) == 3

    real = run_cache.fingerprint(bad.results.get())
    context = next(iter(set(contexts)))
    _plant(significance_cache, "999999-gone", [run_cache.FORMAT, "figures", [999999, *real[1:]], context])
    _plant(significance_cache, f"{real[0]}-other", [run_cache.FORMAT, "figures", [real[0], "2001-01-01", *real[2:]],
                                                       context])  # another database's result of that id
    _plant(significance_cache, f"{real[0]}-format", [run_cache.FORMAT + 1, "figures", real, context])
    _plant(significance_cache, f"{real[0]}-half", [], meta=False)  # its key never written
    _plant_format_1(significance_cache, f"{real[0]}-npz", [1, "figures", real, context])
    (significance_cache / ".partial-dead").write_bytes(b"x" * 10)
    planted = {"999999-gone", f"{real[0]}-other", f"{real[0]}-format", f"{real[0]}-half", f"{real[0]}-npz",
               f"{real[0]}-npz.sentences"}

    found = run_cache.sweep(limit=1 << 40, now=time.time() + LATER)
    assert found["stale"] == 3 + len(planted) and found["evicted"] == 0
    assert set(_figures(significance_cache)) == live
    assert not list(significance_cache.glob("*-half.npy")) and not (significance_cache / ".partial-dead").exists()
    assert not list(significance_cache.glob("*.npz")) and not list(significance_cache.glob("*-npz.*"))
    assert {p.name for p in significance_cache.glob(f"*{run_cache.SENTENCES}")} == sentences
    assert found["bytes_left"] == sum(p.stat().st_size for p in significance_cache.iterdir())

    # Nothing removed that a computation needs: every pair of seed 13 computed again reads the figures kept,
    # resamples no run.
    SignificanceTable.objects.filter(campaign=campaign).delete()
    calls = _watch_resampling(monkeypatch)
    assert significance.set_bytes(significance.compute(campaign)) == significance.set_bytes(last)
    assert calls == []
    assert first.seed == 11

    # That set replaced seed 12's, which is gone: the next sweep removes seed 12's figures, keeps seed 13's.
    again = run_cache.sweep(limit=1 << 40, now=time.time() + LATER)
    assert again["stale"] == 3 and again["evicted"] == 0
    assert {seeds[stem] for stem in _figures(significance_cache)} == {13}
    assert run_cache.sweep(limit=1 << 40, now=time.time() + LATER)["stale"] == 0


def test_past_the_bound_the_least_recently_used_go_but_never_one_used_within_the_time_limit(
        scored, significance_cache):
    good, bad = scored
    campaign = good.campaign
    Arrivals(good, bad).add()
    shutil.rmtree(significance_cache, ignore_errors=True)
    _reseed(campaign, 13)  # three results: three figures entries and three sentences entries, all compared
    now = time.time()
    for path in significance_cache.iterdir():
        os.utime(path, (now - LATER, now - LATER))
    SignificanceTable.objects.filter(campaign=campaign).delete()
    _reseed(campaign, 13)  # every pair again: each entry read, and so marked used
    stems = sorted(_figures(significance_cache))
    assert len(stems) == 3
    touched = {p.name for p in significance_cache.iterdir() if p.stat().st_mtime > now - 60}
    assert {f"{stem}{run_cache.META}" for stem in stems} <= touched and len(list(significance_cache.glob(
        f"*{run_cache.SENTENCES}"))) == 3 and all(p.name in touched for p in significance_cache.glob(f"*{run_cache.SENTENCES}"))

    def used(stem, seconds_ago):
        for path in significance_cache.glob(f"{stem}.*"):
            os.utime(path, (now - seconds_ago, now - seconds_ago))

    oldest, older, recent = stems
    used(oldest, 3 * 3600)
    used(older, 2.5 * 3600)
    used(recent, 10)  # within the task's time limit: a computation may be reading it
    for path in significance_cache.glob(f"*{run_cache.SENTENCES}"):
        os.utime(path, (now - 2 * 3600, now - 2 * 3600))
    total = sum(p.stat().st_size for p in significance_cache.iterdir())
    size = sum(p.stat().st_size for p in significance_cache.glob(f"{oldest}.*"))

    found = run_cache.sweep(limit=total - size, now=now)  # one entry too many: the least recently used goes
    assert (found["stale"], found["evicted"], found["bytes_left"]) == (0, 1, total - size)
    assert set(_figures(significance_cache)) == {older, recent}

    found = run_cache.sweep(limit=1, now=now)  # all but nothing fits: all go but the one used seconds ago
    assert (found["stale"], found["evicted"]) == (0, 4)
    assert {p.name for p in significance_cache.iterdir()} == {f"{recent}.npy", f"{recent}{run_cache.META}"}
    assert found["bytes_left"] == sum(p.stat().st_size for p in significance_cache.iterdir()) > 1


def test_the_command_reports_the_sweep(scored, significance_cache, capsys):
    good, bad = scored
    Arrivals(good, bad).add()
    shutil.rmtree(significance_cache, ignore_errors=True)
    significance.compute(good.campaign)
    call_command("sweep_caches", "--only", "significance")
    out = capsys.readouterr().out
    assert "significance figures: 6 entries" in out and "removed 0 unused and 0 least recently used" in out
