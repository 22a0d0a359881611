"""The campaign kinds: how each one imports its corpus, validates, scores and shows a run.

Every kind is a subclass of :class:`evaluation.kinds.contract.Kind`, the whole contract between a kind
and the rest of the platform (each hook documented there, with its default). The sentence-per-line
kinds (constituency, dependency) share :mod:`evaluation.kinds.sentence`. :data:`KINDS` is registered with
:mod:`campaign.kinds` when the app starts (``EvaluationConfig.ready``), which is how the rest of the code
reaches them (``get`` and ``for_campaign`` here are that registry's).
"""
from __future__ import annotations

from campaign.kinds import for_campaign, get  # the one registry they are registered with at start-up

from .constituency import ConstituencyKind
from .dependency import DependencyKind
from .easy import EasyKind

KINDS = {k.name: k for k in (EasyKind(), ConstituencyKind(), DependencyKind())}

__all__ = ["KINDS", "get", "for_campaign"]
