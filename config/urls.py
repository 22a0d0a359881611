"""Top-level URLs. Each face of the product owns its own URL module."""
from django.contrib import admin
from django.contrib.auth import urls as auth_urls
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from campaign.views.accounts import PasswordResetView
from config import docs
from evaluation.significance.api import CampaignSignificance

urlpatterns = [
    path("admin/", admin.site.urls),
    # Django's set_language view: the language switch on every page posts here (docs/languages.md).
    path("i18n/", include("django.conf.urls.i18n")),
    # Browsers ask for /favicon.ico on pages that name no icon (admin, API, plain responses).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    # Django's log-in, log-out and password views; the reset request is ours, throttled (campaign.views.accounts)
    path("accounts/password_reset/", PasswordResetView.as_view(), name="password_reset"),
    path("accounts/", include([p for p in auth_urls.urlpatterns if p.name != "password_reset"])),
    # REST API: campaigns, run upload and status, results.
    path("api/campaigns/<slug:slug>/significance/", CampaignSignificance.as_view(), name="api-significance"),
    # Browsable API documentation, served from drf-spectacular-sidecar (no CDN: works offline).
    # (split view: its start-up script is a file of its own, as the Content-Security-Policy wants)
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="api-redoc"),
    path("api/", include(("campaign.api.urls", "api"), namespace="api")),
    # The project's documentation (docs/*.md), rendered.
    path("docs/", include(([path("", docs.index, name="index"), path("<path:name>", docs.page, name="page")], "docs"),
                          namespace="docs")),
    # Organiser console beside the admin: dashboards, CSV export.
    path("console/", include(("campaign.console_urls", "console"), namespace="console")),
    # Life cycle, subsets, audit log, diagnostics, publication opt-in.
    path("governance/", include(("campaign.governance_urls", "governance"), namespace="governance")),
    # Organiser lab: error-insertion lab, leaf-ancestor word view.
    path("lab/", include(("evaluation.lab.urls", "lab"), namespace="lab")),
    # Published and released results.
    path("results/", include(("evaluation.urls", "results"), namespace="results")),
    # Team upload portal and public campaign pages.
    path("", include(("campaign.urls", "portal"), namespace="portal")),
]

# Hidden and missing objects answer alike (config.not_found).
handler404 = "config.not_found.not_found"
# A database or Redis outage answers 503 with Retry-After (JSON for the API), not an HTML 500.
handler500 = "config.unavailable.server_error"
