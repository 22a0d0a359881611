"""``escape`` and ``quoteattr`` of :mod:`xml.sax.saxutils`, the same text for the same input, without importing it:
``xml.sax.saxutils`` imports ``urllib.request`` and ``http.client`` (for functions no reader or writer here
uses), a noticeable part of the command line's start-up."""
from __future__ import annotations


def escape(data: str) -> str:
    """``&``, ``<`` and ``>`` escaped (``xml.sax.saxutils.escape`` without ``entities``)."""
    return data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(data: str) -> str:
    """An attribute value, escaped and quoted (``xml.sax.saxutils.quoteattr`` without ``entities``)."""
    data = escape(data).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in data:
        if "'" in data:
            return '"%s"' % data.replace('"', "&quot;")
        return "'%s'" % data
    return '"%s"' % data
