"""A stored campaign as the adversary of :mod:`evaluation.results.secrecy_budget` meets it, and its budget for the console.

Organisers' side only: the test counts per genre read here are theirs (docs/threat-model.md). The budget is
cached for an hour per campaign, setting, teams and quotas (the search takes up to a few seconds for ``rates``
and ``full`` on a large corpus).
"""
from __future__ import annotations

from django.core.cache import cache
from django.db.models import Count

from campaign.models import Campaign, Sentence

from evaluation.results import secrecy_budget as sb


def scored_sentences_by_genre(campaign: Campaign) -> dict[str, int]:
    """Test sentences per genre code (counted through the reverse relation: no gold model imported here)."""
    rows = (Sentence.objects.filter(document__campaign=campaign, gold_membership__subset="test")
            .values("document__genre__code").annotate(n=Count("pk")).order_by())
    return {row["document__genre__code"]: row["n"] for row in rows}


def campaign_shape(campaign: Campaign) -> sb.Shape:
    words: dict[str, list[int]] = {}
    rows = (Sentence.objects.filter(document__campaign=campaign).exclude(gold_membership__subset="dev")
            .values_list("document__genre__code", "word_count"))
    for genre, count in rows:
        words.setdefault(genre, []).append(count)
    return sb.Shape(words, scored_sentences_by_genre(campaign),
                    layers=sb.LAYERS.get(campaign.kind, sb.EASY_LAYERS),
                    teams=campaign.teams.filter(system=False).count(), runs_per_team=campaign.runs_per_team,
                    min_genre_sentences=campaign.min_genre_sentences,
                    consensus=campaign.teams.filter(system=True).exists(), name=campaign.name)


def campaign_budget(campaign: Campaign) -> sb.Budget | None:
    """The measured budget of the campaign's own setting, or ``None`` before the draw (nothing to decode). The key
    is made of counts (a few cheap queries): the sentences' lengths are read only when one of them changed."""
    test = scored_sentences_by_genre(campaign)
    if not sum(test.values()):
        return None
    teams = campaign.teams.filter(system=False).count()
    sentences = Sentence.objects.filter(document__campaign=campaign).count()
    key = (f"secrecy-budget:{campaign.pk}:{campaign.team_figures}:{teams}:{campaign.runs_per_team}:"
           f"{campaign.min_genre_sentences}:{sorted(test.items())}:{sentences}")
    return cache.get_or_set(key.replace(" ", ""), lambda: sb.budget(campaign_shape(campaign), campaign.team_figures),
                            3600)
