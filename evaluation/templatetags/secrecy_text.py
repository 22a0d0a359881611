"""The measured secrecy budget said in the reader's language.

:class:`evaluation.results.secrecy_budget.Budget` is metric code and stays free of Django: it holds the
counts. What a page says of them is written here, where the catalogue is, with the plurals each
language needs and the numbers grouped as the language groups them.
"""
from __future__ import annotations

from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext as _, ngettext

register = template.Library()


def _number(n: int) -> str:
    return number_format(n, force_grouping=True)


def _teams(n: int) -> str:
    return ngettext("the %(n)s admitted team", "the %(n)s admitted teams", n) % {"n": n}


def _bits(n: int) -> str:
    return ngettext("%(n)s bit", "%(n)s bits", n) % {"n": n}


@register.filter
def budget_sentence(budget) -> str:
    """How many non-development sentences the admitted teams could decode under the setting, or why the
    setting shows nothing (a gated setting over the limit: what it would have allowed)."""
    if budget.withheld is not None:
        w = budget.withheld
        return _("no figure before the gold release: one figure per layer of each team's primary run would let "
                 "%(teams)s decode up to %(decodable)s of the %(non_dev)s non-development sentences (%(bits)s per "
                 "disclosed run), above 1 bit per run or 1 %%, so it is withheld; 0 can be decoded") % {
            "teams": _teams(w.teams), "decodable": _number(w.decodable), "non_dev": _number(w.non_dev),
            "bits": _bits(w.bits_per_run)}
    runs = ngettext("%(n)s disclosed run", "%(n)s disclosed runs", budget.runs_per_team) % {
        "n": budget.runs_per_team}
    return _("at most %(decodable)s of the %(non_dev)s non-development sentences can be decoded by %(teams)s under "
             "these quotas (%(bits)s per disclosed run, %(runs)s per team)") % {
        "decodable": _number(budget.decodable), "non_dev": _number(budget.non_dev), "teams": _teams(budget.teams),
        "bits": _bits(budget.bits_per_run), "runs": runs}
