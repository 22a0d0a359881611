"""The consensus pages: the organisers' choice of runs and weights, and the treebank's download.

* ``/results/<slug>/consensus/`` (organisers only, 404 for anyone else, as the console): turn the consensus on,
  choose each team's run (or leave the team out), the weighting, and build it now. The service
  (:mod:`evaluation.consensus.runs`) refuses a run that may not be combined.
* ``/results/<slug>/consensus/treebank.zip``: the consensus of the whole corpus in the kind's format, with each
  item's agreement. Organisers at any time; everyone else once the campaign is published (the rule of the
  published results: :func:`campaign.visibility.can_see_published_results`), 404 before, so that nobody
  learns whether a consensus exists.
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from parseval.annotations.errors import InputError
from campaign import kinds, visibility
from campaign.models import Campaign
from campaign.problem_texts import translated

from evaluation.consensus import runs as consensus_runs, tasks as consensus_tasks
from evaluation.models import ConsensusSetting
from evaluation.results.views import _campaign_or_404


def can_download_treebank(user, campaign: Campaign) -> bool:
    return visibility.is_organiser(user, campaign) or visibility.can_see_published_results(user, campaign)


@login_required
def consensus_page(request, slug: str):
    campaign = visibility.get_visible_or_404(Campaign, visibility.is_organiser, request.user, "No such campaign.",
                                             slug=slug)
    kind = kinds.for_campaign(campaign)
    setting = consensus_runs.setting_of(campaign)
    if request.method == "POST":
        choices = {}
        for team_id in {r.team_id for r in consensus_runs.eligible_runs(campaign)}:
            value = request.POST.get(f"team-{team_id}", "")
            choices[team_id] = None if value in ("", "default") else int(value) if value.isdigit() else -1
        try:
            consensus_runs.choose(campaign, choices, weighting=request.POST.get("weighting"), actor=request.user,
                                  request=request, enabled=request.POST.get("enabled") == "on")
        except InputError as exc:
            messages.error(request, translated(str(exc.problems[0].message if exc.problems else exc)))
        else:
            consensus_tasks.request(campaign.pk)
            messages.success(request, _("Saved; the consensus is built again if what it combines changed."))
        return redirect("results:consensus", slug=campaign.slug)
    eligible = consensus_runs.eligible_runs(campaign)
    chosen = {r.pk for r in consensus_runs.chosen_runs(campaign, setting)} if setting.enabled else set()
    teams = {}
    for run in eligible:
        teams.setdefault(run.team_id, {"team": run.team, "runs": [],
                                       "choice": (setting.chosen or {}).get(str(run.team_id))})
        teams[run.team_id]["runs"].append(run)
    return render(request, "results/consensus.html", {
        "campaign": campaign, "setting": setting, "can_combine": kind.consensus_track(campaign) is not None,
        "teams": list(teams.values()), "chosen": chosen, "current": consensus_runs.current(campaign),
        "weightings": ConsensusSetting.Weighting.choices})


def treebank_download(request, slug: str):
    campaign = _campaign_or_404(request.user, slug)
    if not can_download_treebank(request.user, campaign):
        raise Http404("No consensus treebank is published for this campaign.")
    found = consensus_runs.treebank_file(campaign)
    if found is None:
        raise Http404("No consensus treebank for this campaign.")
    run, name = found
    return FileResponse(default_storage.open(name, "rb"), as_attachment=True,
                        filename=f"{campaign.slug}-consensus-treebank.zip", content_type="application/zip")
