"""When something the app needs is down (the database, Redis, the object store), answer 503 with a retry hint, not a 500.

Every JSON route answers JSON (``{"detail": ..., "retry_after": seconds}``) for these, so
clients never have to parse an HTML error page: the API, the ``*.json`` documents
(``data.json``, ``significance.json``, the error lab's ``status.json``) and any request that
asks for JSON before HTML (the run page's status polling sends ``Accept: application/json``).
The API answers JSON for any other server error too. The pages answer a short 503 page.
Both carry the same ``Retry-After``.

An outage is logged once, when it begins, and once when the dependency is back
(:mod:`config.outages`), not once per request.

:class:`ServiceUnavailableMiddleware` sees the views' exceptions; :func:`server_error`
(``handler500``) sees the rest, raised in a middleware (sessions, authentication)
before any view ran.
"""
from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.views import defaults
from django.utils.translation import gettext

from config import outages
from config.outages import TemporarilyUnavailable  # defined beside the outages it is one of
from config.storage import store_faults

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30


def _unavailable_errors() -> tuple[type[BaseException], ...]:
    from kombu.exceptions import OperationalError as BrokerUnavailable
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    return (OperationalError, InterfaceError, RedisConnectionError, RedisTimeoutError, BrokerUnavailable,
            TemporarilyUnavailable, *store_faults())


def is_api(request) -> bool:
    return request.path.startswith("/api/")


def wants_json(request) -> bool:
    """A JSON route, or a client that negotiates JSON: it gets its outage answer in JSON."""
    if is_api(request) or request.path.endswith(".json") or request.GET.get("format") == "json":
        return True
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def unavailable_response(request, exc: BaseException | None):
    """The 503 for ``exc`` if it means a service is down, else ``None``."""
    if exc is None or not isinstance(exc, _unavailable_errors()):
        return None
    cause = exc.__cause__ if isinstance(exc, TemporarilyUnavailable) and exc.__cause__ else exc
    dependency = outages.dependency_of(exc)
    if dependency:
        outages.down(dependency, cause)  # one line for the outage, not one per request
    else:
        logger.error("service unavailable while serving %s: %s: %s", request.path, type(cause).__name__, cause)
    message = gettext("The service is temporarily unavailable; try again shortly.")
    if wants_json(request):
        response = JsonResponse({"detail": message, "retry_after": RETRY_AFTER_SECONDS}, status=503)
    else:
        title = gettext("Temporarily unavailable")
        response = HttpResponse(f"<!doctype html><title>{title}</title><h1>{title}</h1>"
                                f"<p>{message}</p>", status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class ServiceUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return unavailable_response(request, exception)


def server_error(request, *args, **kwargs):
    """``handler500``: a 503 when a service is down; JSON for the API; Django's page otherwise."""
    response = unavailable_response(request, sys.exc_info()[1])
    if response is not None:
        return response
    if is_api(request):
        return JsonResponse({"detail": "Internal server error."}, status=500)
    return defaults.server_error(request, *args, **kwargs)
