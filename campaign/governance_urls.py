"""Governance pages (namespace ``governance``): include with
``path("governance/", include(("campaign.governance_urls", "governance"), namespace="governance"))``."""
from django.urls import path

from . import audit_views, governance_views

app_name = "governance"

urlpatterns = [
    path("campaigns/<slug:slug>/audit/", audit_views.audit_log, name="audit_log"),
    path("campaigns/<slug:slug>/audit.csv", audit_views.audit_csv, name="audit_csv"),
    path("campaigns/<slug:slug>/state/", governance_views.campaign_state, name="state"),
    path("campaigns/<slug:slug>/dev-sample.zip", governance_views.dev_sample_download, name="dev_sample"),
    path("campaigns/<slug:slug>/gold.zip", governance_views.gold_download, name="gold"),
    path("teams/<int:pk>/publication/", governance_views.team_publication, name="team_publication"),
    path("runs/<int:pk>/diagnostics/", governance_views.run_diagnostics, name="diagnostics"),
]
