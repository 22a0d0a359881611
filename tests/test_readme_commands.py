"""The README works when followed literally: its commands name the project's environment, and its
examples on shipped data run from a plain clone."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```\n(.*?)^```", README, re.M | re.S)
COMMANDS = [line for block in BLOCKS for line in block.splitlines() if "python" in line]


def test_every_command_uses_the_projects_python():
    assert len(COMMANDS) >= 8
    assert all(line.startswith(".venv/bin/python ") for line in COMMANDS), COMMANDS
    for prose in re.findall(r"`([^`]*python (?:-m|manage\.py)[^`]*)`", README):
        assert ".venv/bin/python" in prose, prose
    assert "/api/docs/" in README and "/api/redoc/" in README and "/docs/" in README


def test_the_examples_on_shipped_data_run():
    examples = [line for line in COMMANDS if " data/" in line]
    assert len(examples) >= 2
    for line in examples:
        args = shlex.split(line)
        proc = subprocess.run([sys.executable, *args[1:]], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (line, proc.stderr)
        assert proc.stdout.strip(), line
