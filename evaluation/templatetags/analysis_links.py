"""The link from a run's results page to its analysis explorer (issue 38), for whoever may read the analysis
(:func:`evaluation.analysis.access.may_see_analysis`); nothing for anyone else."""
from __future__ import annotations

from django import template
from django.urls import reverse

from evaluation.analysis.access import may_see_analysis

register = template.Library()


@register.simple_tag(takes_context=True)
def analysis_url(context, run) -> str:
    request = context.get("request")
    if request is None or run is None or not may_see_analysis(request.user, run):
        return ""
    return reverse("results:analysis", args=[run.campaign.slug, run.pk])
