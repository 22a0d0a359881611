"""The small tree, dependency and EASY campaigns of the kind tests, for the consensus pseudo-run."""
from __future__ import annotations

from tests.kinds.conftest import (  # noqa: F401  (fixtures used here)
    dep_campaign, dep_gold, fast_password_hashing, organiser, tree_campaign, tree_gold)
