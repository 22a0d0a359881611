"""Forms of the team portal. Checks that need the database live in services."""
from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from campaign import kinds, tracks
from campaign.models import Invitation, Run
from campaign.problem_texts import translated


class SignUpForm(UserCreationForm):
    """The account asked for. Whether its address already has one is not checked here: the form would
    tell anyone which addresses have an account. :mod:`campaign.account_tasks` checks it, and writes to
    the address (one account per address: a confirmed address is what e-mail admission counts)."""

    email = forms.EmailField(help_text=_("We send a link to confirm it; campaigns may ask for a confirmed address, "
                                       "and a forgotten password is reset through it."))

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=200)
    affiliation = forms.CharField(max_length=200, required=False)


class TeamJoinForm(forms.Form):
    code = forms.CharField(label=_("Invitation code"), max_length=100,
                           help_text=_("Ask a member of the team: they make one on their campaign page."))


class InvitationForm(forms.Form):
    days = forms.IntegerField(label=_("Valid for (days)"), min_value=1, max_value=Invitation.MAX_DAYS,
                              initial=Invitation.DEFAULT_DAYS)
    max_uses = forms.IntegerField(label=_("Uses"), min_value=1, max_value=100, required=False,
                                  help_text=_("How many people may join with it; empty for no limit."))


class RunUploadForm(forms.Form):
    name = forms.CharField(max_length=100, help_text=_("A short name for this run, e.g. the system and its setting."))
    system_description = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False,
                                         help_text=_("What the system is and how it was run."))
    scope = forms.ChoiceField(choices=Run.Scope.choices, initial=Run.Scope.TEST,
                              help_text=_("A development-sample check is scored at once on the public sample."))
    track = forms.ChoiceField(choices=tracks.choices, required=False,
                              help_text=_("Gold tokens: one sentence per corpus sentence, on the corpus's words. "
                                        "Raw text: your parser's own tokenisation and sentence segmentation of the "
                                        "raw text, aligned with the gold by characters (CoNLL 2018)."))
    file = forms.FileField(help_text=_("One EASY .xml file, or a .zip or .tar.gz with one .xml file per corpus document."))

    def __init__(self, *args, kind: str = "easy", campaign=None, accepted_tracks: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        campaign_kind = kinds.get(kind)
        # where the campaign's options change it
        # the kind's text, written in English by the scoring side, in the page's language
        self.fields["file"].help_text = translated(campaign_kind.file_help_for(campaign) if campaign
                                                   else campaign_kind.file_help)
        if accepted_tracks:
            self.fields["track"].choices = [(t, tracks.track_label(t)) for t in accepted_tracks]
            self.fields["track"].initial = accepted_tracks[0]
            self.fields["track"].required = True
            self.fields["track"].error_messages["invalid_choice"] = (
                "This campaign does not accept runs in the track %(value)s; it accepts "
                + ", ".join(repr(t) for t in accepted_tracks) + ".")
        else:
            del self.fields["track"]
