"""Organiser console (namespace ``console``); the Django admin sits beside it at /admin/."""
from django.urls import path

from campaign.console import views

app_name = "console"

urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/", views.dashboard, name="dashboard"),
    path("<slug:slug>/results.csv", views.export_results, name="export"),
    path("<slug:slug>/bundle/", views.build_bundle, name="build-bundle"),
]
