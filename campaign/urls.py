"""The team portal (namespace ``portal``), mounted at /."""
from django.urls import path

from campaign.views import accounts, campaigns, runs

urlpatterns = [
    path("", campaigns.home, name="home"),
    path("signup/", accounts.signup, name="signup"),
    path("signup/sent/", accounts.signup_done, name="signup_done"),
    path("accounts/verify/<uidb64>/<token>/", accounts.verify_email, name="verify_email"),
    path("accounts/verify/again/", accounts.resend_verification, name="resend_verification"),
    path("campaigns/<slug:slug>/", campaigns.campaign_detail, name="campaign"),
    path("campaigns/<slug:slug>/team/create/", campaigns.team_create, name="team_create"),
    path("campaigns/<slug:slug>/team/join/", campaigns.team_join, name="team_join"),
    path("campaigns/<slug:slug>/team/invitations/", campaigns.invitation_create, name="invitation_create"),
    path("campaigns/<slug:slug>/team/invitations/<int:pk>/revoke/", campaigns.invitation_revoke,
         name="invitation_revoke"),
    path("campaigns/<slug:slug>/corpus.zip", campaigns.corpus_download, name="corpus_download"),
    path("campaigns/<slug:slug>/guide/", campaigns.guide_download, name="guide_download"),
    path("campaigns/<slug:slug>/upload/", runs.run_upload, name="run_upload"),
    path("runs/<int:pk>/", runs.run_detail, name="run"),
    path("runs/<int:pk>/status/", runs.run_status_json, name="run_status"),
    path("runs/<int:pk>/withdraw/", runs.run_withdraw, name="run_withdraw"),
    path("runs/<int:pk>/file/", runs.run_file, name="run_file"),
    path("runs/<int:pk>/converted.zip", runs.run_converted_file, name="run_converted_file"),
]
