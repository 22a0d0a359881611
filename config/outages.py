"""Outages of the services the app depends on, logged as two lines each: when it begins and when it ends.

A Redis stopped for a minute used to write some fifty thousand lines to the web log
(a ``ConnectionInterrupted`` traceback per cache call, a ``ConnectionRefusedError`` per
request), and the message that mattered was lost among them. The code handles these
outages (the cache misses, the upload stays in the outbox, the page answers 503 with
Retry-After), so they are not bugs and get no traceback. Each process says instead::

    broker unreachable since 10:02:11 (ConnectionError: Error 111 connecting to ...): uploads are kept ...
    broker reachable again after 61 s

Where the transitions are seen:

* Redis (the broker and the cache): the connection classes below, which the broker's
  transport (:mod:`config.broker`) and the cache's pool (``CONNECTION_POOL_CLASS``) use:
  a failed connect is the outage, the next successful one its end;
* the database: an answer of :mod:`config.unavailable` begins it, Django's
  ``connection_created`` signal (a new connection made) ends it;
* the object store and the staging file system: an answer of :mod:`config.unavailable`
  begins it; the next request that stores a file without fault ends it (:func:`up`).

:class:`QuietOutages` is the logging filter that keeps the rest of the noise out: a record
whose exception (or argument) is an outage of a dependency loses its traceback and,
repeated, is written once per :data:`REPEAT_SECONDS` by logger and message. Bugs keep
their tracebacks. The state is per process: with three web processes and four Celery
processes, an outage writes a few lines per process, whatever the traffic.
"""
from __future__ import annotations

import logging
import sys
import threading
import time

import redis
from django.db.backends.signals import connection_created
from redis.connection import ConnectionPool

from config.storage import store_faults

logger = logging.getLogger("parseval.outages")

BROKER, CACHE, DATABASE, STORE, FILE_SYSTEM = "broker", "cache", "database", "object store", "file system"
CONSEQUENCE = {
    BROKER: "uploads are kept and queued by the outbox once it is back; workers reconnect",
    CACHE: "served without the cache (request limits not counted meanwhile)",
    DATABASE: "requests answered 503 with Retry-After",
    STORE: "requests that store or read a file answered 503 with Retry-After",
    FILE_SYSTEM: "uploads answered 503 with Retry-After",
}
# A handled outage's own message, repeated (a retry loop, each request), is written at most this often.
REPEAT_SECONDS = 300.0

_since: dict[str, float] = {}
_lock = threading.Lock()


def down(dependency: str, reason: BaseException | str | None = None) -> bool:
    """The dependency cannot be reached; logs one line if it could until now. Whether this began an outage."""
    if dependency in _since:
        return False
    with _lock:
        if dependency in _since:
            return False
        _since[dependency] = time.time()
    because = f" ({_describe(reason)})" if reason else ""
    logger.warning("%s unreachable since %s%s: %s", dependency, time.strftime("%H:%M:%S"), because,
                   CONSEQUENCE.get(dependency, "retried"))
    return True


def up(dependency: str) -> None:
    """The dependency answered: ends its outage, if there was one, with one line and its duration."""
    if dependency not in _since:  # the usual case, without taking the lock
        return
    with _lock:
        since = _since.pop(dependency, None)
    if since is not None:
        logger.warning("%s reachable again after %.0f s", dependency, time.time() - since)


def is_down(dependency: str) -> bool:
    return dependency in _since


def _describe(reason) -> str:
    if isinstance(reason, BaseException):
        return f"{type(reason).__name__}: {reason}"[:300]
    return str(reason)[:300]


def _chain(exc: BaseException | None):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


class TemporarilyUnavailable(Exception):
    """A fault of the system that a later request may not meet (a file system refusing a write, say).

    Raised from the original error (``raise TemporarilyUnavailable(...) from exc``) by code that has
    undone what it had begun, so the client can simply send the request again."""


