"""Forms of the campaign admin: the scoring options (a JSON field) checked by the campaign's kind."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from . import kinds
from .models import Campaign, CampaignKind

METRICS_HELP = (
    'A JSON object; {} for the defaults. EASY: {"matches": ["EQUAL", "FUZZY", ...], "modes": ["HYP", "DEFHYP", '
    '"REF"], "bootstrap": 1000, "seed": 12345, "run_formats": ["easy-xml", "conllu"], "ud_validation": 2} (run_formats: '
    'the run files taken, EASY XML only by default; with "conllu", CoNLL-U runs are converted on validation, and '
    'checked by the UD validator at the ud_validation level if set). Constituency: {"tree_metrics": ["evalb", "evalb-unlabelled", "leaf-ancestor"], '
    '"dependency_via_head_rules": true, "head_rules": "penn", "transform": "strip-functions"}. '
    'Dependency: {"punct": "upos", "pos": "upos", "tracks": ["gold-tokens", "raw-text"], "ud_validation": 2} (tracks: '
    'which runs the campaign accepts, default ["gold-tokens"]; ud_validation: runs must also pass the UD validator '
    'at that level, 1-5, as the IWPT shared tasks asked level 2; default none). Checked when saved.'
)


def check_metrics(kind: str, metrics) -> None:
    """Raise ``forms.ValidationError`` unless ``metrics`` are scoring options the kind can use."""
    if not isinstance(metrics, dict):
        raise forms.ValidationError("Write a JSON object, e.g. {} for the defaults.")
    campaign_kind = kinds.get(kind)
    known = campaign_kind.option_keys
    unknown = sorted(set(metrics) - set(known))
    if unknown:
        raise forms.ValidationError(f"Unknown option(s) {', '.join(unknown)} for a {kind} campaign; "
                                    f"known: {', '.join(known)}.")
    try:
        campaign_kind.check_options(metrics)
        campaign_kind.parameters(Campaign(kind=kind, metrics=metrics))
    except (ValueError, TypeError) as exc:
        raise forms.ValidationError(str(exc)) from None


class CampaignAdminForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = "__all__"
        help_texts = {"metrics": METRICS_HELP}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "organisers" in self.fields:
            # organisers work in the admin, so they are staff; others could not reach the campaign
            self.fields["organisers"].queryset = get_user_model().objects.filter(is_staff=True, is_active=True)
            self.fields["organisers"].help_text = "Staff users only. You stay an organiser of a campaign you create."

    def clean(self):
        data = super().clean()
        if "metrics" in data and not self.has_error("metrics"):
            try:
                check_metrics(data.get("kind") or (self.instance.kind if self.instance else CampaignKind.EASY),
                              data["metrics"] or {})
            except forms.ValidationError as exc:
                self.add_error("metrics", exc)
        return data


class CorpusImportForm(forms.Form):
    archive = forms.FileField(label="Gold documents", help_text="A .zip or .tar.gz of gold files, or one gold file.")
    subset = forms.ChoiceField(choices=[("test", "test"), ("dev", "dev"), ("unused", "unused")], initial="test",
                               help_text="The subset every imported sentence joins.")
    genres = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Tree and dependency campaigns: one DOCUMENT=GENRE a line (default: the "
                                       "name's prefix). EASY genres come from the file names.")

    def clean_genres(self) -> dict:
        genres = {}
        for n, line in enumerate(self.cleaned_data["genres"].splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            document, sep, code = line.partition("=")
            if not sep or not document.strip() or not code.strip():
                raise forms.ValidationError(f"line {n}: write DOCUMENT=GENRE, not {line!r}")
            genres[document.strip()] = code.strip()
        return genres
