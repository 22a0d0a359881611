"""Organiser pages of the lab (namespace ``lab``): the error-insertion lab and the leaf-ancestor
word view. Every permission decision comes from :mod:`campaign.visibility`; anyone not allowed
gets a 404, as for the other organiser pages."""
from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from campaign import audit, kinds, visibility
from campaign.models import Campaign, Run
from evaluation.results import charts
from evaluation.models import ErrorLabJob
from evaluation.results.text import for_programs

from . import services
from .forms import ErrorLabForm
from .word_view import SENTENCES_PER_PAGE, leaf_ancestor_sentences


def _organised(request, slug: str) -> Campaign:
    return visibility.get_visible_or_404(Campaign, visibility.can_manage_campaign, request.user, "No such campaign.",
                                         slug=slug)


def _job(request, campaign) -> ErrorLabJob | None:
    value = request.GET.get("job", "")
    if not value.isdigit():
        return None
    job = ErrorLabJob.objects.filter(campaign=campaign, pk=int(value)).first()
    if job is None:
        raise Http404("No such error-lab job.")
    return job


def error_lab(request, slug: str):
    campaign = _organised(request, slug)
    form = ErrorLabForm(request.POST or None, request.FILES or None,
                        initial=None if request.method == "POST" else {"preset": services.default_preset(campaign)})
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                job = services.create_job(campaign, user=request.user, treebank_a=data["treebank_a"],
                                          treebank_b=data.get("treebank_b"), labels_file=data.get("labels_file"),
                                          preset=data["preset"], seed=data["seed"], per_type=data["per_type"],
                                          request=request)
            except services.LabRefused as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, _("The error-lab job is stored and queued; this page follows it."))
                return redirect(f"{reverse('lab:error_lab', kwargs={'slug': campaign.slug})}?job={job.pk}")
    job = _job(request, campaign)
    context = {"campaign": campaign, "form": form, "job": job,
               "jobs": ErrorLabJob.objects.filter(campaign=campaign).select_related("created_by")[:20]}
    if job is not None:
        audit.record(services.AUDIT_VIEW, campaign=campaign, target=f"error-lab job {job.pk}", request=request)
        if job.result:
            context["table"] = services.comparison_table(job.result)
            types, per_figure = services.chart_series(job.result)
            # one chart per measure: evalb F, leaf-ancestor and LAS never share an axis
            context["charts"] = [charts.line_chart(
                types, [charts.Series(name, [charts.Point(v) for v in values]) for name, values in series],
                title=_("%(figure)s of the damaged sentences, per error type") % {"figure": label},
                x_label=_("Error type"),
                y_label=f"{label} (%)", measure=label,
                desc=_("One series per treebank; a gap is a type that found no place."))
                for label, series in per_figure]
    status = 400 if request.method == "POST" else 200
    return render(request, "lab/error_lab.html", context, status=status)


@for_programs()
def error_lab_status(request, slug: str):
    campaign = _organised(request, slug)
    job = _job(request, campaign)
    if job is None:
        raise Http404("No such error-lab job.")
    return JsonResponse(services.job_status(job))


def leaf_ancestor(request, pk: int):
    run = get_object_or_404(Run.objects.select_related("campaign", "team"), pk=pk)
    if not (visibility.can_see_campaign(request.user, run.campaign) and visibility.can_see_diagnostics(request.user, run)):
        raise Http404("No word-by-word view available to you.")
    if not kinds.for_campaign(run.campaign).has_word_view:
        raise Http404("The word-by-word view is for constituency campaigns.")
    sentences, note = leaf_ancestor_sentences(run)
    page = Paginator(sentences, SENTENCES_PER_PAGE).get_page(request.GET.get("page"))
    if visibility.is_organiser(request.user, run.campaign):
        audit.record(audit.DIAGNOSTICS_VIEW, campaign=run.campaign, target=f"run {run.pk}",
                     details={"view": "leaf-ancestor", "page": page.number}, request=request)
    return render(request, "lab/leaf_ancestor.html", {"run": run, "campaign": run.campaign, "page": page,
                                                       "note": note})
