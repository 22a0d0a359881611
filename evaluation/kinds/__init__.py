"""The campaign kinds: how each one imports its corpus, validates, scores and stores a run.

``get(kind)`` / ``for_campaign(campaign)`` return an object with ``name``,
``suffixes`` (run and gold file names), ``import_corpus``,
``validate_run_files``, ``score_run_files`` and ``parameters``. The EASY kind
is the original pipeline; the constituency and dependency kinds share
:mod:`evaluation.kinds.base`.
"""
from __future__ import annotations

from .constituency import ConstituencyKind
from .dependency import DependencyKind
from .easy import EasyKind

KINDS = {k.name: k for k in (EasyKind(), ConstituencyKind(), DependencyKind())}


def get(kind: str):
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown campaign kind {kind!r} (expected one of {', '.join(KINDS)})") from None


def for_campaign(campaign):
    return get(campaign.kind)


def suffixes(campaign) -> tuple[str, ...]:
    return get(campaign.kind).suffixes


__all__ = ["KINDS", "get", "for_campaign", "suffixes"]
