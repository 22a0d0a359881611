"""Template text that reaches a reader without going through translation, found (and marked) mechanically.

A page's words are marked with ``{% translate %}`` or ``{% blocktranslate %}``; text left between
tags is English on a French page. This module reads every template with Django's own lexer and
walks its text as HTML: words in element content, and in the attributes a reader sees (``title``,
``aria-label``, ``placeholder``, ``alt``), count; words inside ``<style>``/``<script>``, comments and
translation blocks do not, nor a run of the field's own terms (LAS, PARSEVAL, F…), which no
language changes.

    python -m config.untranslated            # list what is unmarked, one ``file:line: text`` a line; exit 1 if any
    python -m config.untranslated --mark     # wrap each such text in a translate tag, in place

The same listing covers the Python messages meant for users (:func:`unmarked_python`): a literal
string or f-string given to ``messages.*``, to a form's ``ValidationError`` or to one of the
refusals a team reads (``UploadRefused``…), and a literal form ``label``/``help_text``.

``--mark`` is mechanical: each piece of text between two tags or variables becomes one message.
A sentence cut by a variable reads better as one ``blocktranslate``; the piece is marked anyway,
so that nothing stays English, and can be joined by hand later.
"""
from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from django.template.base import DebugLexer, TokenType

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"
#: Attributes whose value a reader sees or hears.
READ_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt"}
#: The field's terms and symbols, the same in every language: a text made only of them needs no translation.
FIELD_TERMS = {
    "LAS", "UAS", "MLAS", "BLEX", "CLAS", "LA", "PARSEVAL", "EVALB", "F", "F1", "P", "R", "EASY", "PASSAGE",
    "CoNLL", "CoNLL-U", "UD", "ALL", "HYP", "EQUAL", "p", "n", "α", "API", "JSON", "CSV", "SVG", "PTB",
    "GR", "GN", "NV", "PV", "GA", "GP", "SUJ-V", "AUX-V", "COD-V", "CPL-V", "MOD-V", "COMP", "ATB-SO",
    "MOD-N", "MOD-A", "MOD-R", "MOD-P", "COORD", "APPOS", "JUXT", "fc", "fp", "cr", "x", "vs", "vs.",
}
_SKIPPED_BLOCKS = {"comment": "endcomment", "verbatim": "endverbatim", "blocktranslate": "endblocktranslate",
                   "blocktrans": "endblocktrans"}
_WORD = re.compile(r"[A-Za-zÀ-ÿ][\w'’.-]*")


@dataclass
class Piece:
    """A run of readable text found in a template: where it is, and its offsets in the source."""
    path: Path
    line: int
    start: int
    end: int
    text: str


def needs_translation(text: str) -> bool:
    words = _WORD.findall(re.sub(r"&\w+;|&#\d+;", " ", text))
    return any(w.strip(".") not in FIELD_TERMS for w in words)


def unmarked_pieces(path: Path, source: str | None = None) -> list[Piece]:
    """The pieces of ``path`` with words outside any translation tag."""
    source = path.read_text(encoding="utf-8") if source is None else source
    pieces: list[Piece] = []
    skip_until = None
    # The HTML state carried across template tokens: a tag may hold variables in its attributes.
    in_tag = in_raw = False
    quote = attr = None
    name_buf = tag_text = ""
    in_code = 0  # inside <code> or <kbd>: names, commands and paths, the same in every language
    for token in DebugLexer(source).tokenize():
        start, end = token.position
        if token.token_type == TokenType.BLOCK:
            word = token.contents.split()[0] if token.contents.split() else ""
            if skip_until:
                if word == skip_until:
                    skip_until = None
            elif word in _SKIPPED_BLOCKS:
                skip_until = _SKIPPED_BLOCKS[word]
            continue
        if token.token_type != TokenType.TEXT or skip_until:
            continue
        text = source[start:end]
        i, seg_start = 0, 0
        while i < len(text):
            c = text[i]
            if in_raw:  # inside <style> or <script>: nothing read until its end tag
                close = re.compile(r"</(style|script)\s*>", re.I).search(text, i)
                if not close:
                    i = len(text)
                    break
                in_raw = False
                i = close.end()
                seg_start = i
                continue
            if quote:  # inside an attribute value
                if c == quote:
                    if attr in READ_ATTRIBUTES:
                        _add(pieces, path, source, start + seg_start, start + i)
                    quote = attr = None
                i += 1
                continue
            if in_tag:
                if c in "\"'":
                    quote, attr = c, name_buf.strip().lower().rstrip("=").strip()
                    seg_start = i + 1
                    name_buf = ""
                elif c == ">":
                    in_tag = False
                    seg_start = i + 1
                    if re.match(r"<(style|script)\b", tag_text, re.I):
                        in_raw = True
                    elif re.match(r"<(code|kbd)\b", tag_text, re.I):
                        in_code += 1
                    elif re.match(r"</(code|kbd)\b", tag_text, re.I):
                        in_code = max(0, in_code - 1)
                elif c.isspace():
                    name_buf = ""
                else:
                    name_buf += c
                    tag_text += c
                i += 1
                continue
            if c == "<" and (text[i + 1:i + 2].isalpha() or text[i + 1:i + 2] in "/!"):
                if not in_code:
                    _add(pieces, path, source, start + seg_start, start + i)
                in_tag, name_buf, tag_text = True, "", "<"
                if text.startswith("<!--", i):
                    close = text.find("-->", i)
                    in_tag = False
                    i = len(text) if close < 0 else close + 3
                    seg_start = i
                    continue
                i += 1
                continue
            i += 1
        if not in_tag and not quote and not in_raw and not in_code:
            _add(pieces, path, source, start + seg_start, start + len(text))
        elif quote and attr in READ_ATTRIBUTES:
            _add(pieces, path, source, start + seg_start, start + len(text))
    return pieces


