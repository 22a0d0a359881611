"""The small constituency campaign of the kind tests (the results layout tests draw its ranking)."""
from __future__ import annotations

from tests.kinds.conftest import organiser, tree_campaign, tree_gold  # noqa: F401  (fixtures used here)
