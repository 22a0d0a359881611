"""evalb-unlabelled: evalb with ``LABELED 0``, brackets compared by their span only.

The campaign's parameter file (COLLINS.prm unless given) with ``LABELED``
forced to 0, whatever the file says: the same engine, rows, figures and report
as :mod:`parseval.evaluation.metrics.evalb`, so its figures are exactly those of
``trees --metric evalb --param`` a copy of the file with ``LABELED 0``, and its
signature says ``labeled:no``. It is the bracket figure that means something
when gold and test label their phrases by different schemes (trees converted
from dependency parses).
"""
from __future__ import annotations

from .base import Layer
from .evalb import variant

METRIC = variant(
    name="evalb-unlabelled", label="evalb (unlabelled brackets)", labeled=False,
    layers=(
        Layer("evalb-unlabelled", "evalb F (unlabelled brackets)", f="summary.all.f", p="summary.all.precision",
              r="summary.all.recall", fc="summary.all.matched", fp="summary.all.test_brackets",
              cr="summary.all.gold_brackets",
              description="bracket F-measure by span only (evalb with LABELED 0), every sentence length, "
                          "COLLINS.prm conventions otherwise; meaningful when gold and test label phrases "
                          "by different schemes"),
        # ResultCell.layer holds 20 characters
        Layer("evalb-unl-exact", "evalb exact match (unlabelled)", f="summary.all.exact_match",
              description="sentences whose bracket spans are all right, labels aside"),
    ),
)
