"""No code asks a stored file for its local path: on object storage there is none (docs/deployment.md)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

from django.apps import apps
from django.db import models

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("annotations", "campaign", "evaluation", "config")
ALLOWED = {"campaign/stored_files.py"}  # the one place that asks, and copies when there is no path


def file_field_names() -> set[str]:
    return {f.name for model in apps.get_models() for f in model._meta.get_fields() if isinstance(f, models.FileField)}


def offending_reads() -> list[str]:
    fields = file_field_names()
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = str(path.relative_to(REPO))
            if "migrations" in path.parts or rel in ALLOWED:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not (isinstance(node, ast.Attribute) and node.attr == "path"):
                    continue
                owner = node.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                # run.file.path, gold.file.path, fieldfile.path, doc.text_file.storage.path(...)
                if name in fields or name in ("fieldfile", "storage", "default_storage", "gold_storage"):
                    found.append(f"{rel}:{node.lineno}")
    return found


def test_no_stored_file_is_read_by_its_local_path():
    assert {"file", "converted_file", "text_file", "document", "treebank_a"} <= file_field_names()
    assert offending_reads() == []


def test_the_check_finds_such_a_read(tmp_path, monkeypatch):
    """The check is not vacuous: a module reading ``run.file.path`` is reported."""
    package = tmp_path / "evaluation"
    package.mkdir()
    (package / "bad.py").write_text("def f(run):\n    return open(run.file.path)\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("evaluation",))
    assert offending_reads() == ["evaluation/bad.py:2"]
