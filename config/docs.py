"""The project's documentation (docs/*.md), served by the app so a web visitor can follow it.

The Markdown files stay the single source: the repository shows them as they are, and these
views render them with markdown-it-py (CommonMark plus tables, raw HTML off). A page's URL ends
in its file name (``/docs/metrics/easy.md``), so the files' relative links between each other
work unchanged. Only ``.md`` files under docs/ are served; anything else is the site's uniform 404.

A page a user reads may have a French version in ``docs/fr/`` under the same name: it is served at the
same URL when the page's language is French, so that the links between pages still hold and lead to
the French version wherever there is one; a page with none is served in English with a line that says
so (docs/languages.md).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import get_language
from markdown_it import MarkdownIt

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
_renderer = MarkdownIt("commonmark", {"html": False}).enable("table")


def doc_files() -> list[Path]:
    return sorted(DOCS_DIR.rglob("*.md"))


@lru_cache(maxsize=64)
def _rendered(path: Path, mtime: float) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    heading = re.search(r"^#\s+(.+)$", text, re.M)
    return (heading.group(1).strip() if heading else path.stem), _renderer.render(text)


def title_of(path: Path) -> str:
    return _rendered(path, path.stat().st_mtime)[0]


def index(request):
    pages = [{"name": p.relative_to(DOCS_DIR).as_posix(), "title": title_of(p)} for p in doc_files()]
    return render(request, "docs/index.html", {"pages": pages})


#: The languages with a folder of their own under docs/ (English is docs/ itself).
TRANSLATED = ("fr",)


def page(request, name: str):
    path = (DOCS_DIR / name).resolve()
    if path.suffix != ".md" or not path.is_relative_to(DOCS_DIR.resolve()) or not path.is_file():
        raise Http404
    language = (get_language() or "en").split("-")[0]
    english_only = False
    if language in TRANSLATED and not name.startswith(f"{language}/"):
        translated = (DOCS_DIR / language / name).resolve()
        if translated.is_relative_to(DOCS_DIR.resolve()) and translated.is_file():
            path, name = translated, f"{language}/{name}"
        else:
            english_only = True
    title, html = _rendered(path, path.stat().st_mtime)
    return render(request, "docs/page.html", {"title": title, "html": html, "name": name,
                                              "english_only": english_only})
