"""Every JSON route answers a database outage in JSON (503, ``Retry-After``), never with the HTML page.

The database really refuses here: the connection is pointed at a loopback port nobody
listens on (or, on SQLite, at a file that cannot be opened), so each request meets the
error the driver raises. The routes are read from the URL configuration, so a JSON route
added later is covered too: the API, every ``*.json`` document, and a page route asked for
JSON (the run page's status polling sends ``Accept: application/json``).
"""
from __future__ import annotations

import re
import socket

import pytest
from django.db import connections
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLE = {"slug": "a-campaign", "int": "1", "str": "x", "path": "x.md"}


def routes(patterns=None, prefix: str = "") -> list[str]:
    """Every route of the URL configuration as a concrete path (converters filled with sample values)."""
    found = []
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        route = getattr(entry.pattern, "_route", None)
        if route is None:  # a regular expression (the admin's catch-all): not a JSON route
            continue
        if isinstance(entry, URLResolver):
            found += routes(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            found.append("/" + re.sub(r"<(?:(\w+):)?\w+>", lambda m: SAMPLE[m.group(1) or "str"], prefix + route))
    return found


def json_routes() -> list[str]:
    return sorted(r for r in routes() if r.startswith("/api/") or r.endswith(".json"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def database_refusing(transactional_db):
    connection = connections["default"]
    connection.close()
    saved = dict(connection.settings_dict)
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent/parseval/db.sqlite3"
    else:
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def client_with_a_session() -> Client:
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "s" * 32  # a signed-in visitor: the session is read from the database
    return client


def assert_json_503(response, path: str) -> None:
    assert response.status_code == 503, (path, response.status_code, response.content[:200])
    assert response["Content-Type"] == "application/json", (path, response["Content-Type"], response.content[:200])
    assert response["Retry-After"] == "30", path
    assert response.json()["retry_after"] == 30, path


def test_the_json_documents_of_the_pages_are_among_the_routes_read():
    found = json_routes()
    for path in ("/results/a-campaign/data.json", "/results/a-campaign/significance.json",
                 "/lab/campaigns/a-campaign/error-lab/status.json", "/api/campaigns/a-campaign/runs/"):
        assert path in found


def test_every_json_route_answers_json_503_when_the_database_refuses(database_refusing):
    client = client_with_a_session()
    answered = {}
    for path in json_routes():
        response = client.get(path)
        answered[path] = response.status_code
        if response.status_code == 503:
            assert_json_503(response, path)
        else:  # a route that needs no database (the API schema) answers as usual, never an HTML error page
            assert response.status_code < 500 and "text/html" not in response.get("Content-Type", ""), \
                (path, response.status_code, response.content[:200])
    for path in ("/results/a-campaign/data.json", "/results/a-campaign/significance.json",
                 "/lab/campaigns/a-campaign/error-lab/status.json", "/api/campaigns/"):
        assert answered[path] == 503, answered


def test_a_page_route_asked_for_json_answers_json_and_a_browser_gets_the_page(database_refusing):
    client = client_with_a_session()
    polled = client.get("/runs/1/status/", headers={"Accept": "application/json"})
    assert_json_503(polled, "/runs/1/status/")
    page = client.get("/campaigns/a-campaign/", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 503 and page["Retry-After"] == "30"
    assert page["Content-Type"].startswith("text/html")
