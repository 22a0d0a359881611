"""Forms of the governance pages: audit-log filters, life-cycle actions, a team's publication choice."""
from __future__ import annotations

from datetime import datetime, time, timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import CampaignState, Team


class AuditFilterForm(forms.Form):
    action = forms.CharField(required=False, max_length=64, help_text=_("Action, or its prefix (run., campaign.)"))
    actor = forms.CharField(required=False, max_length=150, help_text=_("User name, 'anonymous' (nobody logged in) or 'system' (the platform)"))
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), help_text=_("From this day"))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), help_text=_("To this day, included"))

    def clean(self):
        data = super().clean()
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise forms.ValidationError(_("The start day is after the end day."))
        return data

    def filters(self) -> dict:
        """Keyword arguments of :func:`campaign.audit.entries`; the end day is included."""
        data = self.cleaned_data if self.is_valid() else {}
        tz = timezone.get_current_timezone()
        since = data.get("since")
        until = data.get("until")
        return {
            "action": data.get("action", ""),
            "actor": data.get("actor", ""),
            "since": datetime.combine(since, time.min, tz) if since else None,
            "until": datetime.combine(until + timedelta(days=1), time.min, tz) if until else None,
        }


class TransitionForm(forms.Form):
    to = forms.ChoiceField(choices=CampaignState.choices)


class DrawForm(forms.Form):
    """The organisers' draw of the test set and development sample (a draft campaign only)."""

    ratio = forms.FloatField(min_value=0.0, max_value=1.0, initial=0.5,
                             help_text=_("Share of each genre's annotated sentences in the hidden test set"))
    dev_ratio = forms.FloatField(min_value=0.0, max_value=1.0, initial=0.1, label=_("Development ratio"),
                                 help_text=_("Share in the public development sample"))


class TeamPublicationForm(forms.ModelForm):
    class Meta:
        model = Team
        fields = ["show_name"]
        labels = {"show_name": _("Publish our results under our team's name")}
        help_texts = {"show_name": _("Otherwise the published results show the team under a code (A, B, C...).")}