def dependency_of(exc: BaseException | None) -> str | None:
    """Which dependency's outage ``exc`` (or an error it was raised from) is; ``None`` for anything else (a bug)."""
    from django.db import InterfaceError as DatabaseInterfaceError
    from django.db import OperationalError as DatabaseError
    from kombu.exceptions import OperationalError as BrokerError

    store = store_faults()
    for error in _chain(exc):
        if isinstance(error, TemporarilyUnavailable) and isinstance(error.__cause__, OSError):
            return FILE_SYSTEM  # a staging folder refusing a write, undone by the code that raised it
        if type(error).__name__ == "ConnectionInterrupted":  # django-redis: the cache
            return CACHE
        if isinstance(error, (DatabaseError, DatabaseInterfaceError)) or type(error).__module__.startswith("psycopg"):
            return DATABASE
        if isinstance(error, (BrokerError, redis.ConnectionError, redis.TimeoutError)):
            return BROKER
        if store and isinstance(error, store):
            return STORE
    return None


class QuietOutages(logging.Filter):
    """Logging filter: a handled outage's record without its traceback, and the same one at most every few minutes."""

    def __init__(self, name: str = ""):
        super().__init__(name)
        self._last: dict[tuple[str, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == logger.name:
            return True  # the transitions themselves, often logged while the outage's error is being handled
        if record.name == "django.request" and getattr(record, "status_code", None) == 503:
            return False  # answered by config.unavailable, which logs the outage itself
        exc = record.exc_info[1] if record.exc_info else None
        dependency = dependency_of(exc)
        if dependency is None:
            args = record.args if isinstance(record.args, tuple) else ()
            exc = next((a for a in args if isinstance(a, BaseException) and dependency_of(a)), None)
            dependency = dependency_of(exc)
        if dependency is None and record.exc_info is None:
            # Logged while handling one, without passing it: Celery's "Task ... retry: Retry in 5s: OperationalError"
            # (a task retried for a database away), once per queued task and per attempt.
            handled = sys.exc_info()[1]
            dependency = dependency_of(handled)
        if dependency is None:
            return True
        key = (record.name, str(record.msg))
        now = time.monotonic()
        if now - self._last.get(key, -REPEAT_SECONDS) < REPEAT_SECONDS:
            return False
        self._last[key] = now
        if record.exc_info:
            record.msg, record.args = f"{_without_stacks(record)} ({_describe(exc)})", ()
            record.exc_info, record.exc_text = None, None
        return True


def _without_stacks(record: logging.LogRecord) -> str:
    """The record's message without a stack given as an argument (beat logs ``traceback.format_stack()`` so)."""
    args = record.args if isinstance(record.args, tuple) else ()
    try:
        return (str(record.msg) % tuple("" if isinstance(a, list) else a for a in args)).strip() if args \
            else record.getMessage()
    except (TypeError, ValueError):
        return record.getMessage()


def install(handlers) -> None:
    """Put one :class:`QuietOutages` on each handler (Celery's, which replace Django's in a worker)."""
    quiet = QuietOutages()
    for handler in handlers:
        if not any(isinstance(f, QuietOutages) for f in handler.filters):
            handler.addFilter(quiet)


class _Reporting:
    dependency = ""

    def connect(self):
        if self._sock is not None:  # already connected: redis-py returns at once, which says nothing of the server
            return super().connect()
        try:
            super().connect()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            down(self.dependency, exc)
            raise
        up(self.dependency)


class BrokerConnection(_Reporting, redis.Connection):
    """The broker's Redis connection (:mod:`config.broker`): reports the broker's outages."""

    dependency = BROKER


class CacheConnection(_Reporting, redis.Connection):
    """The cache's Redis connection: reports the cache's outages."""

    dependency = CACHE


class CachePool(ConnectionPool):
    """django-redis's ``CONNECTION_POOL_CLASS``: redis-py's pool of :class:`CacheConnection`."""

    def __init__(self, connection_class=CacheConnection, **kwargs):
        if connection_class is redis.Connection:
            connection_class = CacheConnection
        super().__init__(connection_class=connection_class, **kwargs)


def _database_connected(sender, connection, **kwargs):
    up(DATABASE)


connection_created.connect(_database_connected, dispatch_uid="parseval.outages.database")
