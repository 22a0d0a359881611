"""The small constituency campaign of the kind tests, and quick password hashing."""
from __future__ import annotations

import pytest

from tests.kinds.conftest import organiser, tree_campaign, tree_gold  # noqa: F401  (fixtures used here)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def significance_cache(settings, tmp_path):
    """Each test's kept per-result figures in its own folder (evaluation/significance/run_cache.py)."""
    settings.PARSEVAL_SIGNIFICANCE_CACHE_DIR = tmp_path / "significance-cache"
    return settings.PARSEVAL_SIGNIFICANCE_CACHE_DIR
