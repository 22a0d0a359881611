"""Helpers for the EASY tests: build small EASY documents in memory."""
from __future__ import annotations

import io

import pytest

from parseval.annotations.easy import read_document
from tests.conftest import DATA, REPO_ROOT  # noqa: F401  (re-exported for the tests)

XLINK = 'xmlns:xlink="http://www.w3.org/1999/xlink"'


def easy_xml(body: str, *, name: str = "doc.xml", encoding: str = "UTF-8", doctype: str = "") -> bytes:
    text = f'<?xml version="1.0" encoding="{encoding}"?>\n{doctype}<DOCUMENT fichier="{name}" {XLINK}>\n{body}</DOCUMENT>\n'
    return text.encode(encoding)


def load(body: str, *, name: str = "doc.xml", gold: bool = False, strict: bool = True, **kw):
    return read_document(io.BytesIO(easy_xml(body, name=name, **kw)), name=name, gold=gold, strict=strict)


def sentence(sid: str, words: list[str], groups: dict[tuple[int, int], tuple[str, str]] | None = None,
             relations: list[tuple[str, str, dict[str, str]]] | None = None) -> str:
    """XML for one sentence. ``groups`` maps (start, end) 1-based inclusive form spans to (group id suffix, type);
    ``relations`` lists (id suffix, type, {role: target id suffix such as 'F3' or 'G1'})."""
    groups = groups or {}
    starts = {s: (e, gid, t) for (s, e), (gid, t) in groups.items()}
    out = [f'<E id="{sid}">\n']
    k = 1
    while k <= len(words):
        if k in starts:
            e, gid, t = starts[k]
            out.append(f'<Groupe type="{t}" id="{sid}{gid}">')
            for j in range(k, e + 1):
                out.append(f'<F id="{sid}F{j}">{words[j - 1]}</F>')
            out.append("</Groupe>\n")
            k = e + 1
        else:
            out.append(f'<F id="{sid}F{k}">{words[k - 1]}</F>\n')
            k += 1
    if relations:
        out.append("<relations>\n")
        for rid, rtype, args in relations:
            out.append(f'<relation xlink:type="extended" type="{rtype}" id="{sid}{rid}">\n')
            for role, target in args.items():
                out.append(f'<{role} xlink:type="locator" xlink:href="{sid}{target}"/>\n')
            out.append("</relation>\n")
        out.append("</relations>\n")
    out.append("</E>\n")
    return "".join(out)


@pytest.fixture(scope="session")
def easy_ref(shared_data):
    return shared_data / "easy-ref" / "ref"


@pytest.fixture(scope="session")
def easy_guide(shared_data):
    return shared_data / "easy-guide" / "ref"


@pytest.fixture(scope="session")
def gold_docs(easy_ref):
    return [read_document(p, gold=True) for p in sorted(easy_ref.glob("*.xml"))]
