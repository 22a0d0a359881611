"""The one registry of analysis attributes: what a figure can be broken down by, for every kind.

An :class:`Attribute` names a property of an item (a dependency arc, later a tree's span or an EASY
relation) or of its sentence, the kinds it applies to, and a function from an item to its *bucket*, a
short label. A kind's package registers its attributes when it is imported (``parseval.evaluation.deps.buckets``
for dependencies) and computes its buckets itself, with its own matching: this module only holds the
names, so that the command line, the JSON document and (later) the pages list the same attributes in the
same order for every kind.

Numeric attributes fall into fixed ranges (:func:`range_label`): a bucket means the same thing on every
corpus, so that two analyses can be read side by side.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from parseval.annotations.errors import InputError


@dataclass(frozen=True)
class Attribute:
    """One attribute: ``bucket(item)`` gives the item's bucket label; ``order`` the fixed order of the
    bucket labels when the attribute has one (numeric ranges), else buckets are sorted by name."""

    name: str
    kinds: tuple[str, ...]
    description: str
    bucket: Callable[[Any], str]
    order: tuple[str, ...] = ()

    def sort_key(self, label: str):
        if label in self.order:
            return (0, self.order.index(label), "")
        return (1, 0, label)


_REGISTRY: dict[str, Attribute] = {}


def register(attribute: Attribute) -> Attribute:
    key = attribute.name
    if key in _REGISTRY and _REGISTRY[key].kinds != attribute.kinds:
        raise ValueError(f"attribute {key!r} registered twice with different kinds")
    _REGISTRY[key] = attribute
    return attribute


def attributes_for(kind: str) -> list[Attribute]:
    """The attributes that apply to ``kind``, in registration order."""
    return [a for a in _REGISTRY.values() if kind in a.kinds]


def get(kind: str, name: str) -> Attribute:
    """The attribute ``name`` of ``kind``; a clear error naming the available ones otherwise."""
    for attribute in attributes_for(kind):
        if attribute.name == name:
            return attribute
    names = ", ".join(a.name for a in attributes_for(kind))
    raise InputError(f"no attribute {name!r} for the kind {kind}: choose among {names}")


def range_labels(edges: tuple[int, ...]) -> tuple[str, ...]:
    """Labels of the ranges that start at each edge: ``(1, 2, 3, 5)`` gives ``1, 2, 3-4, 5+``."""
    labels = []
    for low, high in zip(edges, edges[1:]):
        labels.append(str(low) if high == low + 1 else f"{low}-{high - 1}")
    labels.append(f"{edges[-1]}+")
    return tuple(labels)


def range_label(value: int, edges: tuple[int, ...]) -> str:
    """The label of the range of ``edges`` (:func:`range_labels`) that holds ``value`` (``value >= edges[0]``)."""
    labels = range_labels(edges)
    for k in range(len(edges) - 1, -1, -1):
        if value >= edges[k]:
            return labels[k]
    raise ValueError(f"{value} is below the first range ({edges[0]})")
