"""The API reference (ReDoc) works offline: it asks for nothing outside the site, no web font included."""
from __future__ import annotations

import re


def test_redoc_asks_nothing_of_the_internet(client, db):
    page = client.get("/api/redoc/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Redoc.init" in html or "<redoc" in html  # still the ReDoc page
    external = re.findall(r'(?:href|src)="(https?://[^"]+)"', html)
    assert external == [], external
    assert "fonts.googleapis.com" not in html and "fonts.gstatic.com" not in html
