"""The metric registry: every tree and dependency metric, by name.

The command line (``trees --metric``, ``deps``), the campaign kinds and the
results pages read metrics from here and nowhere else. Adding a metric is one
module in this package that builds a :class:`~parseval.evaluation.metrics.base.Metric`
(its engine, rows of sufficient statistics, figures, report and published
layers) plus one line in :data:`REGISTRY` below.
"""
from __future__ import annotations

from . import conformance, conll18, dependency, evalb, evalb_unlabelled, geig1991, leaf_ancestor
from .base import Layer, Metric

REGISTRY: dict[str, Metric] = {m.name: m for m in (
    evalb.METRIC,
    evalb_unlabelled.METRIC,
    geig1991.METRIC,
    conformance.METRIC,
    leaf_ancestor.METRIC,
    dependency.METRIC,
    conll18.METRIC,
)}
TREE_METRICS = tuple(name for name, m in REGISTRY.items() if m.family == "trees")


def get(name: str) -> Metric:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r} (expected one of {', '.join(REGISTRY)})") from None


def layers() -> dict[str, Layer]:
    """Every published figure of every metric, by ``ResultCell.layer`` code, in registry order."""
    return {layer.code: layer for m in REGISTRY.values() for layer in m.layers}


__all__ = ["REGISTRY", "TREE_METRICS", "Layer", "Metric", "get", "layers"]
