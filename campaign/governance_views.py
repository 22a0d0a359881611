"""Governance pages: the organisers' life-cycle actions, the development-sample download,
a team's publication choice, and per-sentence diagnostics.

Every decision comes from :mod:`campaign.visibility`; the work is done by the
services (:mod:`campaign.lifecycle`, :mod:`campaign.subsets`) and
the campaign's kind (its ``diagnostics_page``). The development sample and the diagnostics read
gold: they are served only where the visibility table allows it.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _, gettext_lazy

from parseval.annotations.errors import InputError

from . import audit, kinds, lifecycle, results, visibility
from .audit_views import organised_campaign
from .governance_forms import DrawForm, TeamPublicationForm, TransitionForm
from .models import Campaign, CampaignState, Run, Team
from .problem_texts import translated
from .subsets import SubsetRefused, dev_sample_zip, draw_warning, released_gold_zip, sample_test_subset, subset_counts

# What each state change did, as a sentence ("The campaign is now results released to teams" does not read).
STATE_CHANGED = {
    CampaignState.DRAFT: gettext_lazy("The campaign is back in draft."),
    CampaignState.OPEN: gettext_lazy("The campaign is open: teams may upload runs."),
    CampaignState.CLOSED: gettext_lazy("The campaign is closed: no more uploads."),
    CampaignState.SCORED: gettext_lazy("The campaign is scored."),
    CampaignState.RELEASED: gettext_lazy("The results are released to the teams."),
    CampaignState.PUBLISHED: gettext_lazy("The results are published."),
    CampaignState.GOLD_RELEASED: gettext_lazy("The gold annotation is released."),
    CampaignState.ARCHIVED: gettext_lazy("The campaign is archived."),
}
SCHEDULE_FIELDS = ["opens_at", "deadline", "results_release_at", "publish_at", "gold_release_at", "archive_at"]


@login_required
def campaign_state(request, slug: str):
    campaign = organised_campaign(request, slug)
    if request.method == "POST" and "ratio" in request.POST:
        return _draw(request, campaign)
    form = TransitionForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                lifecycle.transition(campaign, form.cleaned_data["to"], actor=request.user, request=request)
            except (lifecycle.TransitionRefused, PermissionDenied) as refused:
                messages.error(request, str(refused))
            else:
                messages.success(request, STATE_CHANGED[CampaignState(campaign.state)])
                return redirect("governance:state", slug=campaign.slug)
        else:
            messages.error(request, _("Choose a state."))
    context = {
        "campaign": campaign,
        "targets": [(s, CampaignState(s).label) for s in lifecycle.allowed_targets(campaign)],
        "schedule": [(campaign._meta.get_field(f).verbose_name, getattr(campaign, f)) for f in SCHEDULE_FIELDS],
        "due": lifecycle.due_transitions(campaign),
        "subsets": subset_counts(campaign),
        "draw_warning": draw_warning(campaign),
        "secrecy_budget": results.secrecy_budget(campaign),
        "draw_form": DrawForm() if campaign.state == CampaignState.DRAFT else None,
        "history": audit.entries(campaign, action=audit.TRANSITION)[:50],
    }
    return render(request, "governance/state.html", context, status=400 if request.method == "POST" else 200)


def _draw(request, campaign: Campaign):
    """Draw the subsets under a fresh secret key (campaign.subsets.sample_test_subset), from the state page."""
    form = DrawForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give the test and development ratios, between 0 and 1."))
    else:
        try:
            summary = sample_test_subset(campaign, ratio=form.cleaned_data["ratio"],
                                         dev_ratio=form.cleaned_data["dev_ratio"], actor=request.user,
                                         request=request)
        except SubsetRefused as refused:
            messages.error(request, str(refused))
        else:
            totals = summary.totals
            messages.success(request, _("Drawn under a new secret key (fingerprint %(key)s): test %(test)s, "
                                        "development %(dev)s, unused %(unused)s.") % {
                "key": summary.key_fingerprint, "test": totals["test"], "dev": totals["dev"],
                "unused": totals["unused"]})
    return redirect("governance:state", slug=campaign.slug)


def dev_sample_download(request, slug: str):
    campaign = get_object_or_404(Campaign, slug=slug)
    if not (visibility.can_see_campaign(request.user, campaign)
            and visibility.can_download_dev_sample(request.user, campaign)):
        raise Http404("No development sample available to you.")
    if not subset_counts(campaign)["dev"]:
        raise Http404("This campaign has no development sample.")
    try:
        data = dev_sample_zip(campaign)
    except InputError as exc:
        return HttpResponse(_("The development sample cannot be built: %(why)s") % {"why": translated(str(exc))}, status=409,
                            content_type="text/plain; charset=utf-8")
    audit.record(audit.DEV_SAMPLE_DOWNLOAD, campaign=campaign, target=campaign.slug, request=request)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-dev-sample.zip"'
    return response


def gold_download(request, slug: str):
    """The released gold (test set and development sample, with the subset of each sentence): organisers
    at any time, everyone once the gold is released. Every download is audited."""
    campaign = get_object_or_404(Campaign, slug=slug)
    if not (visibility.can_see_campaign(request.user, campaign) and visibility.can_download_gold(request.user, campaign)):
        raise Http404("The gold is not released.")
    try:
        data = released_gold_zip(campaign)
    except InputError as exc:
        return HttpResponse(_("The gold archive cannot be built: %(why)s") % {"why": translated(str(exc))}, status=409,
                            content_type="text/plain; charset=utf-8")
    audit.record(audit.GOLD_DOWNLOAD, campaign=campaign, target=campaign.slug,
                 details={"released": visibility.gold_is_released(campaign)}, request=request)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-gold.zip"'
    return response


@login_required
def team_publication(request, pk: int):
    team = get_object_or_404(Team.objects.select_related("campaign"), pk=pk)
    if not visibility.can_change_team_settings(request.user, team):
        raise Http404("No such team.")
    published = visibility.state_at_least(team.campaign, CampaignState.PUBLISHED)
    form = TeamPublicationForm(request.POST or None, instance=team)
    if request.method == "POST":
        if published:
            messages.error(request, _("The results are already published; the snapshot cannot change. "
                                    "Ask the organisers."))
        elif form.is_valid():
            form.save()
            audit.record(audit.TEAM_SETTINGS, campaign=team.campaign, target=f"team {team.pk}",
                         details={"show_name": team.show_name}, request=request)
            messages.success(request, _("Your choice is saved."))
            return redirect("governance:team_publication", pk=team.pk)
    return render(request, "governance/team_publication.html", {
        "team": team, "campaign": team.campaign, "form": form, "published": published,
        "label": visibility.public_team_label(team),
    })


@login_required
def run_diagnostics(request, pk: int):
    run = get_object_or_404(Run.objects.select_related("campaign", "team"), pk=pk)
    if not visibility.can_see_diagnostics(request.user, run):
        raise Http404("No diagnostics available to you.")
    return kinds.for_campaign(run.campaign).diagnostics_page(request, run)
