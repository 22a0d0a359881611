"""One answer for whatever is not there or not the requester's to see.

A hidden object (another team's run, a draft campaign, an organiser page)
must not be told apart from one that does not exist, so every 404 has the
same body whatever raised it and whatever its message: a fixed page for the
site (also with ``DEBUG`` on, whose technical page would print the message
and the view), ``{"detail": "Not found."}`` for the API.
"""
from __future__ import annotations

from functools import lru_cache

from django.http import Http404, HttpResponseNotFound
from django.templatetags.static import static
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

API_BODY = {"detail": "Not found."}
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found</title><link rel="stylesheet" href="{css}"></head>
<body><header class="site-header"><a class="brand" href="/">Parser evaluation campaigns</a></header>
<main><h1>Not found</h1><p>There is nothing to show here.</p><p><a href="/">Home</a></p></main></body></html>
"""


@lru_cache(maxsize=1)
def page() -> str:
    """The body, built once: the site's style sheet, no user, no request (every 404 is the same)."""
    return PAGE.format(css=static("css/site.css"))


def not_found(request, exception=None):
    """The site's 404 page (``handler404``), the same for every request."""
    return HttpResponseNotFound(page())


class UniformNotFoundMiddleware:
    """Answers every :class:`Http404` a view raises with :func:`not_found`, before Django's own handler,
    and every address that matches no URL pattern, also with ``DEBUG`` on."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # An address no URL pattern matches never reaches a view: Django answers it itself, with DEBUG on
        # (the development server, `make demo`) by its technical page, which lists every URL pattern.
        if response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return not_found(request)
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, Http404):
            return not_found(request)
        return None


def api_exception_handler(exc, context):
    """DRF's handler, except that every 404 has the same body."""
    if isinstance(exc, (Http404, exceptions.NotFound)):
        return Response(dict(API_BODY), status=404)
    return exception_handler(exc, context)
