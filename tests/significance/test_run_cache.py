"""Each result's figures kept per context (evaluation/significance/run_cache.py): a set computed from kept figures
is the set computed from the rows, byte for byte, and an entry that is stale, damaged or half written is computed
again, never trusted."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from evaluation.models import SignificanceTable
from evaluation.significance import run_cache, sets as significance
from parseval.evaluation import paired

from .helpers import gold_and_damaged
from .test_incremental import Arrivals


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def _watch_resampling(monkeypatch) -> list:
    """The runs whose figures a computation resamples (their rows read)."""
    calls = []
    run_figures = paired.run_figures

    def watched(rows, figures, draws):
        calls.append(rows.shape)
        return run_figures(rows, figures, draws)

    monkeypatch.setattr(paired, "run_figures", watched)
    return calls


def _entries(cache) -> dict[str, list]:
    return {suffix: sorted(cache.glob(f"*{suffix}")) for suffix in (".npy", run_cache.META, run_cache.SENTENCES)}


def _again(campaign) -> bytes:
    SignificanceTable.objects.filter(campaign=campaign).delete()  # every pair computed again
    return significance.set_bytes(significance.compute(campaign))


def test_kept_figures_give_the_set_computed_from_the_rows_byte_for_byte(scored, significance_cache, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    arrivals = Arrivals(good, bad)
    for _ in range(3):
        arrivals.add()
    calls = _watch_resampling(monkeypatch)
    shutil.rmtree(significance_cache, ignore_errors=True)
    cold = _again(campaign)  # nothing kept: every run resampled from its rows, and kept
    assert len(calls) == 5
    entries = _entries(significance_cache)
    assert [len(v) for v in entries.values()] == [5, 5, 5]  # per result: figures, their key and digest, sentences
    kept = np.load(entries[".npy"][0])
    assert kept.dtype == np.int32 and kept.shape[1] == 1000  # one column per resample

    calls.clear()
    assert _again(campaign) == cold  # every run's figures read from the cache: the same bytes
    assert calls == []

    calls.clear()
    arrivals.add()
    significance.compute(campaign)
    assert len(calls) == 1  # a new run: only its own figures computed; the others' read
    extended = significance.set_bytes(significance.latest_set(campaign))
    shutil.rmtree(significance_cache)
    assert _again(campaign) == extended


def _damage(path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flipped":
        data[-7] ^= 0x10  # one bit of one resampled figure: the digest says it
    elif how == "truncated":
        data = data[: len(data) // 2]
    else:
        data = b"not an array at all"
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["flipped", "truncated", "garbage"])
def test_a_damaged_entry_is_computed_again(scored, significance_cache, monkeypatch, how):
    good, bad = scored
    campaign = good.campaign
    Arrivals(good, bad).add()
    shutil.rmtree(significance_cache, ignore_errors=True)
    cold = _again(campaign)
    calls = _watch_resampling(monkeypatch)
    entries = _entries(significance_cache)
    _damage(entries[".npy"][1], how)
    _damage(entries[run_cache.SENTENCES][2], how)
    assert _again(campaign) == cold  # the damaged run resampled again, the same values
    assert len(calls) == 1
    calls.clear()
    assert _again(campaign) == cold and calls == []  # and kept again, whole
    assert _entries(significance_cache) == entries


def test_an_entry_of_another_key_is_not_used(scored, significance_cache, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    Arrivals(good, bad).add()
    shutil.rmtree(significance_cache, ignore_errors=True)
    cold = _again(campaign)
    entries = _entries(significance_cache)
    # another result's entry under this one's name (a database recreated with the same ids: a stale entry)
    first, second = entries[".npy"][0], entries[".npy"][1]
    shutil.copy(second, first)
    shutil.copy(second.with_name(second.name.replace(".npy", run_cache.META)),
                first.with_name(first.name.replace(".npy", run_cache.META)))
    calls = _watch_resampling(monkeypatch)
    assert _again(campaign) == cold
    assert len(calls) == 1  # its key is not the one asked for: computed again


def test_a_changed_context_computes_the_figures_again(scored, significance_cache, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    Arrivals(good, bad).add()
    significance.compute(campaign)
    calls = _watch_resampling(monkeypatch)
    campaign.metrics = {**(campaign.metrics or {}), "significance": {"seed": 99}}
    campaign.save(update_fields=["metrics"])
    computed = significance.compute(campaign)
    assert computed.seed == 99 and len(calls) == 3  # other draws: every run resampled again
    assert len(_entries(significance_cache)[".npy"]) == 6  # kept beside the first seed's


def test_an_entry_that_cannot_be_stored_leaves_the_figures_in_memory(scored, significance_cache, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    Arrivals(good, bad).add()
    shutil.rmtree(significance_cache, ignore_errors=True)
    cold = _again(campaign)
    shutil.rmtree(significance_cache)
    monkeypatch.setattr(run_cache, "_write", lambda path, write: False)
    assert _again(campaign) == cold
