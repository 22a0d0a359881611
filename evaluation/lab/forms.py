from django import forms

from parseval.evaluation.deps.errorlab import PRESETS

from .services import MAX_PER_TYPE


class ErrorLabForm(forms.Form):
    treebank_a = forms.FileField(label="Treebank", help_text="Penn (.mrg) or square-bracket trees (.tree, .txt)")
    treebank_b = forms.FileField(label="Second treebank (optional)", required=False,
                                 help_text="Shown side by side with the first")
    preset = forms.ChoiceField(label="Label roles", choices=[(p, p) for p in PRESETS], initial="penn",
                               help_text="Chosen at first from the labels of the campaign's gold trees")
    labels_file = forms.FileField(label="Label roles file (optional)", required=False,
                                  help_text="JSON or TOML: pp, np, vp, clause... replaces the preset")
    seed = forms.IntegerField(initial=12345, min_value=0, max_value=2**31 - 1)
    per_type = forms.IntegerField(label="Insertions per type", initial=100, min_value=1, max_value=MAX_PER_TYPE)
