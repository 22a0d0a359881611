"""Nothing meant for users goes untranslated: every text is marked, and the French catalogue answers each mark.

The marks are found the way makemessages finds them (Django's templatize for templates, then a Python
extractor), here with Babel, so that the check needs no gettext tools on the machine.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

from babel.messages.extract import extract
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from django.utils.translation.template import templatize

from config import untranslated

REPO = Path(__file__).resolve().parents[1]
CATALOGUE = REPO / "locale" / "fr" / "LC_MESSAGES" / "django.po"
KEYWORDS = {"_": None, "gettext": None, "gettext_lazy": None, "gettext_noop": None, "N_": None,
            "pgettext": ((1, "c"), 2), "pgettext_lazy": ((1, "c"), 2),
            "ngettext": (1, 2), "ngettext_lazy": (1, 2), "npgettext": ((1, "c"), 2, 3)}
PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]|%%|\{\w*\}")


def marked_messages() -> set[tuple[str | None, str]]:
    """``(context, msgid)`` of every message marked in the templates and the Python code."""
    found = set()
    # templatize keeps each template's layout (as X's) so that line numbers hold; Python's tokenizer wants none
    sources = [(f, "\n".join(line.strip() for line in templatize(f.read_text(encoding="utf-8"), origin=str(f))
                              .splitlines())) for f in untranslated.template_files()]
    for package in ("annotations", "campaign", "config", "evaluation"):
        sources += [(f, f.read_text(encoding="utf-8")) for f in (REPO / package).rglob("*.py")
                    if "migrations" not in f.parts]
    for path, code in sources:
        for _line, msgid, _comments, context in extract("python", io.BytesIO(code.encode("utf-8")),
                                                        keywords=KEYWORDS):
            for one in (msgid if isinstance(msgid, tuple) else (msgid,)):
                if one:
                    found.add((context, one))
    return found


def catalogue():
    with CATALOGUE.open("rb") as f:
        return read_po(f)


def test_no_template_text_nor_python_message_for_users_is_left_unmarked():
    left = [f"{p.path.relative_to(REPO)}:{p.line}: {p.text}" for f in untranslated.template_files()
            for p in untranslated.unmarked_pieces(f)]
    left += [f"{p.path.relative_to(REPO)}:{p.line}: {p.text}" for f in untranslated.python_files()
             for p in untranslated.unmarked_python(f)]
    assert left == [], "unmarked (python -m config.untranslated --mark marks the templates' ones):\n" + "\n".join(left)


def test_the_finder_sees_text_where_a_reader_does_and_nowhere_else(tmp_path):
    page = tmp_path / "page.html"
    page.write_text('{% load i18n %}<h1>Results</h1><p title="what this means">{{ x }} LAS</p>'
                    '<style>.a { color: red }</style>{% comment %}Not shown{% endcomment %}'
                    '{% translate "Marked" %}<a href="/x" class="link">F</a>'
                    '<span data-run="{{ r }}">of {{ n }} runs</span>', encoding="utf-8")
    assert [p.text for p in untranslated.unmarked_pieces(page)] == ["Results", "what this means", "of", "runs"]
    untranslated.mark(page)
    assert untranslated.unmarked_pieces(page) == []
    assert '<h1>{% translate "Results" %}</h1>' in page.read_text(encoding="utf-8")
    code = tmp_path / "views.py"
    code.write_text('messages.error(request, "Give the team a name.")\nmessages.info(request, _("Fine."))\n'
                    'raise UploadRefused(f"{name!r} is too big")\n', encoding="utf-8")
    assert [p.line for p in untranslated.unmarked_python(code)] == [1, 3]


def test_the_french_catalogue_translates_every_marked_message_with_nothing_fuzzy():
    cat = catalogue()
    entries = {(m.context, m.id): m for m in cat if m.id}
    # a plural entry answers both of its forms
    known = {(m.context, one) for m in cat if m.id for one in (m.id if isinstance(m.id, tuple) else (m.id,))}
    missing = sorted(msgid for msgid in marked_messages() if msgid not in known)
    assert missing == [], f"not in locale/fr (python manage.py makemessages -l fr): {missing[:20]}"
    fuzzy = [m.id for m in entries.values() if m.fuzzy]
    untranslated_ids = [m.id for m in entries.values() if not (m.string if isinstance(m.string, str) else all(m.string))]
    assert fuzzy == [] and untranslated_ids == [], (fuzzy[:10], untranslated_ids[:10])
    for m in entries.values():
        english = m.id if isinstance(m.id, tuple) else (m.id,)
        for french in (m.string if isinstance(m.string, tuple) else (m.string,)):
            assert set(PLACEHOLDER.findall(english[-1])) == set(PLACEHOLDER.findall(french)), m.id
    assert not cat.fuzzy and str(cat.locale) == "fr"


def _plain(value):
    """A message's id or text as one comparable value (the .mo reader gives a plural's forms as a list)."""
    return tuple(value) if isinstance(value, (list, tuple)) else value


def _key(m):
    context = m.context.decode() if isinstance(m.context, bytes) else m.context
    return context, _plain(m.id)


def test_the_compiled_catalogue_is_the_one_of_the_text():
    compiled = REPO / "locale" / "fr" / "LC_MESSAGES" / "django.mo"
    assert compiled.is_file(), "make messages compiles locale/fr/LC_MESSAGES/django.mo"
    with compiled.open("rb") as f:
        mo = {_key(m): _plain(m.string) for m in read_mo(f) if m.id}
    po = {_key(m): _plain(m.string) for m in catalogue() if m.id and not m.fuzzy}
    assert mo == po, "django.mo is stale: make messages"
