"""Forms of the team portal. Checks that need the database live in services."""
from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from campaign.models import Run


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; for messages about the campaign.")

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=200)
    affiliation = forms.CharField(max_length=200, required=False)


class TeamJoinForm(forms.Form):
    code = forms.CharField(label="Invitation code", max_length=500,
                           help_text="Ask a member of the team: it is shown on their campaign page.")


class RunUploadForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="A short name for this run, e.g. the system and its setting.")
    system_description = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False,
                                         help_text="What the system is and how it was run.")
    scope = forms.ChoiceField(choices=Run.Scope.choices, initial=Run.Scope.TEST,
                              help_text="A development-sample check is scored at once on the public sample.")
    file = forms.FileField(help_text="One EASY .xml file, or a .zip or .tar.gz with one .xml file per corpus document.")

    FILE_HELP = {
        "constituency": "One tree file (.mrg, .tree or .txt; Penn or square brackets, one tree per corpus sentence, "
                        "in order), or a .zip or .tar.gz with one such file per corpus document, named after it.",
        "dependency": "One CoNLL-U file (.conllu; one sentence per corpus sentence, in order), or a .zip or "
                      ".tar.gz with one .conllu file per corpus document, named after it.",
    }

    def __init__(self, *args, kind: str = "easy", **kwargs):
        super().__init__(*args, **kwargs)
        if kind in self.FILE_HELP:
            self.fields["file"].help_text = self.FILE_HELP[kind]
