"""Errors raised by the annotation readers.

Every reader reports bad input through :class:`InputError` so that the command
line, the workers and the web pages can all show *where* (file, line, sentence,
element) and *what*, without a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass, field


def N_(message: str) -> str:
    """Marks a report text for translation and returns it unchanged.

    The library has no Django and stores its texts in English, as it always has. The marker lets
    ``makemessages`` (``--keyword=N_``, see campaign/management/commands/makemessages.py) collect them,
    and the web app translates a stored text when a page shows it (campaign.problem_texts). A text
    with values is written ``N_("word %(word)s is its own head") % {"word": ...}``: the app finds the
    template again from the English text and translates the values' sentence around them.
    """
    return message


@dataclass
class Problem:
    """One thing wrong (or suspicious) in an input file."""

    message: str
    file: str | None = None
    line: int | None = None
    sentence: str | None = None
    element: str | None = None

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.sentence:
            where.append(f"sentence {self.sentence}")
        if self.element:
            where.append(f"element {self.element}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message

    def as_dict(self) -> dict:
        return {
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "sentence": self.sentence,
            "element": self.element,
        }


class InputError(Exception):
    """Input that cannot be scored. Carries one or more :class:`Problem`."""

    def __init__(self, problems: Problem | list[Problem] | str, **where):
        if isinstance(problems, str):
            problems = [Problem(problems, **where)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def missing_extra(what: str, extra: str) -> InputError:
    """The error of a feature whose optional packages are not installed (one of the library's extras)."""
    return InputError(f"{what} is not installed; it comes with the library's {extra!r} extra: "
                      f"pip install 'parseval[{extra}]'")


@dataclass
class Warnings:
    """Collects non-fatal problems (duplicates, null arguments in gold...)."""

    items: list[Problem] = field(default_factory=list)

    def add(self, message: str, **where) -> None:
        self.items.append(Problem(message, **where))

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)
