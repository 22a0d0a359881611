"""Home, campaign page, teams, corpus and guide downloads."""
from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ObjectDoesNotExist
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaign import accounts, audit, kinds, visibility
from campaign.subsets import subset_counts
from campaign.tracks import accepted_tracks
from campaign.forms import InvitationForm, RunUploadForm, TeamCreateForm, TeamJoinForm
from campaign.models import Campaign, Invitation
from campaign.services.downloads import corpus_zip_name, iter_corpus_zip
from campaign.services.runs import run_status, upload_limit
from campaign.services.teams import (
    TeamRefused, active_invitations, create_invitation, create_team, join_team, revoke_invitation,
)


def visible_campaign(request, slug: str) -> Campaign:
    return visibility.get_visible_or_404(Campaign, visibility.can_see_campaign, request.user, "No such campaign.",
                                         slug=slug)


def home(request):
    campaigns = [c for c in visibility.visible_campaigns(request.user) if visibility.can_see_campaign(request.user, c)]
    organised = [c for c in campaigns if visibility.is_organiser(request.user, c)]
    for c in organised:  # the error lab damages phrase-structure trees: offered where the kind has them
        c.has_error_lab = kinds.for_campaign(c).has_error_lab
    return render(request, "portal/home.html", {"campaigns": campaigns, "organised": organised})


def current_guide(campaign: Campaign):
    # Through the reverse accessor: team-facing code does not import the annotations models.
    try:
        return campaign.guide.current
    except ObjectDoesNotExist:
        return None


def campaign_detail(request, slug: str):
    campaign = visible_campaign(request, slug)
    team = visibility.team_of(request.user, campaign)
    runs = list(team.runs.order_by("-uploaded_at")) if team else []
    for run in runs:
        run.shown = run_status(run, request.user)
    context = {
        "campaign": campaign,
        "genres": campaign.genres.all(),
        "documents": campaign.documents.select_related("genre"),
        "guide_version": current_guide(campaign),
        "team": team,
        "runs": runs,
        "is_organiser": visibility.is_organiser(request.user, campaign),
        "email_verified": accounts.is_verified(request.user),
        "can_download_corpus": visibility.can_download_corpus(request.user, campaign),
        "corpus_contents": kinds.for_campaign(campaign).corpus_contents,
        # The link only where there is a sample to download: the download answers 404 otherwise.
        "can_download_dev_sample": (visibility.can_download_dev_sample(request.user, campaign)
                                    and subset_counts(campaign)["dev"] > 0),
        "can_download_gold": visibility.can_download_gold(request.user, campaign),
        "can_change_team_settings": bool(team) and visibility.can_change_team_settings(request.user, team),
        "invitations": active_invitations(team) if team else [],
        "invitation_form": InvitationForm(),
        "team_form": TeamCreateForm(),
        "join_form": TeamJoinForm(),
        "upload_form": RunUploadForm(kind=campaign.kind, accepted_tracks=accepted_tracks(campaign)),
        "upload_limit": upload_limit(campaign),
    }
    return render(request, "portal/campaign.html", context)


@login_required
@require_POST
def team_create(request, slug: str):
    campaign = visible_campaign(request, slug)
    form = TeamCreateForm(request.POST)
    if form.is_valid():
        try:
            team = create_team(campaign, request.user, request=request, **form.cleaned_data)
            messages.success(request, (_("Team %(name)s created; you are its leader.") if team.admitted else
                                       _("Team %(name)s created; you are its leader. It awaits the organisers' "
                                         "approval.")) % {"name": team.name})
        except TeamRefused as exc:
            messages.error(request, str(exc))
    else:
        messages.error(request, _("Give the team a name."))
    return redirect(campaign.get_absolute_url())


@login_required
@require_POST
def team_join(request, slug: str):
    campaign = visible_campaign(request, slug)
    form = TeamJoinForm(request.POST)
    if form.is_valid():
        try:
            team = join_team(campaign, request.user, code=form.cleaned_data["code"], request=request)
            messages.success(request, _("You joined team %(name)s.") % {"name": team.name})
        except TeamRefused as exc:
            messages.error(request, str(exc))
    else:
        messages.error(request, _("Paste the invitation code a member of the team gave you."))
    return redirect(campaign.get_absolute_url())


@login_required
@require_POST
def invitation_create(request, slug: str):
    campaign = visible_campaign(request, slug)
    team = visibility.team_of(request.user, campaign)
    form = InvitationForm(request.POST)
    if team is None:
        messages.error(request, _("Join or create a team of this campaign first."))
    elif form.is_valid():
        try:
            invitation = create_invitation(team, request.user, days=form.cleaned_data["days"],
                                           max_uses=form.cleaned_data["max_uses"], request=request)
            messages.success(request, _("New invitation code: %(code)s") % {"code": invitation.token})
        except TeamRefused as exc:
            messages.error(request, str(exc))
    else:
        messages.error(request, _("An invitation is valid from 1 to 30 days, for at least one use."))
    return redirect(campaign.get_absolute_url())


@login_required
@require_POST
def invitation_revoke(request, slug: str, pk: int):
    campaign = visible_campaign(request, slug)
    team = visibility.team_of(request.user, campaign)
    invitation = Invitation.objects.filter(pk=pk, team=team).select_related("team__campaign").first() if team else None
    if invitation is None:
        raise Http404("No such invitation.")
    revoke_invitation(invitation, request.user, request=request)
    messages.success(request, _("The invitation is revoked: its code no longer lets anyone join."))
    return redirect(campaign.get_absolute_url())


def corpus_download(request, slug: str):
    campaign = visible_campaign(request, slug)
    if not visibility.can_download_corpus(request.user, campaign):
        if not request.user.is_authenticated:
            return redirect(f"/accounts/login/?next={request.path}")
        raise Http404("The corpus is available to registered teams.")
    audit.record("corpus.download", campaign=campaign, target=campaign.slug, request=request)
    response = StreamingHttpResponse(iter_corpus_zip(campaign), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{corpus_zip_name(campaign)}"'
    return response


def guide_download(request, slug: str):
    campaign = visible_campaign(request, slug)
    version = current_guide(campaign)
    if version is None or not version.document:
        raise Http404("No guide document has been published for this campaign.")
    name = version.document.name.rsplit("/", 1)[-1]
    return FileResponse(version.document.open("rb"), as_attachment=True, filename=name)
