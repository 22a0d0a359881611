"""Forms of the team portal. Checks that need the database live in services."""
from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from campaign import kinds
from campaign.models import Invitation, Run


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; for messages about the campaign.")

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=200)
    affiliation = forms.CharField(max_length=200, required=False)


class TeamJoinForm(forms.Form):
    code = forms.CharField(label="Invitation code", max_length=100,
                           help_text="Ask a member of the team: they make one on their campaign page.")


class InvitationForm(forms.Form):
    days = forms.IntegerField(label="Valid for (days)", min_value=1, max_value=Invitation.MAX_DAYS,
                              initial=Invitation.DEFAULT_DAYS)
    max_uses = forms.IntegerField(label="Uses", min_value=1, max_value=100, required=False,
                                  help_text="How many people may join with it; empty for no limit.")


class RunUploadForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="A short name for this run, e.g. the system and its setting.")
    system_description = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False,
                                         help_text="What the system is and how it was run.")
    scope = forms.ChoiceField(choices=Run.Scope.choices, initial=Run.Scope.TEST,
                              help_text="A development-sample check is scored at once on the public sample.")
    file = forms.FileField(help_text="One EASY .xml file, or a .zip or .tar.gz with one .xml file per corpus document.")

    def __init__(self, *args, kind: str = "easy", campaign=None, **kwargs):
        super().__init__(*args, **kwargs)
        campaign_kind = kinds.get(kind)
        help_for = getattr(campaign_kind, "file_help_for", None)  # where the campaign's options change it
        self.fields["file"].help_text = help_for(campaign) if help_for and campaign else campaign_kind.file_help
