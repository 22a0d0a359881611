"""Organiser lab pages (namespace ``lab``): the error-insertion lab and the leaf-ancestor word view."""
from django.urls import path

from evaluation.lab import views

app_name = "lab"

urlpatterns = [
    path("campaigns/<slug:slug>/error-lab/", views.error_lab, name="error_lab"),
    path("campaigns/<slug:slug>/error-lab/status.json", views.error_lab_status, name="error_lab_status"),
    path("runs/<int:pk>/leaf-ancestor/", views.leaf_ancestor, name="run_leaf_ancestor"),
]
