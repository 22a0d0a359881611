"""The campaign kinds: how each one imports its corpus, validates, scores and shows a run.

Every kind object has ``name``, ``label``, ``suffixes`` (run and gold file
names), ``file_help``, ``options_error``, ``has_word_view``,
``import_corpus``, ``parameters``, ``validate_run_files``,
``score_run_files``, ``gold_files``, ``campaign_page``, ``run_page`` and
``diagnostics_page``. The constituency and dependency kinds share
:mod:`evaluation.kinds.base`. :data:`KINDS` is registered with
:mod:`campaign.kinds` when the app starts (``EvaluationConfig.ready``), which
is how the rest of the code reaches them (``get`` and ``for_campaign`` here
are that registry's).
"""
from __future__ import annotations

from campaign.kinds import for_campaign, get  # the one registry they are registered with at start-up

from .constituency import ConstituencyKind
from .dependency import DependencyKind
from .easy import EasyKind

KINDS = {k.name: k for k in (EasyKind(), ConstituencyKind(), DependencyKind())}

__all__ = ["KINDS", "get", "for_campaign"]
