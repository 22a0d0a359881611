"""What the Celery tasks of :mod:`evaluation` (scoring, error lab) share: delivery, retry and time-limit options."""
from __future__ import annotations

from django.conf import settings
from django.db import InterfaceError, OperationalError

# Errors that a later attempt may not meet: the database or the broker was away.
TRANSIENT = (OperationalError, InterfaceError, ConnectionError, TimeoutError)

# acks_late + reject_on_worker_lost: a worker killed mid-task hands the message back, so every task must be
# safe to start again from the beginning.
TASK_OPTIONS = dict(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    retry_backoff_max=300,
    max_retries=3,
    time_limit=settings.CELERY_TASK_TIME_LIMIT,
    soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT,
)


def out_of_retries(task) -> bool:
    """Whether ``task`` (a bound task handling a transient error) has used up its retries."""
    return task.request.retries >= task.max_retries
