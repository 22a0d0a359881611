"""Write a :class:`~parseval.annotations.easy.model.Document` back as EASY XML.

The output has the shape of the real reference files (forms and groups
directly in ``<E>``, then ``<relations>``); ``wrapper=True`` writes the older
shape with a ``<constituants>`` wrapper. Any encoding Python knows can be
used (``UTF-8`` by default, ``ISO-8859-1`` for old tools).
"""
from __future__ import annotations

import io
import os
from parseval.annotations.xmltext import escape, quoteattr

from .model import Document, Sentence
from .schema import DEFAULT_SCHEMA, EasySchema

XLINK_NS = "http://www.w3.org/1999/xlink"


def _more(extra, element_id: str) -> str:
    """The extra attributes written on one element (a consensus writes each item's agreement)."""
    attrs = extra.get(element_id) if extra else None
    return "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items()) if attrs else ""


def _sentence_xml(s: Sentence, wrapper: bool, schema: EasySchema | None, extra=None) -> str:
    out = [f"<E id={quoteattr(s.id)}>\n"]
    if wrapper:
        out.append("<constituants>\n")
    groups = sorted(s.groups, key=lambda g: g.start)
    gi = 0
    i = 0
    n = len(s.forms)

    def form(k):
        f = s.forms[k]
        return f"<F id={quoteattr(f.id)}>{escape(f.text)}</F>\n"

    while i < n:
        if gi < len(groups) and groups[gi].start == i:
            g = groups[gi]
            out.append(f" <Groupe type={quoteattr(g.type)} id={quoteattr(g.id)}{_more(extra, g.id)}>\n")
            for k in range(g.start, g.end):
                out.append(form(k))
            out.append(" </Groupe>\n")
            i = max(g.end, i + 1)
            gi += 1
        else:
            out.append(form(i))
            i += 1
    if wrapper:
        out.append("</constituants>\n")
    if s.relations:
        out.append("<relations>\n")
        for r in s.relations:
            out.append(f'<relation xlink:type="extended" type={quoteattr(r.type)} id={quoteattr(r.id)}'
                       f'{_more(extra, r.id)}>\n')
            for role, target in r.args.items():
                out.append(f'<{role} xlink:type="locator" xlink:href={quoteattr(target)}/>\n')
            for tag, attrs in r.extras.items():
                attr = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
                out.append(f"<{tag}{attr}/>\n")
            out.append("</relation>\n")
        out.append("</relations>\n")
    out.append("</E>\n")
    return "".join(out)


def write_document(doc: Document, target, *, encoding: str = "UTF-8", wrapper: bool = False,
                   schema: EasySchema | None = DEFAULT_SCHEMA, extra=None) -> None:
    """Write ``doc`` to a path or a binary file object.

    ``extra`` maps group and relation ids to more attributes to write on them
    (``{id: {name: value}}``); readers ignore attributes they do not know.
    """
    if isinstance(target, (str, os.PathLike)):
        with open(target, "wb") as fh:
            write_document(doc, fh, encoding=encoding, wrapper=wrapper, schema=schema, extra=extra)
        return
    text = io.TextIOWrapper(target, encoding=encoding, errors="xmlcharrefreplace", newline="\n")
    try:
        text.write(f'<?xml version="1.0" encoding="{encoding}"?>\n')
        attrs = {k: v for k, v in doc.attributes.items() if not k.startswith("{")}
        attrs.setdefault("fichier", doc.name)
        attr = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
        text.write(f'<DOCUMENT{attr} xmlns:xlink="{XLINK_NS}">\n')
        for s in doc.sentences:
            text.write(_sentence_xml(s, wrapper, schema, extra))
        text.write("</DOCUMENT>\n")
        text.flush()
    finally:
        text.detach()


def document_to_bytes(doc: Document, *, encoding: str = "UTF-8", wrapper: bool = False) -> bytes:
    buf = io.BytesIO()
    write_document(doc, buf, encoding=encoding, wrapper=wrapper)
    return buf.getvalue()
