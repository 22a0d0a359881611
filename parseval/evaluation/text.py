"""How every page writes a figure: one convention for all kinds."""
from __future__ import annotations


def percent(value) -> str:
    """A fraction as a percentage with one decimal; "–" for an undefined figure (never 0.0)."""
    return "–" if value is None else f"{100 * value:.1f}"
