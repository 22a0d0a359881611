"""Output helpers shared by the CLI commands, so every command writes files and JSON the same way."""
from __future__ import annotations

import json
import sys
from typing import Callable


def write_text(text: str, output: str | None) -> None:
    """``text`` to the file ``output``, or to standard output when no file is named."""
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def write_result(result: dict, json_target: str | None, format_table: Callable[[dict], str]) -> int:
    """The JSON result to ``json_target`` ('-' = standard output) and the table to standard output.

    With '-' the table is left out (and not even formatted) so that standard output stays valid JSON.
    """
    if json_target == "-":
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if json_target:
        with open(json_target, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
    sys.stdout.write(format_table(result))
    return 0
