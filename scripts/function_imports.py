"""Count imports of the project's own packages made inside function bodies (not at module level).

An import inside a function usually hides an import cycle or a layering problem. Usage, from the
repository root::

    .venv/bin/python scripts/function_imports.py          # the total, the total outside the demo modules
    .venv/bin/python scripts/function_imports.py --files  # and per file

Counted: every ``import X`` / ``from X import ...`` inside a ``def`` whose module is one of the project's
packages (or relative), in every module of those packages except migrations. The demo modules are the
files with ``demo`` in their name (the demo builder and its commands).
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = ("annotations", "campaign", "evaluation", "config")


def function_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                modules = ["." * node.level + (node.module or "")] if node.level else [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            else:
                continue
            found += [(node.lineno, m) for m in modules if m.startswith(".") or m.split(".")[0] in PROJECT]
    return found


def main(argv: list[str]) -> None:
    per_file = {}
    for package in PROJECT:
        for f in sorted((REPO / package).rglob("*.py")):
            if "migrations" not in f.parts:
                found = function_imports(f)
                if found:
                    per_file[str(f.relative_to(REPO))] = found
    total = sum(len(v) for v in per_file.values())
    demo = sum(len(v) for k, v in per_file.items() if "demo" in Path(k).name)
    print(f"{total} function-body imports of project packages, {total - demo} outside the demo modules")
    if "--files" in argv:
        for name, found in sorted(per_file.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"{len(found):4d} {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
