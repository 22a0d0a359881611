"""The paired tests are computed outside any transaction (on SQLite, the embedded default, and on PostgreSQL),
and the set made the campaign's in one short one.

SQLite has one writer at a time: the upload of a team, a worker claiming a run and a
worker storing a result all wait for the lock that a transaction holds. A computation
of a campaign's table inside its transaction held that lock for as long as it ran
(38 s under docs/deployment.md's embedded load), past the 20 s busy timeout of the
others. On PostgreSQL it pinned one snapshot for minutes. The rows are now stored as they
come, batch by batch, into a set no reader picks until it is whole (test_replaced_sets).
"""
from __future__ import annotations

import pytest
from django.db import connection

from parseval.evaluation import paired
from evaluation.significance import sets as significance
from evaluation.models import SignificanceSet, SignificanceTable

from .helpers import gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def test_on_sqlite_the_computation_holds_no_transaction_and_stores_the_same_set(scored, monkeypatch):
    good, _ = scored
    stored_as_it_came = significance.latest_set(good.campaign)
    rows_as_they_came = significance.set_bytes(stored_as_it_came)
    SignificanceTable.objects.all().delete()  # every pair computed again
    outside = len(connection.atomic_blocks)  # the test's own transaction
    held_while_computing = []
    compare_parts = paired.compare_parts

    def watched(*args, **kwargs):
        for part in compare_parts(*args, **kwargs):
            held_while_computing.append(len(connection.atomic_blocks) > outside)
            yield part

    monkeypatch.setattr(paired, "compare_parts", watched)
    monkeypatch.setattr(connection, "vendor", "sqlite")
    computed = significance.compute(good.campaign)

    assert held_while_computing and not any(held_while_computing)
    assert SignificanceSet.objects.latest() == computed and computed.signature
    assert computed.results == stored_as_it_came.results and computed.resamples == stored_as_it_came.resamples
    assert rows_as_they_came == significance.set_bytes(computed)


def test_on_the_configured_database_no_transaction_is_open_while_the_pairs_are_computed(scored, monkeypatch):
    """The same watch without pretending to be SQLite: on PostgreSQL (production) too, and the set is the same
    as the one computed at upload."""
    good, _ = scored
    before = significance.set_bytes(significance.latest_set(good.campaign))
    SignificanceTable.objects.all().delete()  # every pair computed again
    outside = len(connection.atomic_blocks)
    held_while_computing = []
    compare_parts = paired.compare_parts

    def watched(*args, **kwargs):
        for part in compare_parts(*args, **kwargs):
            held_while_computing.append(len(connection.atomic_blocks) > outside)
            yield part

    monkeypatch.setattr(paired, "compare_parts", watched)
    computed = significance.compute(good.campaign)

    assert held_while_computing and not any(held_while_computing), connection.vendor
    assert significance.latest_set(good.campaign) == computed and computed.complete
    assert before and significance.set_bytes(computed) == before
