"""A significance request lost with the broker is asked again by the recovery sweep (evaluation.pipeline.recovery).

The case of the load test: runs scored while the significance worker was stopped, then Redis
restarted empty. The database counts the requests (``requested``) and what the newest finished
computation covered (``computed``); nothing else would ask again until the next scored run.
"""
from __future__ import annotations

import json
from datetime import timedelta
from unittest import mock

import pytest
import redis
from django.utils import timezone

from config import queues
from evaluation.significance import sets as significance
from evaluation.models import SignificanceRequest
from evaluation.pipeline.recovery import recover_runs
from tests.integration.test_worker_scoring import BROKER_URL, broker_queue, require_services  # noqa: F401

from .helpers import computations, gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


def lose_a_request(campaign, asked_ago: timedelta = timedelta(minutes=5)) -> int:
    """A scored run asks for the tests; its message goes with the broker. Returns the request's number."""
    with mock.patch("campaign.kinds.enqueue"):  # sent to a Redis that then restarts empty
        significance.enqueue(campaign.pk)
    SignificanceRequest.objects.filter(campaign=campaign).update(requested_at=timezone.now() - asked_ago)
    return SignificanceRequest.objects.get(campaign=campaign).requested


def test_a_lost_significance_request_is_asked_again_and_computed(scored):
    campaign = scored[0].campaign
    sets_before = computations(campaign)
    number = lose_a_request(campaign)
    marker = SignificanceRequest.objects.get(campaign=campaign)
    assert marker.computed < marker.requested == number

    outcome = recover_runs()  # tasks run in process here: the request asked again is computed at once

    marker.refresh_from_db()
    assert marker.computed == marker.requested == number, "asking again must not count a new request"
    assert computations(campaign) == sets_before + 1
    assert outcome.get("asked_again") == 1
    assert recover_runs()["asked_again"] == 0, "covered now: nothing more to ask"


def test_a_request_just_made_is_left_to_its_own_message(scored, settings):
    campaign = scored[0].campaign
    lose_a_request(campaign, asked_ago=timedelta(seconds=1))
    settings.PARSEVAL_OUTBOX_GRACE_SECONDS = 20
    assert recover_runs()["asked_again"] == 0


def significance_messages(queue: str) -> list[dict]:
    client = redis.Redis.from_url(BROKER_URL)
    return [json.loads(m)["headers"] for m in client.lrange(queue, 0, -1)]


def test_with_a_broker_the_request_is_sent_again_once_and_only_when_nothing_waits(scored, broker_queue):  # noqa: F811
    require_services()
    campaign = scored[0].campaign
    queue = queues.queue_name(queues.SIGNIFICANCE)
    client = redis.Redis.from_url(BROKER_URL)
    client.delete(queue)
    try:
        number = lose_a_request(campaign)
        outcome = recover_runs()
        (sent,) = significance_messages(queue)
        assert sent["task"] == significance.SIGNIFICANCE_TASK
        assert f"'requested': {number}" in sent["kwargsrepr"], sent  # its own number, not a new request
        assert outcome["asked_again"] == 1

        # Its message waits in the queue now (the worker is stopped): the next sweeps send nothing more.
        assert recover_runs()["asked_again"] == 0
        assert len(significance_messages(queue)) == 1
    finally:
        client.delete(queue)
