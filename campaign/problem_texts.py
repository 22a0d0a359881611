"""The report texts of the scoring library, in the reader's language.

The library (parseval/: the formats and the engines) has no Django and stores its texts in
English: ``N_("word %(id)s is its own head") % {"id": 7}`` leaves "word 7 is its own head" in the
validation report, as it always has. A page translates such a text when it shows it: a text
without values is a catalogue entry as it stands; a text with values is matched against the
library's templates (read once from its source, so nothing of the library is imported here) and
the values found are put back into the translated template. A text that matches nothing, such as
an old report's or an external validator's, is shown as stored.

A value may itself be one of the library's texts ("the file's sentence 7", itself from a template),
when a report names a sentence the way other reports do: such a value is translated in turn. Only a
value that is a library text is, never a word or an identifier that a catalogue entry happens to
spell.
"""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext

#: Where the library's report texts are written (the library, parseval/; and the app's own N_ texts).
LIBRARY = ("parseval", "annotations", "evaluation")
_PLACEHOLDER = re.compile(r"%\((\w+)\)([sdr])|%%")


def library_templates(root: Path | None = None) -> list[str]:
    """Every ``N_`` template with values in the library's source."""
    return sorted(t for t in library_texts(root) if _PLACEHOLDER.search(t))


def library_texts(root: Path | None = None) -> list[str]:
    """Every ``N_`` text in the library's source, with values or without."""
    root = Path(root or settings.BASE_DIR)
    found = set()
    for package in LIBRARY:
        for path in (root / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if "N_(" not in text:  # most modules: no need to parse them
                continue
            for node in ast.walk(ast.parse(text)):
                if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "N_" and node.args
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    found.add(node.args[0].value)
    return sorted(found)


def _pattern(template: str) -> re.Pattern:
    out, seen, end = [], set(), 0
    for m in _PLACEHOLDER.finditer(template):
        out.append(re.escape(template[end:m.start()]))
        if m.group(0) == "%%":
            out.append("%")
        elif m.group(1) in seen:
            out.append(f"(?P={m.group(1)})")
        else:
            seen.add(m.group(1))
            out.append(f"(?P<{m.group(1)}>.+?)")
        end = m.end()
    out.append(re.escape(template[end:]))
    return re.compile("".join(out) + r"\Z", re.S)


@lru_cache(maxsize=1)
def _matchers() -> list[tuple[re.Pattern, str]]:
    # the most specific first: more fixed text before fewer, so that "a %(x)s b" wins over "%(x)s"
    templates = sorted(library_templates(), key=lambda t: -len(_PLACEHOLDER.sub("", t)))
    return [(_pattern(t), t) for t in templates]


@lru_cache(maxsize=1)
def _constants() -> frozenset[str]:
    return frozenset(t for t in library_texts() if not _PLACEHOLDER.search(t))


def translated(message: str, *, nested: bool = False) -> str:
    """``message`` (a stored English report text) in the active language, values unchanged unless they
    are library texts themselves. ``nested``: ``message`` is such a value, translated only if it is one."""
    if not message:
        return message
    if not nested or message in _constants():
        exact = gettext(message)
        if exact != message:
            return exact
    for pattern, template in _matchers():
        found = pattern.match(message)
        if found:
            target = gettext(template)
            if target == template:
                return message
            # the values are put back as they were written (a repr stays a repr)
            return _PLACEHOLDER.sub(
                lambda m: "%" if m.group(0) == "%%" else translated(found.group(m.group(1)), nested=True), target)
    return message
