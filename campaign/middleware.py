"""Request-level guards that must act before Django reads a request body."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse


class RequestSizeLimitMiddleware:
    """Refuse a request whose declared body is larger than ``PARSEVAL_MAX_REQUEST_BYTES`` (413).

    Django spools multipart file data to disk without a total limit, and the CSRF
    check reads the body of every POST before the view runs; this check comes before
    both and looks only at ``Content-Length``. A body without one is read by Django
    as empty, so it cannot carry more.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return HttpResponse("Bad Content-Length.", status=400, content_type="text/plain")
        limit = settings.PARSEVAL_MAX_REQUEST_BYTES
        if length > limit:
            response = HttpResponse(f"Request body of {length:,} bytes refused: the limit is {limit:,} bytes.",
                                    status=413, content_type="text/plain")
            response["Connection"] = "close"
            return response
        return self.get_response(request)
