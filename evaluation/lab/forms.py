from django import forms
from django.utils.translation import gettext_lazy as _

from parseval.evaluation.deps.errorlab import PRESETS

from .services import MAX_PER_TYPE


class ErrorLabForm(forms.Form):
    treebank_a = forms.FileField(label=_("Treebank"), help_text=_("Penn (.mrg) or square-bracket trees (.tree, .txt)"))
    treebank_b = forms.FileField(label=_("Second treebank (optional)"), required=False,
                                 help_text=_("Shown side by side with the first"))
    preset = forms.ChoiceField(label=_("Label roles"), choices=[(p, p) for p in PRESETS], initial="penn",
                               help_text=_("Chosen at first from the labels of the campaign's gold trees"))
    labels_file = forms.FileField(label=_("Label roles file (optional)"), required=False,
                                  help_text=_("JSON or TOML: pp, np, vp, clause... replaces the preset"))
    seed = forms.IntegerField(initial=12345, min_value=0, max_value=2**31 - 1)
    per_type = forms.IntegerField(label=_("Insertions per type"), initial=100, min_value=1, max_value=MAX_PER_TYPE)
