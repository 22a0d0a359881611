"""A superseded significance set is replaced, not kept beside the new one, and the audit keeps what it was.

Each computation stored a whole set (about 40 rows per pair) and nothing removed the sets it superseded: an
hour of load left 1.95 million rows. Now the campaign keeps one set (covering all its tracks), the audit log
records each computation's results, runs, seed, scorer versions and the checksum of its rows, and readers
see the old set or the new one, whole, never none and never half.
"""
from __future__ import annotations

import threading

import pytest
from django.db import connection

from campaign.models import AuditEntry
from evaluation.significance import sets as significance
from evaluation.models import SignificanceFigure, SignificanceSet, SignificanceTable

from .helpers import gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def _audited(campaign):
    return list(AuditEntry.objects.filter(campaign=campaign, action=significance.SIGNIFICANCE_COMPUTED)
                .order_by("pk"))


def test_after_several_computations_the_tables_hold_the_current_set_and_the_one_it_replaced(scored):
    good, bad = scored
    sets = [significance.compute(good.campaign) for _ in range(4)]
    computed, replaced = sets[-1], sets[-2]

    # the current set, and the one it replaced for a reader that took it just before (nothing older)
    assert set(SignificanceSet.objects.filter(campaign=good.campaign)) == {computed, replaced}
    assert significance.latest_set(good.campaign) == computed
    stored = SignificanceFigure.objects.filter(set__campaign=good.campaign)
    assert stored.count() == computed.figures.count() + replaced.figures.count() > 0
    assert set(stored.values_list("set", flat=True)) == {computed.pk, replaced.pk}
    # the pairs' tables are shared by the two sets (the same runs, the same context): stored once
    assert SignificanceTable.objects.filter(campaign=good.campaign).count() == computed.figures.count()


def test_a_reader_holding_the_replaced_set_still_reads_its_pairs(scored):
    good, bad = scored
    held = significance.compute(good.campaign)
    significance.compute(good.campaign)  # replaced between a page's two queries: its pairs are still there
    assert significance.stored_headlines(held) and significance.pair_tables(held, *held.results)


def test_the_audit_records_each_computation_runs_seed_scorer_version_and_checksum(scored):
    good, bad = scored
    already = len(_audited(good.campaign))
    sets = [significance.compute(good.campaign) for _ in range(3)]

    entries = _audited(good.campaign)[already:]
    assert [e.details["set"] for e in entries] == [s.pk for s in sets]
    for entry, computed in zip(entries, sets):
        details = entry.details
        assert details["runs"] == sorted([good.pk, bad.pk])
        assert details["results"] == computed.results
        assert details["seed"] == computed.seed and details["signature"] == computed.signature
        assert details["scorer_versions"] == sorted({r.scorer_version for r in
                                                     (good.results.get(), bad.results.get())})
        assert len(details["checksum"]) == 64 and details["pairs"] > 0
    # The same runs and seed give the same rows: the checksum says so, although the rows themselves are gone.
    assert len({e.details["checksum"] for e in entries}) == 1
    # each computation removes the set before the one it replaces (that one stays for a reader holding it)
    assert [e.details["superseded"] for e in entries[2:]] == [[s.pk] for s in sets[:-2]]


def test_a_killed_computation_leaves_the_previous_set_and_no_half_one(scored, monkeypatch):
    good, _ = scored
    before = significance.latest_set(good.campaign)
    calls, store = [], significance._store
    SignificanceTable.objects.all().delete()  # the pairs are computed again

    def dies(rows):  # one row stored, then the worker dies
        calls.append(len(rows))
        store(rows[:1])
        raise MemoryError("killed midway")

    monkeypatch.setattr(significance, "_store", dies)
    with pytest.raises(MemoryError):
        significance.compute(good.campaign)

    assert calls and significance.latest_set(good.campaign) == before
    assert before in SignificanceSet.objects.filter(campaign=good.campaign)
    assert not SignificanceSet.objects.filter(campaign=good.campaign, complete=False).exists()  # no half set


@pytest.mark.django_db(transaction=True)
def test_readers_during_a_replacement_see_the_old_set_or_the_new_one_whole(scored, monkeypatch):
    """A reader on another connection, while the replacing transaction is open (the new set stored, the old
    one deleted, not yet committed), sees the old set with all its rows; once committed, the new one."""
    good, _ = scored
    old = significance.latest_set(good.campaign)
    old_rows = significance.set_bytes(old)
    seen = []

    def read():
        try:
            current = significance.latest_set(good.campaign)
            seen.append((current.pk, significance.set_bytes(current)))
        finally:
            connection.close()

    record = significance.audit.record

    def record_then_read(*args, **kwargs):  # the last step inside the replacing transaction
        entry = record(*args, **kwargs)
        reader = threading.Thread(target=read)
        reader.start()
        reader.join()
        return entry

    monkeypatch.setattr(significance.audit, "record", record_then_read)
    computed = significance.compute(good.campaign)
    seen_during = list(seen)
    seen.clear()
    reader = threading.Thread(target=read)
    reader.start()
    reader.join()
    read_after = seen

    assert seen_during == [(old.pk, old_rows)]
    assert read_after == [(computed.pk, significance.set_bytes(computed))] and computed.pk != old.pk
    # the old set is kept, whole, until the next computation: a reader that took it still reads its pairs
    assert significance.set_bytes(SignificanceSet.objects.get(pk=old.pk)) == old_rows
