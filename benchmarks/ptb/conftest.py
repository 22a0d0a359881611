"""Checks on the Penn Treebank sample: optional, outside the test suite.

The sample (~5 % of the WSJ treebank, as distributed with NLTK; (C) LDC 1995, fair use for
illustrating NLP tools, non-commercial) may not be redistributed, so the repository does not ship
it and ``make test`` never reads it. Where you have it, run these checks with::

    PARSEVAL_DEVELOPMENT=1 .venv/bin/python -m pytest benchmarks/ptb

They read ``$PARSEVAL_SHARED/data/ptb-sample`` (``../shared/data/ptb-sample`` by default).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PTB = Path(os.environ.get("PARSEVAL_SHARED") or REPO.parent / "shared").resolve() / "data" / "ptb-sample"


@pytest.fixture(scope="session")
def ptb_sample() -> Path:
    if not any(PTB.glob("wsj_*.mrg")):
        pytest.fail(f"the Penn Treebank sample (wsj_0001.mrg .. wsj_0199.mrg, not shipped: LDC licence) is not in "
                    f"{PTB}; put it there or set PARSEVAL_SHARED to the folder holding data/ptb-sample")
    return PTB
