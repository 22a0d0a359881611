"""On SQLite (the embedded default) the paired tests are computed outside any transaction, and written in one.

SQLite has one writer at a time: the upload of a team, a worker claiming a run and a
worker storing a result all wait for the lock that a transaction holds. A computation
of a campaign's table inside its transaction held that lock for as long as it ran
(38 s under docs/deployment.md's embedded load), past the 20 s busy timeout of the
others. On SQLite the rows are computed first and written at the end; the set is the
same as the one stored as it comes on PostgreSQL.
"""
from __future__ import annotations

import pytest
from django.db import connection

from parseval.evaluation import paired
from evaluation.significance import sets as significance
from evaluation.models import SignificanceSet

from .helpers import gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def test_on_sqlite_the_computation_holds_no_transaction_and_stores_the_same_set(scored, monkeypatch):
    good, _ = scored
    stored_as_it_came = significance.latest_set(good.campaign)
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
    fields = ("figure", "result_a_id", "result_b_id", "diff", "p_value", "p_holm", "significant", "cells")
    assert (list(computed.pairs.order_by("figure").values_list(*fields))
            == list(stored_as_it_came.pairs.order_by("figure").values_list(*fields)))
