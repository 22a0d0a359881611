"""Writing CSV exports that are safe to open in a spreadsheet.

Every export (the console's results, the audit log) goes through
:func:`csv_stream`: a text cell that a spreadsheet would read as a formula
(``=``, ``+``, ``-``, ``@``, a tab or a carriage return at the start) is
prefixed with a single quote, so team and run names, file names or a recorded
address typed by anyone cannot run anything on an organiser's machine.
Numbers stay numbers: only text is touched.
"""
from __future__ import annotations

import csv
from typing import Iterable, Iterator

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value) -> str | int:
    """The cell as written: ``""`` for None, ``repr`` for floats, text neutralised against formulas."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


class _Echo:
    """A file-like object whose write returns the line, for csv.writer inside a generator."""

    def write(self, value: str) -> str:
        return value


def csv_stream(header: list[str], rows: Iterable[Iterable]) -> Iterator[str]:
    """The lines of a CSV file, header first, every cell through :func:`safe_cell`."""
    writer = csv.writer(_Echo())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow([safe_cell(v) for v in row])
