"""In-memory model of an EASY document: plain dataclasses, no behaviour beyond lookups.

Positions are 0-based indexes into ``Sentence.forms``; a group covers the
contiguous forms ``forms[start:end]``. Relation arguments keep the target id
exactly as written (a form id, a group id, or the null argument ``E<n>F0``);
:meth:`Sentence.resolve` turns a target into a form position or a group.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from parseval.annotations.errors import Problem


@dataclass(slots=True)
class Form:
    id: str
    text: str
    line: int | None = field(default=None, compare=False)


@dataclass(slots=True)
class Group:
    """A constituent (``Groupe``): a contiguous run of forms ``[start, end)``."""

    id: str
    type: str
    start: int
    end: int
    line: int | None = field(default=None, compare=False)

    @property
    def range(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(slots=True)
class Relation:
    """A functional relation: ``args`` maps each role to the id it points to.

    ``extras`` keeps the non-argument children (``s-o``, ``a-propager``) as
    ``{tag: {attribute: value}}``; they take no part in matching.
    """

    id: str
    type: str
    args: dict[str, str]
    extras: dict[str, dict[str, str]] = field(default_factory=dict)
    line: int | None = field(default=None, compare=False)


@dataclass(slots=True)
class Sentence:
    id: str
    forms: list[Form] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    line: int | None = field(default=None, compare=False)

    @property
    def null_id(self) -> str:
        return f"{self.id}F0"

    def form_positions(self) -> dict[str, int]:
        return {f.id: i for i, f in enumerate(self.forms)}

    def groups_by_id(self) -> dict[str, Group]:
        return {g.id: g for g in self.groups}

    def resolve(self, target: str) -> int | Group | None:
        """A form position, a :class:`Group`, or ``None`` (null or dangling argument)."""
        for g in self.groups:
            if g.id == target:
                return g
        for i, f in enumerate(self.forms):
            if f.id == target:
                return i
        return None

    @property
    def words(self) -> list[str]:
        return [f.text for f in self.forms]


@dataclass(slots=True)
class SentenceParts:
    """A valid sentence as scoring reads it, without its objects (see ``iter_sentences(parts=True)``).

    ``forms`` is ``((id, text), ...)``, ``groups`` ``[(start, end, type), ...]`` and ``relations``
    ``[(type, targets), ...]``, a target being a group's ``(start, end)``, a form's position or ``None``
    (the null argument), in the order of the roles.
    """

    id: str
    forms: tuple[tuple[str, str], ...]
    groups: list[tuple[int, int, str]]
    relations: list[tuple[str, tuple]]


@dataclass
class Document:
    """One EASY file. ``problems`` holds the errors found when read leniently."""

    name: str
    sentences: list[Sentence] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    path: str | None = None
    encoding: str | None = None
    warnings: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    has_constituents: bool = False
    has_relations: bool = False

    def sentence_map(self) -> dict[str, Sentence]:
        return {s.id: s for s in self.sentences}

    def __len__(self) -> int:
        return len(self.sentences)
