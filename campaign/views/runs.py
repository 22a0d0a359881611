"""Uploading a run, its page, its live status, withdrawal and download."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaign import kinds, visibility
from campaign.tracks import accepted_tracks
from campaign.forms import RunUploadForm
from campaign.models import Run, RunStatus
from campaign.rules import UploadRefused, WithdrawalRefused, why_not_accepting_runs
from campaign.services.runs import (
    ACCEPTED, NO_TEAM_MESSAGE, converted_download_name, record_run_download, run_status, upload_limit, upload_run_from,
    validation_report_for, withdraw_run,
)
from campaign.results import latest_result, limited_summary, result_summary
from campaign.throttles import refused_by, upload_throttles

from .campaigns import visible_campaign


def visible_run(request, pk: int) -> Run:
    """The run, or 404 for anyone who may not see it (not even whether it exists)."""
    return visibility.get_visible_or_404(Run.objects.select_related("campaign", "team"), visibility.can_see_run,
                                         request.user, "No such run.", pk=pk)


@login_required
def run_upload(request, slug: str):
    campaign = visible_campaign(request, slug)
    team = visibility.team_of(request.user, campaign)
    if team is None:
        messages.error(request, str(NO_TEAM_MESSAGE))
        return redirect(campaign.get_absolute_url())
    if request.method == "POST" and (refused := refused_by(request, *upload_throttles())):
        return refused
    closed = why_not_accepting_runs(campaign)
    if closed:
        # Say so instead of offering a form whose every upload would be refused.
        return render(request, "portal/upload.html", {"campaign": campaign, "team": team, "closed": closed},
                      status=400 if request.method == "POST" else 200)  # as any refused upload
    form = RunUploadForm(request.POST or None, request.FILES or None, kind=campaign.kind, campaign=campaign,
                         accepted_tracks=accepted_tracks(campaign))
    if request.method == "POST" and form.is_valid():
        try:
            run = upload_run_from(form.cleaned_data, campaign=campaign, team=team, user=request.user, request=request)
        except UploadRefused as exc:
            form.add_error("file", str(exc))
        else:
            messages.success(request, _("Run received. Your receipt: SHA-256 %(sha256)s") % {"sha256": run.sha256})
            return redirect("portal:run", pk=run.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "portal/upload.html",
                  {"campaign": campaign, "team": team, "form": form, "upload_limit": upload_limit(campaign),
                   "run_file_label": kinds.for_campaign(campaign).run_file_label(campaign)},
                  status=status)


def run_detail(request, pk: int):
    run = visible_run(request, pk)
    can_scores = visibility.can_see_own_scores(request.user, run)
    result = latest_result(run) if can_scores else None
    summary = result_summary(result) if result else None
    if summary and run.scope == Run.Scope.TEST and not visibility.is_organiser(request.user, run.campaign):
        summary = limited_summary(summary, run.campaign, run)
    status = run_status(run, request.user)
    context = {
        "run": run,
        "campaign": run.campaign,
        "status": status,
        "report": validation_report_for(run, request.user),
        "can_see_scores": can_scores,
        "scores_withheld": not can_scores and visibility.withdrawn_scores_withheld(run)
                           and status["status"] in (ACCEPTED, RunStatus.SCORED),
        "result": result,
        "summary": summary,
        "result_count": run.results.count() if result else 0,
        "scored_at": result.created_at if result and visibility.can_see_run_scoring_time(request.user, run) else None,
        "diagnostics": run.status == RunStatus.SCORED and visibility.can_see_diagnostics(request.user, run)
                       and kinds.for_campaign(run.campaign).has_diagnostics,
        "can_withdraw": run.withdrawn_at is None and run.campaign.accepts_runs
                        and visibility.is_member(request.user, run.team),
    }
    return render(request, "portal/run.html", context)


def run_status_json(request, pk: int):
    run = visible_run(request, pk)
    return JsonResponse(run_status(run, request.user))


@login_required
@require_POST
def run_withdraw(request, pk: int):
    run = visible_run(request, pk)
    try:
        withdraw_run(run, user=request.user, request=request)
        messages.success(request, _("The run is withdrawn: it no longer counts and will not be published."))
    except WithdrawalRefused as exc:
        messages.error(request, str(exc))
    return redirect("portal:run", pk=run.pk)


def run_file(request, pk: int):
    run = visible_run(request, pk)
    record_run_download(run, user=request.user, request=request)
    return FileResponse(run.file.open("rb"), as_attachment=True, filename=run.original_filename)


def run_converted_file(request, pk: int):
    """The EASY XML a CoNLL-U run was converted to (a zip), for whoever may download the run itself."""
    run = visible_run(request, pk)
    if not run.converted_file:
        raise Http404("This run has no converted EASY XML.")
    return converted_response(run, request)


def converted_response(run, request) -> FileResponse:
    record_run_download(run, user=request.user, request=request, converted=True)
    return FileResponse(run.converted_file.open("rb"), as_attachment=True, filename=converted_download_name(run),
                        content_type="application/zip")
