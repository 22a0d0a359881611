"""Phrase labels: what is category and what is annotation added to it."""
from __future__ import annotations


def strip_function_tags(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``S=2`` -> ``S``; ``-NONE-`` and ``-LRB-`` are kept whole."""
    if label.startswith("-"):
        j = label.find("-", 1)
        return label if j == -1 else label[: j + 1]
    for i, ch in enumerate(label):
        if (ch == "-" or ch == "=") and i > 0:
            return label[:i]
    return label
