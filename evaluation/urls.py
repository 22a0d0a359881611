"""Results pages (namespace ``results``)."""
from django.urls import path

from . import views

app_name = "results"

urlpatterns = [
    path("<slug:slug>/", views.campaign_results, name="campaign"),
    path("<slug:slug>/data.json", views.campaign_results_json, name="campaign-json"),
    path("<slug:slug>/runs/<int:pk>/", views.run_results, name="run"),
]
