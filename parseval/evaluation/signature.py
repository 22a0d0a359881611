"""sacreBLEU-style signatures: a short string that says how a score was made.

A signature lists ``key:value`` pairs joined by ``|`` in a fixed key order,
always ending with the scorer version, e.g.
``metric:easy-relations|mode:HYP|match:EQUAL|agg:micro|bs:1000|seed:12345|version:1.0.0``.
Two scores are comparable only when their signatures are equal.
"""
from __future__ import annotations

from .version import SCORER_VERSION


def make_signature(metric: str, **params) -> str:
    """Build a signature. ``params`` keep the caller's order; ``None`` values are skipped."""
    parts = [f"metric:{metric}"]
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        parts.append(f"{key}:{value}")
    parts.append(f"version:{SCORER_VERSION}")
    return "|".join(parts)


def extend_signature(signature: str, **params) -> str:
    """Add ``key:value`` pairs to a signature, before its closing version."""
    head, sep, version = signature.rpartition("|version:")
    if not sep:
        head, version = signature, None
    extra = [f"{k}:{v}" for k, v in params.items() if v not in (None, "")]
    parts = [head, *extra] + ([f"version:{version}"] if version is not None else [])
    return "|".join(parts)


def parse_signature(signature: str) -> dict[str, str]:
    """Inverse of :func:`make_signature` (values come back as strings)."""
    out: dict[str, str] = {}
    for part in signature.split("|"):
        key, _, value = part.partition(":")
        out[key] = value
    return out
