"""Request rates, with DRF's throttles: the API's, and the same classes on the portal's pages.

Every throttle identifies a client by :func:`campaign.audit.client_ip` (``REMOTE_ADDR``
unless a trusted proxy forwarded the request), never by an ``X-Forwarded-For``
that any client can write. Rates are in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``.
"""
from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from .audit import client_ip


class _ClientAddress:
    def get_ident(self, request):
        return client_ip(request) or "unknown"


class AnonThrottle(_ClientAddress, AnonRateThrottle):
    pass


class UserThrottle(_ClientAddress, UserRateThrottle):
    pass


class UploadThrottle(UserThrottle):
    """Run uploads per account, one budget for the API and the portal together."""

    scope = "uploads"


def upload_throttles() -> list:
    """The throttles of a run upload, wherever it comes from (API or portal)."""
    return [UploadThrottle(), UserThrottle()]


class AddressThrottle(_ClientAddress, SimpleRateThrottle):
    """Per client address whoever is logged in: sign-up and the API token endpoint."""

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class TokenThrottle(AddressThrottle):
    scope = "token"


class SignupThrottle(AddressThrottle):
    scope = "signup"


def refused_by(request, *throttles) -> HttpResponse | None:
    """For a plain Django view: a 429 response if any throttle refuses the request, else None."""
    waits = [t.wait() for t in throttles if not t.allow_request(request, None)]
    if not waits:
        return None
    wait = max((w for w in waits if w is not None), default=None)
    response = HttpResponse(gettext("Too many requests; try again later."), status=429, content_type="text/plain")
    if wait is not None:
        response["Retry-After"] = str(int(wait) + 1)
    return response
