"""The API documentation is browsable offline: Swagger UI and Redoc come from the sidecar package's static files."""
from __future__ import annotations

from django.contrib.staticfiles import finders


def test_swagger_ui_and_redoc_use_no_cdn(client, db):
    for url, asset in (("/api/docs/", "swagger-ui-dist/swagger-ui-bundle.js"), ("/api/redoc/", "redoc/bundles/redoc.standalone.js")):
        page = client.get(url).content.decode()
        assert "cdn.jsdelivr" not in page and "unpkg.com" not in page
        assert f"drf_spectacular_sidecar/{asset}" in page
        assert finders.find(f"drf_spectacular_sidecar/{asset}") is not None  # served from the package itself
