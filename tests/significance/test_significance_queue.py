"""At most one pending significance computation per campaign: a burst of requests costs one computation."""
from __future__ import annotations

from unittest import mock

import pytest

from evaluation.significance import sets as significance
from evaluation.models import SignificanceRequest
from evaluation.significance.tasks import COVERED, compute_significance

from .helpers import computations, gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def test_requests_queued_before_a_computation_are_covered_by_it(scored):
    campaign = scored[0].campaign
    marker = SignificanceRequest.objects.get(campaign=campaign)  # the two scorings asked twice, computed each
    assert marker.computed == marker.requested == 2
    sets_before = computations(campaign)
    sent = []
    with mock.patch("campaign.kinds.enqueue", side_effect=lambda name, *args, **kw: sent.append((name, args, kw))):
        for _ in range(3):  # three runs scored while the significance worker was busy
            significance.enqueue(campaign.pk)
    assert sent == [(significance.SIGNIFICANCE_TASK, (campaign.pk,), {"requested": n}) for n in (3, 4, 5)]

    outcomes = [compute_significance.apply(args=list(args), kwargs=kw).get() for _, args, kw in sent]
    assert "(requests up to 5)" in outcomes[0]
    assert outcomes[1:] == [f"request {n}: {COVERED} (of request 5)" for n in (4, 5)]
    assert computations(campaign) == sets_before + 1

    # A request made after that computation started is computed again; one without a number always is.
    with mock.patch("campaign.kinds.enqueue"):
        significance.enqueue(campaign.pk)
    assert "(requests up to 6)" in compute_significance.apply(args=[campaign.pk, 6]).get()
    assert "paired differences" in compute_significance.apply(args=[campaign.pk]).get()
    assert computations(campaign) == sets_before + 3


def test_a_batch_sends_the_newest_request_once(scored, monkeypatch):
    """Inside a coalesced block (the demo scores its runs in one), one message per campaign: the newest request."""
    from campaign import kinds

    campaign = scored[0].campaign
    sent = []
    monkeypatch.setattr(compute_significance, "delay", lambda *args, **kw: sent.append((args, kw)))
    with kinds.coalesced(significance.SIGNIFICANCE_TASK):
        for _ in range(4):
            significance.enqueue(campaign.pk)
        assert sent == []
    assert sent == [((campaign.pk,), {"requested": 6})]


def test_a_computation_that_dies_covers_nothing(scored):
    campaign = scored[0].campaign
    with mock.patch("campaign.kinds.enqueue"):
        significance.enqueue(campaign.pk)
    with mock.patch.object(significance, "compute", side_effect=MemoryError):
        with pytest.raises(MemoryError):
            compute_significance.apply(args=[campaign.pk, 3]).get()
    # its redelivery (acks_late) computes
    assert "(requests up to 3)" in compute_significance.apply(args=[campaign.pk, 3]).get()
