"""The annotation schema: which group types and relation types (with roles) exist.

The schema is plain data so that the web app can store the machine-readable
schema of each annotation-guide version (as JSON, through :meth:`to_dict` /
:meth:`from_dict`) and validate runs against it. :data:`DEFAULT_SCHEMA` is
the EASY schema of the specification (6 group types, 14 relation types).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class EasySchema:
    """Group types, relation types with their roles (in file order) and extra children.

    ``relation_extras`` lists, per relation type, the non-argument children a
    relation may carry (``s-o``, ``a-propager``): they are read and kept but
    take no part in matching.
    """

    group_types: tuple[str, ...]
    relation_roles: Mapping[str, tuple[str, ...]]
    relation_extras: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    name: str = "EASY"

    def __post_init__(self):
        group_types = tuple(self.group_types)
        roles = {str(k): tuple(v) for k, v in dict(self.relation_roles).items()}
        extras = {str(k): tuple(v) for k, v in dict(self.relation_extras).items()}
        problems = []
        if not group_types and not roles:
            problems.append("the schema defines no group type and no relation type")
        if len(set(group_types)) != len(group_types):
            problems.append("duplicate group type")
        for rtype, rroles in roles.items():
            if not rroles:
                problems.append(f"relation type {rtype} has no role")
            if len(set(rroles)) != len(rroles):
                problems.append(f"relation type {rtype} repeats a role")
            if set(rroles) & set(extras.get(rtype, ())):
                problems.append(f"relation type {rtype}: a role is also an extra child")
        for rtype in extras:
            if rtype not in roles:
                problems.append(f"extra children given for unknown relation type {rtype}")
        if problems:
            raise ValueError("invalid EASY schema: " + "; ".join(problems))
        object.__setattr__(self, "group_types", group_types)
        object.__setattr__(self, "relation_roles", MappingProxyType(roles))
        object.__setattr__(self, "relation_extras", MappingProxyType(extras))

    # -- convenience -------------------------------------------------
    @property
    def relation_types(self) -> tuple[str, ...]:
        return tuple(self.relation_roles)

    def roles(self, relation_type: str) -> tuple[str, ...]:
        return self.relation_roles[relation_type]

    def extras(self, relation_type: str) -> tuple[str, ...]:
        return self.relation_extras.get(relation_type, ())

    # -- JSON storage ------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "group_types": list(self.group_types),
            "relation_types": [
                {"type": t, "roles": list(r), "extras": list(self.relation_extras.get(t, ()))}
                for t, r in self.relation_roles.items()
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> "EasySchema":
        """Inverse of :meth:`to_dict`. Raises ``ValueError`` on a malformed schema."""
        try:
            group_types = tuple(str(t) for t in data["group_types"])
            roles: dict[str, tuple[str, ...]] = {}
            extras: dict[str, tuple[str, ...]] = {}
            for item in data["relation_types"]:
                rtype = str(item["type"])
                if rtype in roles:
                    raise ValueError(f"invalid EASY schema: relation type {rtype} given twice")
                roles[rtype] = tuple(str(r) for r in item["roles"])
                if item.get("extras"):
                    extras[rtype] = tuple(str(x) for x in item["extras"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"invalid EASY schema: missing or malformed field {exc}") from None
        return cls(group_types, roles, extras, name=str(data.get("name", "EASY")))


DEFAULT_SCHEMA = EasySchema(
    group_types=("GN", "GA", "GP", "GR", "NV", "PV"),
    relation_roles={
        "SUJ-V": ("sujet", "verbe"),
        "AUX-V": ("auxiliaire", "verbe"),
        "COD-V": ("cod", "verbe"),
        "CPL-V": ("complement", "verbe"),
        "MOD-V": ("modifieur", "verbe"),
        "COMP": ("complementeur", "verbe"),
        "ATB-SO": ("attribut", "verbe"),
        "MOD-N": ("modifieur", "nom"),
        "MOD-A": ("modifieur", "adjectif"),
        "MOD-R": ("modifieur", "adverbe"),
        "MOD-P": ("modifieur", "preposition"),
        "COORD": ("coordonnant", "coord-g", "coord-d"),
        "APPOS": ("premier", "appose"),
        "JUXT": ("premier", "suivant"),
    },
    relation_extras={"ATB-SO": ("s-o",), "MOD-N": ("a-propager",)},
    name="EASY",
)
