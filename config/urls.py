"""Top-level URLs. Each face of the product owns its own URL module."""
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # REST API: campaigns, run upload and status, results.
    path("api/", include(("campaign.api.urls", "api"), namespace="api")),
    # Organiser console beside the admin: dashboards, CSV export.
    path("console/", include(("campaign.console_urls", "console"), namespace="console")),
    # Life cycle, subsets, audit log, diagnostics, publication opt-in.
    path("governance/", include(("campaign.governance_urls", "governance"), namespace="governance")),
    # Organiser lab: error-insertion lab, leaf-ancestor word view.
    path("lab/", include(("evaluation.lab_urls", "lab"), namespace="lab")),
    # Published and released results.
    path("results/", include(("evaluation.urls", "results"), namespace="results")),
    # Team upload portal and public campaign pages.
    path("", include(("campaign.urls", "portal"), namespace="portal")),
]
