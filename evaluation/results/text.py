"""How every page writes a figure: one convention for all kinds, in the language of the page.

A page writes its figures in the active language (a decimal comma in French, through Django's
formats); the JSON documents and the API never do, so that a figure read by a program is the same
whatever the reader's language. A JSON view builds its document inside :func:`for_programs`, which
also keeps its words (genre names, labels) in the site's language.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.utils import translation
from django.utils.formats import get_format

_plain = ContextVar("plain_numbers", default=False)


@contextmanager
def plain_numbers():
    """Within it, figures are written as programs read them (``83.0``), whatever the language."""
    token = _plain.set(True)
    try:
        yield
    finally:
        _plain.reset(token)


@contextmanager
def for_programs():
    """A document for programs (the pages' JSON): plain numbers, and words in the site's language."""
    with plain_numbers(), translation.override(settings.LANGUAGE_CODE):
        yield


def decimal(value: float, places: int) -> str:
    """A number with ``places`` decimals, written for the active language (``83,0`` in French)."""
    written = f"{value:.{places}f}"  # the same digits in every language: only the separator changes
    return written if _plain.get() else written.replace(".", get_format("DECIMAL_SEPARATOR"))


def percent(value) -> str:
    """A fraction as a percentage with one decimal; "–" for an undefined figure (never 0.0)."""
    return "–" if value is None else decimal(100 * value, 1)
