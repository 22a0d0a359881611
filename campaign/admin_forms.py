"""Forms of the campaign admin: the scoring options (a JSON field) checked by the campaign's kind."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from . import kinds
from .models import Campaign



def metrics_help() -> str:
    """The scoring options field's help: each registered kind's own (:attr:`Kind.options_help`)."""
    return " ".join(["A JSON object; {} for the defaults.",
                     *(k.options_help for k in kinds.registered().values() if k.options_help), "Checked when saved."])


def check_metrics(kind: str, metrics) -> None:
    """Raise ``forms.ValidationError`` unless ``metrics`` are scoring options the kind can use."""
    if not isinstance(metrics, dict):
        raise forms.ValidationError(_("Write a JSON object, e.g. {} for the defaults."))
    campaign_kind = kinds.get(kind)
    known = campaign_kind.option_keys
    unknown = sorted(set(metrics) - set(known))
    if unknown:
        raise forms.ValidationError(_("Unknown option(s) %(unknown)s for a %(kind)s campaign; known: %(known)s.") % {
            "unknown": ", ".join(unknown), "kind": kind, "known": ", ".join(known)})
    try:
        campaign_kind.check_options(metrics)
        campaign_kind.parameters(Campaign(kind=kind, metrics=metrics))
    except (ValueError, TypeError) as exc:
        raise forms.ValidationError(str(exc)) from None


class CampaignAdminForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "metrics" in self.fields:
            self.fields["metrics"].help_text = metrics_help()
        if "organisers" in self.fields:
            # organisers work in the admin, so they are staff; others could not reach the campaign
            self.fields["organisers"].queryset = get_user_model().objects.filter(is_staff=True, is_active=True)
            self.fields["organisers"].help_text = "Staff users only. You stay an organiser of a campaign you create."

    def clean(self):
        data = super().clean()
        if "metrics" in data and not self.has_error("metrics"):
            try:
                check_metrics(data.get("kind") or self.instance.kind or Campaign._meta.get_field("kind").get_default(),
                              data["metrics"] or {})
            except forms.ValidationError as exc:
                self.add_error("metrics", exc)
        return data


class CorpusImportForm(forms.Form):
    archive = forms.FileField(label=_("Gold documents"), help_text=_("A .zip or .tar.gz of gold files, or one gold file."))
    subset = forms.ChoiceField(choices=[("test", "test"), ("dev", "dev"), ("unused", "unused")], initial="test",
                               help_text=_("The subset every imported sentence joins."))
    genres = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}),
                             help_text=_("Tree and dependency campaigns: one DOCUMENT=GENRE a line (default: the "
                                       "name's prefix). EASY genres come from the file names."))

    def clean_genres(self) -> dict:
        genres = {}
        for n, line in enumerate(self.cleaned_data["genres"].splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            document, sep, code = line.partition("=")
            if not sep or not document.strip() or not code.strip():
                raise forms.ValidationError(_("line %(n)s: write DOCUMENT=GENRE, not %(line)r") % {"n": n, "line": line})
            genres[document.strip()] = code.strip()
        return genres
