"""The web app without Redis or the database: cache misses, throttling fails open, 503 JSON with Retry-After.

Redis is a real server here: one of this test's own on a spare port, stopped mid-test;
the shared one is never touched.
"""
from __future__ import annotations

import sqlite3
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import override_settings
from rest_framework.test import APIClient

from tests.integration.test_faults import OwnRedis


@pytest.fixture
def redis_cache(tmp_path):
    """The production cache settings (config.settings with CACHE_URL), on a Redis of this test."""
    server = OwnRedis(tmp_path)
    server.start()
    config = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": f"redis://127.0.0.1:{server.port}/1",
                          "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5}}}
    with override_settings(CACHES=config):  # Django rebuilds the cache handlers on this signal
        yield server
    server.stop()


def test_the_cache_setting_fails_open(monkeypatch):
    """What settings.py builds from CACHE_URL: the same options as the fixture above."""
    import importlib

    import config.settings as project_settings

    monkeypatch.setenv("CACHE_URL", "redis://127.0.0.1:1/1")
    try:
        built = importlib.reload(project_settings).CACHES["default"]
    finally:
        monkeypatch.delenv("CACHE_URL")
        importlib.reload(project_settings)
    assert built["BACKEND"] == "django_redis.cache.RedisCache" and built["OPTIONS"]["IGNORE_EXCEPTIONS"] is True


def test_with_redis_gone_the_api_still_answers_and_throttling_fails_open(campaign, redis_cache, monkeypatch):
    from rest_framework.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "2/minute"})
    api = APIClient()
    # With Redis up, the third anonymous request in a minute is throttled: the cache counts.
    assert [api.get("/api/campaigns/").status_code for _ in range(3)] == [200, 200, 429]
    redis_cache.stop()
    # Redis away: the counts cannot be read, the requests are let through (fail open), not a 500.
    assert [api.get("/api/campaigns/").status_code for _ in range(3)] == [200, 200, 200]


def test_the_database_gone_gives_json_503_with_retry_after_on_the_api(campaign):
    api = APIClient()
    with mock.patch("campaign.api.views.CampaignList.get_queryset",
                    side_effect=OperationalError("could not connect to server")):
        response = api.get("/api/campaigns/")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == "30"
    assert response.json() == {"detail": "The service is temporarily unavailable; try again shortly.",
                               "retry_after": 30}


def test_a_failure_before_any_view_also_answers_503(campaign, client):
    """Raised in a middleware (the session store is the database): handler500 turns it into a 503."""
    client.raise_request_exception = False
    with mock.patch("django.contrib.sessions.backends.db.SessionStore.load",
                    side_effect=OperationalError("the database system is starting up")):
        client.cookies["sessionid"] = "x" * 32
        page = client.get(f"/campaigns/{campaign.slug}/")
        api = client.get("/api/campaigns/")
    assert page.status_code == 503 and page["Retry-After"] == "30" and b"Temporarily unavailable" in page.content
    assert api.status_code == 503 and api.json()["retry_after"] == 30


def test_other_api_errors_are_json_too(campaign, client):
    client.raise_request_exception = False
    with mock.patch("campaign.api.views.CampaignList.get_queryset", side_effect=KeyError("bug")):
        response = client.get("/api/campaigns/")
    assert response.status_code == 500 and response.json() == {"detail": "Internal server error."}


def test_the_embedded_sqlite_default_uses_wal_a_busy_timeout_and_immediate_transactions(tmp_path):
    """The settings module as the embedded default reads it (no DATABASE_URL), on a real SQLite file."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(PARSEVAL_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    code = ("import django; django.setup()\n"
            "from django.db import connection, transaction\n"
            "with transaction.atomic():\n"
            "    connection.cursor().execute('CREATE TABLE t (x int)')\n"
            "c = connection.cursor(); c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])\n"
            "c.execute('PRAGMA busy_timeout'); print(c.fetchone()[0])\n"
            "print(connection.settings_dict['OPTIONS']['transaction_mode'])\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["wal", "20000", "IMMEDIATE"]
    # WAL is a property of the file: another connection sees it too
    assert sqlite3.connect(tmp_path / "db.sqlite3").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _upload(api, campaign):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests import factories

    return api.post(f"/api/campaigns/{campaign.slug}/runs/",
                    {"name": "run", "file": SimpleUploadedFile("run.zip", factories.gold_run_zip())},
                    format="multipart")


def _kept_files(root) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "gold" not in p.parts
                  and "corpus" not in str(p))


@pytest.fixture
def team_api(campaign, team_a, alice):
    api = APIClient()
    api.force_authenticate(alice)
    return api


def test_a_staging_directory_that_cannot_be_written_gives_503_and_keeps_nothing(campaign, team_api, settings):
    """A real fault: the staging directory's path is taken by a file, so no staging file can be made there."""
    from pathlib import Path

    from campaign.models import Run
    from campaign.services.runs import staging_dir

    staging = staging_dir()
    staging.rmdir()
    staging.write_text("in the way")
    media_before = _kept_files(Path(settings.MEDIA_ROOT))
    response = _upload(team_api, campaign)
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == "30" and response.json()["retry_after"] == 30
    assert not Run.objects.exists()
    assert _kept_files(Path(settings.MEDIA_ROOT)) == media_before
    staging.unlink()  # the fault clears: the same upload is accepted
    assert _upload(team_api, campaign).status_code == 201


@pytest.mark.parametrize("where", ["django.core.files.storage.FileSystemStorage._save",
                                   "campaign.services.runs.unpack"])
def test_storage_that_refuses_a_write_gives_503_and_keeps_nothing(campaign, team_api, settings, where):
    from pathlib import Path

    from campaign.models import Run
    from campaign.services.runs import staging_dir

    media_before = _kept_files(Path(settings.MEDIA_ROOT))
    with mock.patch(where, side_effect=PermissionError(13, "Permission denied")):
        response = _upload(team_api, campaign)
    assert response.status_code == 503 and response["Retry-After"] == "30"
    assert response["Content-Type"] == "application/json"
    assert not Run.objects.exists()
    assert _kept_files(Path(settings.MEDIA_ROOT)) == media_before
    assert list(staging_dir().iterdir()) == []  # neither the staged upload nor an unpack folder stays
