"""Shared test fixtures: where the real data lives."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# The free data ships in data/; PARSEVAL_SHARED, when set, names another copy (its data/ folder).
# The Penn Treebank sample is not free: it is only ever read from the shared folder (../shared by default).
SHARED = Path(os.environ.get("PARSEVAL_SHARED") or REPO_ROOT.parent / "shared").resolve()
DATA = SHARED / "data" if os.environ.get("PARSEVAL_SHARED") else REPO_ROOT / "data"
PTB = SHARED / "data" / "ptb-sample"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The project's data folder (data/, or $PARSEVAL_SHARED/data)."""
    if not DATA.is_dir():
        pytest.fail(f"data not found at {DATA} (the repository ships it in data/)")
    return DATA


@pytest.fixture(scope="session")
def ptb_sample() -> Path:
    """The Penn Treebank sample, for the tests about English trees (not shipped: LDC licence)."""
    if not any(PTB.glob("wsj_*.mrg")):
        pytest.fail(f"this test needs the Penn Treebank sample (wsj_*.mrg, not shipped: LDC licence) in {PTB}; "
                    "put it there or set PARSEVAL_SHARED to the folder holding data/ptb-sample")
    return PTB


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Give each test session its own PostgreSQL test database.

    Several test sessions may share one server (developers, CI, a benchmark);
    with one fixed name they would drop each other's database mid-run.
    """
    from django.conf import settings

    for alias, db in settings.DATABASES.items():
        if db["ENGINE"].endswith("postgresql"):
            db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Request rates are counted in the cache; each test starts with none spent."""
    from django.core.cache import cache

    cache.clear()
    yield


# The portal, kind and worker tests all need these; the imports wait until pytest-django has set Django up.
@pytest.fixture
def storage(settings, tmp_path):
    """Media and gold under the test's tmp_path; gold storage is rebuilt afterwards so no later test sees it."""
    from django.utils.functional import empty

    from annotations.models import gold_storage
    from tests import factories

    factories.use_storage(settings, tmp_path)
    yield tmp_path
    gold_storage._wrapped = empty


@pytest.fixture
def alice(db):
    from tests import factories

    return factories.make_user("alice")


@pytest.fixture
def bob(db):
    from tests import factories

    return factories.make_user("bob")


CHROMIUM = "/usr/bin/chromium"  # Debian's package, installed by scripts/ensure-services


@pytest.fixture
def chromium(monkeypatch):
    """Headless Debian Chromium driven by Playwright; the browser tests fail, never skip, without it."""
    # Playwright's sync API runs an event loop in this thread; the test's ORM calls stay synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from django.db import connections
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is required for the browser tests and is not at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield browser
        browser.close()
        # ORM calls made while Playwright ran used their own connection; close it so the test database can be dropped.
        connections.close_all()
