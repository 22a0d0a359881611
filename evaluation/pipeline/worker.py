"""What the Celery tasks of :mod:`evaluation` (scoring, error lab) share: delivery, retry and time-limit options."""
from __future__ import annotations

import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError

from campaign import kinds

from config.storage import store_faults

# Faults of the system that a later attempt may not meet: the database or the broker away, a file system that
# refuses a write or a read for a while (a full or remounted disk, permissions being repaired, network storage).
# OSError covers ConnectionError and TimeoutError; an object store's errors are the same kind of fault (a bucket
# unreachable, refusing, or missing an object the database names). Celery retries them with exponential back-off (full jitter):
# with the defaults, 5, 10, 20, 40, 80 and 120 s at most, so a fault lasting up to about 4.5 minutes is ridden out.
TRANSIENT = (OperationalError, InterfaceError, OSError, *store_faults())

# acks_late + reject_on_worker_lost: a worker killed mid-task hands the message back, so every task must be
# safe to start again from the beginning.
TASK_OPTIONS = dict(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT,
    retry_backoff=settings.PARSEVAL_RETRY_BACKOFF_SECONDS,
    retry_backoff_max=settings.PARSEVAL_RETRY_BACKOFF_MAX_SECONDS,
    max_retries=settings.PARSEVAL_TRANSIENT_RETRIES,
    time_limit=settings.CELERY_TASK_TIME_LIMIT,
    soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT,
)


def out_of_retries(task) -> bool:
    """Whether ``task`` (a bound task handling a transient error) has used up its retries."""
    return task.request.retries >= task.max_retries


def retry_bound_seconds() -> float:
    """The longest time the retries of a transient fault wait in all (without the attempts' own time)."""
    total, step = 0.0, settings.PARSEVAL_RETRY_BACKOFF_SECONDS
    for k in range(settings.PARSEVAL_TRANSIENT_RETRIES):
        total += min(step * 2 ** k, settings.PARSEVAL_RETRY_BACKOFF_MAX_SECONDS)
    return total


def system_fault(exc: BaseException, *, subject: str = "the run",
                 remedy: str = "the organisers can re-score the run once it is fixed") -> str:
    """The failure reason of a transient fault that outlasted the retries: the system's, not the run's."""
    what = type(exc).__name__
    detail = getattr(exc, "strerror", None)
    return (f"not caused by {subject}: a system fault ({what}{': ' + detail if detail else ''}) lasted through "
            f"{settings.PARSEVAL_TRANSIENT_RETRIES} retries over about {retry_bound_seconds():.0f} s; {remedy}")


def ask_once(cache_key: str, task_name: str, *args, every_time: bool = False) -> None:
    """Send ``task_name`` for a page that found its precomputed value missing, unless it was asked for under
    ``cache_key`` in the last five minutes (every view of a page being computed would queue it again; a view
    after five minutes asks again, should the first request have been lost). ``every_time`` sends it
    regardless (tasks run in process: the value is then computed at once). Never fails the page, which says
    "being computed" either way."""
    from django.core.cache import cache

    if not every_time and not cache.add(cache_key, True, timeout=300):
        return
    try:
        kinds.enqueue(task_name, *args)
    except Exception:
        logging.getLogger(__name__).exception("could not ask for %s%r", task_name, args)
