"""The import rules of docs/architecture.md as import-linter contracts (``.importlinter``, run by ``make lint``):
they hold on the tree, and each fails when a copy of the tree gets the import it forbids."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("parseval", "annotations", "campaign", "evaluation", "config")
LINT = str(Path(sys.executable).with_name("lint-imports"))


def lint(root: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["COLUMNS"] = "400"  # one line per contract
    return subprocess.run([LINT, "--no-cache", "--config", str(root / ".importlinter")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_tree_keeps_every_contract():
    done = lint(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 kept, 0 broken" in done.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for name in PACKAGES:
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "data"))
    shutil.copy(REPO / ".importlinter", root)
    return root


# (module file, the import added at its end, the contract's name as lint-imports prints it)
WRONG = [
    ("parseval/evaluation/stats.py", "import django", "The library (parseval) imports no Django"),
    ("parseval/evaluation/metrics/base.py", "from evaluation.models import Result", "The library (parseval) imports no Django"),
    ("parseval/evaluation/ud2easy/convert.py", "import spacy", "The library's core imports no optional package"),
    ("parseval/annotations/easy/model.py", "from parseval.evaluation import stats", "In the library"),
    ("annotations/models.py", "from campaign.models import Campaign", "The annotations app"),
    ("campaign/lifecycle.py", "from evaluation.results import summaries", "campaign imports nothing of the evaluation app"),
    ("evaluation/pipeline/tasks.py", "from evaluation.significance import sets", "features import each other downward only"),
    ("evaluation/results/summaries.py", "from evaluation.kinds import KINDS", "features import each other downward only"),
]


@pytest.mark.parametrize("module, line, contract", WRONG, ids=[f"{m}: {line}" for m, line, _ in WRONG])
def test_a_wrong_import_breaks_its_contract(copy, module, line, contract):
    path = copy / module
    original = path.read_text(encoding="utf-8")
    path.write_text(original + f"\n{line}  # noqa\n", encoding="utf-8")
    try:
        done = lint(copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert done.returncode == 1, done.stdout + done.stderr
    verdicts = [line for line in done.stdout.splitlines()
                if contract in line and (" KEPT" in line or " BROKEN" in line)]
    assert len(verdicts) == 1 and " BROKEN" in verdicts[0], done.stdout
