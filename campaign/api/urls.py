"""REST API routes (namespace ``api``), mounted at /api/."""
from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from . import views

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("token/", views.TokenView.as_view(), name="token"),
    path("campaigns/", views.CampaignList.as_view(), name="campaign-list"),
    path("campaigns/<slug:slug>/", views.CampaignDetail.as_view(), name="campaign-detail"),
    path("campaigns/<slug:slug>/runs/", views.CampaignRuns.as_view(), name="campaign-runs"),
    path("runs/<int:pk>/", views.RunDetail.as_view(), name="run-detail"),
    path("runs/<int:pk>/results/", views.RunResults.as_view(), name="run-results"),
    path("runs/<int:pk>/withdraw/", views.RunWithdraw.as_view(), name="run-withdraw"),
    path("runs/<int:pk>/converted.zip", views.RunConverted.as_view(), name="run-converted"),
]
