"""The outage log (config/outages.py): one line each way per dependency, handled outages without tracebacks."""
from __future__ import annotations

import logging
import sys

import pytest
import redis
from django.db import OperationalError
from kombu.exceptions import OperationalError as BrokerError

from config import outages


@pytest.fixture(autouse=True)
def _no_outage_left():
    yield
    outages._since.clear()


def record_of(exc: BaseException | None, msg: str = "could not enqueue run %s", args=(7,), name="campaign.services.runs"):
    exc_info = None
    if exc is not None:
        try:
            raise exc
        except BaseException:
            exc_info = sys.exc_info()
    return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, args, exc_info)


def broker_error() -> BrokerError:
    try:
        try:
            raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        except redis.ConnectionError as exc:
            raise BrokerError(str(exc)) from exc
    except BrokerError as exc:
        return exc


def test_down_and_up_say_it_once_each_with_the_duration(caplog):
    caplog.set_level(logging.WARNING, logger="parseval.outages")
    assert outages.down(outages.CACHE, redis.ConnectionError("refused"))
    assert not outages.down(outages.CACHE, redis.ConnectionError("refused"))
    outages.up(outages.CACHE)
    outages.up(outages.CACHE)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("cache unreachable since ") and "ConnectionError: refused" in lines[0]
    assert lines[1].startswith("cache reachable again after ") and lines[1].endswith(" s")


def test_which_dependency_an_error_is():
    assert outages.dependency_of(broker_error()) == outages.BROKER
    assert outages.dependency_of(OperationalError("could not connect to server")) == outages.DATABASE
    assert outages.dependency_of(KeyError("bug")) is None
    assert outages.dependency_of(FileNotFoundError("a path the code got wrong")) is None


def test_a_handled_outage_loses_its_traceback_and_its_repeats():
    quiet = outages.QuietOutages()
    first = record_of(broker_error())
    assert quiet.filter(first)
    assert first.exc_info is None and first.getMessage() == (
        "could not enqueue run 7 (OperationalError: Error 111 connecting to 127.0.0.1:6379. Connection refused.)")
    assert not quiet.filter(record_of(broker_error(), args=(8,)))  # the same message again: once per few minutes
    # an error logged as an argument (Celery's "Cannot connect to %s: %s", at every retry) is an outage record too
    retries = [record_of(None, "consumer: Cannot connect to %s: %s", ("redis://", broker_error()),
                         name="celery.worker.consumer.consumer") for _ in range(3)]
    assert [quiet.filter(r) for r in retries] == [True, False, False]


def test_a_bug_keeps_its_traceback():
    quiet = outages.QuietOutages()
    for _ in range(3):
        bug = record_of(KeyError("bug"), "run %s failed")
        assert quiet.filter(bug) and bug.exc_info is not None


def test_django_s_line_per_503_is_dropped():
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Service Unavailable: %s", ("/",), None)
    record.status_code = 503
    assert not outages.QuietOutages().filter(record)


def test_the_cache_connection_reports_both_ends_and_a_live_socket_proves_nothing():
    import socket

    from tests.integration.test_worker_scoring import BROKER_URL

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nobody = s.getsockname()[1]
    with pytest.raises(redis.ConnectionError):
        outages.CacheConnection(host="127.0.0.1", port=nobody).connect()
    assert outages.is_down(outages.CACHE)
    live = outages.CachePool.from_url(BROKER_URL).get_connection()
    assert isinstance(live, outages.CacheConnection) and not outages.is_down(outages.CACHE)
    outages.down(outages.CACHE, "refused")
    live.connect()  # connected already: redis-py returns at once without asking the server
    assert outages.is_down(outages.CACHE)


def test_a_line_logged_while_an_outage_is_handled_is_written_once():
    """Celery logs a task's retry (\"Task ... retry: Retry in 5s: OperationalError(...)\") inside the handler, without
    the error: with a database away, once per queued task and per attempt."""
    quiet = outages.QuietOutages()
    said = []
    for n in range(5):
        try:
            raise OperationalError("connection refused")
        except OperationalError:
            said.append(quiet.filter(record_of(None, "Task %(name)s[%(id)s] retry: %(exc)s",
                                               ({"name": "t", "id": n, "exc": "Retry in 5s"},),
                                               name="celery.app.trace")))
    assert said == [True, False, False, False, False]


def test_the_transitions_are_never_held_back_as_repeats(caplog):
    """Each dependency's line, logged while its error is handled (a refused connect, a 503), gets through."""
    caplog.set_level(logging.WARNING, logger="parseval.outages")
    quiet = outages.QuietOutages()
    caplog.handler.addFilter(quiet)
    try:
        for dependency in (outages.CACHE, outages.BROKER, outages.DATABASE):
            try:
                raise redis.ConnectionError("refused")
            except redis.ConnectionError as exc:
                outages.down(dependency, exc)
    finally:
        caplog.handler.removeFilter(quiet)
    assert [r.getMessage().split(" since ")[0] for r in caplog.records] == [
        "cache unreachable", "broker unreachable", "database unreachable"]
