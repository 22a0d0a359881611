"""Shared test fixtures: where the real data lives."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# CI clones the project with shared/ beside it; PARSEVAL_SHARED overrides for other layouts.
SHARED = Path(os.environ.get("PARSEVAL_SHARED", REPO_ROOT.parent / "shared")).resolve()
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"shared data not found at {DATA} (set PARSEVAL_SHARED)")
    return DATA
