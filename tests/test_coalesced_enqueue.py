"""Tasks asked for many times inside a batch are sent once per distinct arguments, at the end."""
from __future__ import annotations

from celery import current_app

from campaign import kinds


class Recorder:
    def __init__(self):
        self.sent = []

    def delay(self, *args):
        self.sent.append(args)
        return args


def test_a_batch_sends_each_campaign_once_after_the_block(monkeypatch):
    recorder, other = Recorder(), Recorder()
    monkeypatch.setitem(current_app.tasks, "test.batched", recorder)
    monkeypatch.setitem(current_app.tasks, "test.other", other)
    with kinds.coalesced("test.batched"):
        for campaign_id in (7, 8, 7, 7, 8):
            assert kinds.enqueue("test.batched", campaign_id) is None
        kinds.enqueue("test.other", 7)  # another task is not held
        assert recorder.sent == [] and other.sent == [(7,)]
    assert recorder.sent == [(7,), (8,)]  # in the order first asked
    kinds.enqueue("test.batched", 7)  # after the block: sent at once again
    assert recorder.sent == [(7,), (8,), (7,)]


def test_an_inner_block_leaves_the_sending_to_the_outer_one(monkeypatch):
    recorder = Recorder()
    monkeypatch.setitem(current_app.tasks, "test.batched", recorder)
    with kinds.coalesced("test.batched"):
        with kinds.coalesced("test.batched"):
            kinds.enqueue("test.batched", 1)
        assert recorder.sent == []
        kinds.enqueue("test.batched", 1)
    assert recorder.sent == [(1,)]


def test_an_error_in_the_block_still_sends_what_was_asked(monkeypatch):
    recorder = Recorder()
    monkeypatch.setitem(current_app.tasks, "test.batched", recorder)
    try:
        with kinds.coalesced("test.batched"):
            kinds.enqueue("test.batched", 3)
            raise RuntimeError("a failing step")
    except RuntimeError:
        pass
    assert recorder.sent == [(3,)]
