"""Scoring results as the campaign layer reads them, provided by the evaluation app.

The campaign layer lists runs, publishes snapshots and exports results, but
the results themselves (their models, summaries and re-scoring) belong to the
evaluation app, which imports this layer. So, like the kinds
(:mod:`campaign.kinds`), the evaluation app hands them over from its
``AppConfig.ready()``: :func:`provide` is given an object with the functions
below, and models are looked up by name in Django's app registry.
"""
from __future__ import annotations

from django.apps import apps

_PROVIDER = None


def provide(provider) -> None:
    global _PROVIDER
    _PROVIDER = provider


def _provider():
    if _PROVIDER is None:
        raise RuntimeError("no results provider: the evaluation app is not installed or not ready")
    return _PROVIDER


def model(name: str):
    """An evaluation model (``Result``, ``ResultCell``, ``PublishedSnapshot``) by name."""
    return apps.get_model("evaluation", name)


def latest_result(run):
    return _provider().latest_result(run)


def result_summary(result) -> list[dict]:
    return _provider().result_summary(result)


def secrecy_budget(campaign):
    """The measured secrecy budget of the campaign's team-figures setting (evaluation.results.secrecy_budget), or None."""
    return _provider().secrecy_budget(campaign)


def limited_summary(rows: list[dict], campaign, run=None) -> list[dict] | None:
    """The pooled rows of :func:`result_summary` of ``run`` as a team may see them before the gold release."""
    return _provider().limited_summary(rows, campaign, run)


def public_result_document(result) -> dict:
    return _provider().public_result_document(result)


def rescore(run, actor, *, request=None):
    return _provider().rescore(run, actor, request=request)


def campaign_results(campaign, *, runs=None) -> dict:
    return _provider().campaign_results(campaign, runs=runs)


def build_consensus(campaign):
    """The consensus pseudo-run of the campaign's runs, built now (the demo builds it in process); None when
    there is nothing to combine."""
    return _provider().build_consensus(campaign)
