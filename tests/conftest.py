"""Shared test fixtures: where the real data lives."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# The suite reads only the data the repository ships (data/, free licences; see data/README.md).
# The Penn Treebank sample is not free and never ships: no test reads it; only the optional
# differential scripts and benchmarks do (where, in docs/deployment.md).
DATA = REPO_ROOT / "data"
SEQUOIA_TREES = DATA / "sequoia-const" / "sequoia-corpus+fct.mrg_strict"
# Where each Sequoia source starts in the tree file (data/sequoia-const/sent_ids.tsv, 0-based lines).
SEQUOIA_SOURCES = {"annodis": 0, "emea": 524, "europar": 1542, "frwiki": 2103}


def sequoia_trees(source: str, count: int, skip: int = 0) -> str:
    """``count`` Sequoia trees of one source (one tree per line, as shipped), after ``skip`` of them."""
    lines = SEQUOIA_TREES.read_text(encoding="utf-8").splitlines()
    first = SEQUOIA_SOURCES[source] + skip
    return "\n".join(lines[first:first + count]) + "\n"


def indented(line: str) -> str:
    """One bracketed tree laid out as the Penn Treebank's files are: a line per phrase, indented by
    depth, a phrase of preterminals kept on one line, closing brackets on the last child's line."""
    from parseval.annotations.trees.penn import parse_penn

    def lay(node, depth: int) -> str:
        if all(c.is_preterminal or c.is_word for c in node.children):
            return node.to_penn()
        inner = ("\n" + "  " * (depth + 1)).join(lay(c, depth + 1) for c in node.children)
        return f"({node.label} {inner})"

    (tree,) = parse_penn(line, strip_outer=False)
    return lay(tree, 0)


def sequoia_mrg(source: str, count: int, skip: int = 0) -> str:
    """Sequoia trees in the layout of a .mrg file: multi-line trees separated by blank lines."""
    return "\n\n".join(indented(t) for t in sequoia_trees(source, count, skip).splitlines()) + "\n"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The project's data folder (data/, shipped with the repository)."""
    if not DATA.is_dir():
        pytest.fail(f"data not found at {DATA} (the repository ships it in data/)")
    return DATA



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


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's language: a request's LocaleMiddleware leaves its language active in the
    thread, which code called outside a request afterwards (messages, refusals) would otherwise speak."""
    from django.utils import translation

    yield
    translation.deactivate()


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


@pytest.fixture(scope="session")
def object_store(tmp_path_factory):
    """A SeaweedFS server with an S3 gateway, for this test session (tests/object_store.py)."""
    from tests.object_store import ObjectStoreUnavailable, SeaweedFS

    server = SeaweedFS(tmp_path_factory.mktemp("seaweedfs"))
    try:
        server.start()
    except ObjectStoreUnavailable as exc:
        pytest.fail(f"the S3 test server could not start: {exc}")
    yield server
    server.stop()


_buckets = iter(range(1, 10**6))


@pytest.fixture
def s3_storage(settings, storage, object_store):
    """Stored files (media and gold) in a fresh bucket of the test server, as ``PARSEVAL_STORAGE=s3`` sets them.

    ``storage`` still points the var folders at the test's tmp_path, so a test can check nothing lands there.
    Yields ``(server, bucket)``."""
    from django.utils.functional import empty

    from annotations.models import gold_storage
    from tests.object_store import use_bucket

    bucket = f"parseval-test-{os.getpid()}-{next(_buckets)}"
    use_bucket(settings, object_store, bucket, storage / "cache")
    yield object_store, bucket
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
