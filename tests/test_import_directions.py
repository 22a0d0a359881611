"""Which package may import which: the pure engines and formats without Django, annotations on its own."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Formats and engines: what the command line runs, with no web app around it (the whole library folder).
PURE = ["parseval"]


def _modules(paths: list[str]) -> list[str]:
    out = []
    for rel in paths:
        path = REPO / rel
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            parts = f.relative_to(REPO).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def test_engines_and_formats_import_without_django():
    modules = _modules(PURE)
    assert len(modules) > 40 and "parseval.evaluation.metrics.evalb" in modules and "parseval.api" in modules
    # A finder that refuses django (and anything of the web app) makes every such import fail loudly.
    script = f"""
import importlib, importlib.abc, sys

class NoDjango(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("django", "rest_framework", "celery", "annotations", "campaign", "evaluation", "config"):
            raise ImportError("not importable here: " + name)
        return None

sys.meta_path.insert(0, NoDjango())
for name in {modules!r}:
    importlib.import_module(name)
assert not any(m.split(".")[0] == "django" for m in sys.modules)
print("ok", len({modules!r}))
"""
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"ok {len(modules)}"


def _imported_packages(package: str) -> dict[str, set[str]]:
    """``{module file: top-level packages it imports}`` for every module of ``package`` (inside functions too)."""
    out = {}
    for f in sorted((REPO / package).rglob("*.py")):
        if "migrations" in f.parts:
            continue
        tops = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops.add(node.module.split(".")[0])
        out[str(f.relative_to(REPO))] = tops
    return out


def test_annotations_imports_neither_campaign_nor_evaluation():
    offending = {f: tops & {"campaign", "evaluation"} for f, tops in _imported_packages("annotations").items()}
    assert {f: t for f, t in offending.items() if t} == {}
    # nor behind the import statement's back
    assert [f for f in (REPO / "annotations").rglob("*.py") if "import_module(" in f.read_text(encoding="utf-8")] == []


def test_campaign_imports_no_evaluation_module_at_import_time():
    # Module level only: the campaign layer reaches kinds and the scoring task through campaign.kinds.
    offending = {}
    for f in sorted((REPO / "campaign").rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "evaluation":
                offending.setdefault(str(f.relative_to(REPO)), []).append(node.module)
            elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "evaluation" for a in node.names):
                offending.setdefault(str(f.relative_to(REPO)), []).append("evaluation")
    assert offending == {}


def test_campaign_imports_nothing_of_the_evaluation_app_even_inside_functions():
    # The demo builder damages its synthetic runs with the error lab and converts and scores its real runs
    # with the library (parseval); it builds its consensus through campaign.results.
    users = {f for f, tops in _imported_packages("campaign").items() if "evaluation" in tops}
    assert users == set()
    library = {f for f, tops in _imported_packages("campaign").items() if "parseval" in tops}
    assert {"campaign/demo_kinds.py", "campaign/demo_parses.py", "campaign/management/commands/demo_figures.py"} <= library
