"""Organiser console pages beside the admin. Non-organisers get 404: the
console does not even confirm that a campaign exists."""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST
from django.utils.translation import gettext as _

from campaign import audit, kinds, results, visibility
from campaign.models import Campaign
from campaign.subsets import draw_warning

from . import dashboard as dash
from . import export


def _organised(user, slug: str) -> Campaign:
    return visibility.get_visible_or_404(Campaign, visibility.is_organiser, user, "No such campaign.", slug=slug)


@login_required
def index(request):
    campaigns = Campaign.objects.all() if request.user.is_superuser else Campaign.objects.filter(
        Q(organisers=request.user)
    ).distinct()
    return render(request, "console/index.html", {"campaigns": campaigns.order_by("-created_at")})


@login_required
def dashboard(request, slug: str):
    campaign = _organised(request.user, slug)
    return render(request, "console/dashboard.html", {
        "campaign": campaign,
        "teams": dash.teams_with_members(campaign),
        "run_formats": dash.run_formats(campaign),
        "status_counts": dash.runs_by_status(campaign),
        "queue": dash.scoring_queue(campaign),
        "stuck": dash.stuck_runs(campaign),
        "failed": dash.failed_runs(campaign),
        "stuck_after_minutes": settings.PARSEVAL_STUCK_AFTER_SECONDS // 60,
        "recent": dash.recent_runs(campaign),
        "draw_warning": draw_warning(campaign),
        "admission": dash.admission(campaign),
        "secrecy_budget": results.secrecy_budget(campaign),
        "bundle": results.model("PublicationBundle").objects.filter(campaign=campaign).order_by("-created_at", "-pk")
        .first(),
        "can_build_bundle": visibility.can_see_published_results(request.user, campaign),
        "now": timezone.now(),
    })


@login_required
@require_POST
def build_bundle(request, slug: str):
    """Build the publication bundle again now (a worker does it; the same state gives the same archive)."""
    campaign = _organised(request.user, slug)
    if not visibility.can_see_published_results(request.user, campaign):
        messages.error(request, _("The bundle is built from the published snapshot: publish the campaign first."))
    else:
        audit.record("bundle.request", campaign=campaign, target=campaign.slug, request=request)
        kinds.enqueue(kinds.BUNDLE_TASK, campaign.pk)
        messages.success(request, _("The publication bundle is being built; its link below leads to the newest one."))
    return redirect("console:dashboard", slug=campaign.slug)


@login_required
def export_results(request, slug: str):
    campaign = _organised(request.user, slug)
    audit.record("results.export", campaign=campaign, target=f"campaign {campaign.slug}", request=request)
    response = StreamingHttpResponse(export.csv_lines(campaign), content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-results-{stamp}.csv"'
    return response
