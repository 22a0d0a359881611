"""The analysis explorer's pages (issue 38): thin over :mod:`evaluation.analysis.services`."""
from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render

from evaluation.results.text import for_programs
from evaluation.results.views import _campaign_or_404

from . import services


def explorer(request, slug: str, pk: int):
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/explorer.html",
                  services.explorer_context(request.user, campaign, pk, request.GET.get("by")))


@for_programs()
def document(request, slug: str, pk: int):
    """The run's analysis document (``docs/metrics/analysis.md``), as the page draws it."""
    campaign = _campaign_or_404(request.user, slug)
    ra = services.run_analysis(request.user, campaign, pk)
    if ra.analysis is None:
        raise Http404("No analysis of this run.")
    return JsonResponse(ra.document)


def confusions(request, slug: str, pk: int):
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/confusions.html", services.confusions_context(request.user, campaign, pk))


def errors(request, slug: str, pk: int):
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/errors.html", services.errors_context(request.user, campaign, pk))


# A list of sentences or a sentence view asked for without saying which (its address with the query cut off, as a
# bookmark or a crawler may) goes back to the page it is reached from. The answer depends on the address alone,
# never on the run, so it tells nothing the run's own page would not (docs/threat-model.md).
def sentences(request, slug: str, pk: int):
    if "by" not in request.GET and "table" not in request.GET:
        return redirect("results:analysis", slug, pk)
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/sentences.html",
                  services.sentences_context(request.user, campaign, pk, request.GET))


def sentence(request, slug: str, pk: int):
    if "key" not in request.GET:
        return redirect("results:analysis", slug, pk)
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/sentence.html",
                  services.sentence_context(request.user, campaign, pk, request.GET.get("key", "")))


def compare(request, slug: str, run_a: int, run_b: int):
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/compare.html",
                  services.compare_context(request.user, campaign, run_a, run_b, request.GET.get("by")))


def compare_sentences(request, slug: str, run_a: int, run_b: int):
    if "by" not in request.GET or "bucket" not in request.GET:
        return redirect("results:analysis-compare", slug, run_a, run_b)
    campaign = _campaign_or_404(request.user, slug)
    return render(request, "analysis/compare_sentences.html",
                  services.compare_sentences_context(request.user, campaign, run_a, run_b,
                                                     request.GET.get("by", ""), request.GET.get("bucket", "")))