def _add(pieces: list[Piece], path: Path, source: str, a: int, b: int) -> None:
    text = source[a:b]
    if needs_translation(text):
        core = text.strip()
        a += len(text) - len(text.lstrip())
        pieces.append(Piece(path, source.count("\n", 0, a) + 1, a, a + len(core), core))


PYTHON_PACKAGES = ("campaign", "evaluation", "config")
#: Exceptions whose message a user reads (a page, a message, an API error).
USER_EXCEPTIONS = {"ValidationError", "UploadRefused", "WithdrawalRefused", "SubsetRefused", "TransitionRefused"}
#: Form and model keywords a user reads.
USER_KEYWORDS = {"label", "help_text"}


#: The library's modules whose report texts (``Problem``, ``InputError``) reach a page: the readers and
#: checks every upload and import goes through. Their texts are marked ``N_`` (parseval.annotations.errors).
REPORT_MODULES = ("annotations/", "evaluation/kinds/", "parseval/evaluation/trees/common.py", "parseval/evaluation/ud2easy/",
                  "parseval/evaluation/deps/conll18_reader.py", "parseval/evaluation/deps/udvalidate.py")
REPORT_CALLS = {"Problem", "InputError", "_err", "_warn"}


def python_files() -> list[Path]:
    root = TEMPLATES_DIR.parent
    return sorted(f for package in (*PYTHON_PACKAGES, "annotations") for f in (root / package).rglob("*.py")
                  if "migrations" not in f.parts and "management" not in f.parts and (not _pure(f) or _reports(f)))


def _reports(path: Path) -> bool:
    return path.relative_to(TEMPLATES_DIR.parent).as_posix().startswith(REPORT_MODULES)


def _pure(path: Path) -> bool:
    """The scoring library's modules (no Django there): their texts are marked with ``N_`` instead."""
    rel = path.relative_to(TEMPLATES_DIR.parent).as_posix()
    return rel.startswith(("parseval/evaluation/metrics/", "parseval/evaluation/easy/", "parseval/evaluation/trees/", "parseval/evaluation/deps/",
                           "parseval/evaluation/cli/", "parseval/evaluation/ud2easy/"))


def _literal(node) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)
                                                and bool(_WORD.search(node.value)))


def unmarked_python(path: Path) -> list[Piece]:
    """The messages of ``path`` meant for users and written as bare literals (not through gettext)."""
    source = path.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        args = []
        if name in USER_EXCEPTIONS or (name in REPORT_CALLS and _reports(path)):
            args = node.args[:1]
        elif name in {"success", "error", "info", "warning"} and getattr(getattr(func, "value", None), "id", "") == "messages":
            args = node.args[1:2]
        args += [k.value for k in node.keywords if k.arg in USER_KEYWORDS]
        for arg in args:
            if _literal(arg):
                found.append(Piece(path, arg.lineno, 0, 0, ast.get_source_segment(source, arg) or ""))
    return found


def template_files(root: Path = TEMPLATES_DIR) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in {".html", ".txt"} and "admin" not in p.parts)


def marked(text: str) -> str:
    """``text`` inside the translate tag that keeps it as it is written (lines and quotes)."""
    if "\n" in text or ('"' in text and "'" in text):
        return "{% blocktranslate trimmed %}" + text + "{% endblocktranslate %}"
    q = "'" if '"' in text else '"'
    return "{% translate " + q + text + q + " %}"


def mark(path: Path) -> int:
    source = path.read_text(encoding="utf-8")
    pieces = unmarked_pieces(path, source)
    for p in reversed(pieces):
        source = source[:p.start] + marked(p.text) + source[p.end:]
    if pieces and not re.search(r"{%\s*load\s[^%]*\bi18n\b", source):
        source = _with_load(source)
    path.write_text(source, encoding="utf-8")
    return len(pieces)


def _with_load(source: str) -> str:
    extends = re.match(r"{%\s*extends\s[^%]*%}\n?", source)
    if extends:
        return source[:extends.end()] + "{% load i18n %}\n" + source[extends.end():]
    return "{% load i18n %}" + source


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv if not a.startswith("-")] or template_files()
    if "--mark" in argv:
        for f in files:
            n = mark(f)
            if n:
                print(f"{f}: {n} marked")
        return 0
    found = [p for f in files for p in unmarked_pieces(f)]
    if not any(not a.startswith("-") for a in argv):
        found += [p for f in python_files() for p in unmarked_python(f)]
    for p in found:
        print(f"{p.path}:{p.line}: {p.text}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
