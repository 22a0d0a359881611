"""What the figure explanations say of two figures shown side by side that a reader would take for one.

The metric registry (:mod:`parseval.evaluation.metrics`) describes each figure alone. Some pages show two figures
of the same name from two metrics (the dependency kind's LAS and the CoNLL 2018 shared task's LAS F1),
which differ by what they count; a reader who sees 83.0 beside 80.2 needs the difference said where both
are, not in two collapsed descriptions. ``results/_figure_help.html`` asks for the notes of the figures
it explains.
"""
from __future__ import annotations

from django import template
from django.utils.translation import gettext_lazy as _

from evaluation.results.text import percent

register = template.Library()

# (figure codes that must all be on the page, anchor, title, text)
NOTES = (
    (("deps-las", "conll18-las"), "two-las", _("Two LAS figures"), _(
        "LAS (labelled attachment) is the share of the gold words given the right head and the full relation "
        "label, subtypes included (obl:arg is not obl), with punctuation left out (by the campaign's "
        "punctuation rule; by default every word whose UPOS is PUNCT). LAS F1 (CoNLL 2018) is the shared "
        "task's figure: every word counts, punctuation included, and only the universal relation must be right "
        "(obl:arg counts as obl); it is an F1 over the words aligned with the gold by their characters. On the "
        "gold-tokens track every word aligns, so it is the share of all words right; the two figures differ by "
        "punctuation and by relation subtypes. On the raw-text track the runs tokenised and segmented the raw "
        "text themselves: a word the gold does not have, or lacks, costs precision or recall and its "
        "attachments too, so only the CoNLL 2018 figures are given, and those runs are ranked apart.")),
)


@register.simple_tag
def side_by_side_notes(explained) -> list[dict]:
    """The notes whose figures are all among ``explained`` (dicts with a ``code`` or ``layer``)."""
    codes = {item.get("code") or item.get("layer") for item in explained or ()}
    return [{"id": anchor, "title": title, "text": text}
            for needed, anchor, title, text in NOTES if set(needed) <= codes]


@register.filter
def percent_text(value) -> str:
    """A stored fraction written for the reader (``0.926`` → "92.6", "92,6" in French). A published snapshot
    keeps some figures' text as written at publication; a page writes them again from their value."""
    return percent(value)
