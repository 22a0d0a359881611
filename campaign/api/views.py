"""API endpoints. Uploads and withdrawals go through the same services as the pages."""
from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from campaign import visibility
from campaign.models import Campaign
from campaign.rules import UploadRefused, WithdrawalRefused
from campaign.services.runs import NO_TEAM_MESSAGE, upload_run_from, withdraw_run
from campaign.results import latest_result, public_result_document
from campaign.throttles import AnonThrottle, TokenThrottle, upload_throttles
from campaign.views.runs import converted_response

from . import serializers
from .permissions import CanSeeScores, visible_campaign, visible_run


class TokenView(ObtainAuthToken):
    """DRF's token endpoint, throttled per address; django-axes locks out repeated failures."""

    throttle_classes = [TokenThrottle, AnonThrottle]


class CampaignList(generics.ListAPIView):
    serializer_class = serializers.CampaignSerializer
    permission_classes = [AllowAny]

    def get_queryset(self):
        user = self.request.user
        ids = [c.pk for c in visibility.visible_campaigns(user) if visibility.can_see_campaign(user, c)]
        return Campaign.objects.filter(pk__in=ids).order_by("-created_at")


class CampaignDetail(generics.RetrieveAPIView):
    serializer_class = serializers.CampaignDetailSerializer
    permission_classes = [AllowAny]

    def get_object(self):
        return visible_campaign(self.request, self.kwargs["slug"])


class CampaignRuns(generics.ListAPIView):
    """GET: the runs of your team (all runs for organisers). POST (multipart): upload a run."""

    serializer_class = serializers.RunSerializer
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]

    def get_throttles(self):
        if self.request.method == "POST":
            return upload_throttles()
        return super().get_throttles()

    def get_queryset(self):
        campaign = visible_campaign(self.request, self.kwargs["slug"])
        return visibility.visible_runs(self.request.user, campaign).select_related("campaign", "team") \
            .order_by("-uploaded_at", "-pk")

    @extend_schema(request={"multipart/form-data": serializers.RunUploadSerializer},
                   responses={201: serializers.RunDetailSerializer})
    def post(self, request, slug: str):
        campaign = visible_campaign(request, slug)
        team = visibility.team_of(request.user, campaign)
        if team is None:
            raise PermissionDenied(str(NO_TEAM_MESSAGE))
        form = serializers.RunUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            run = upload_run_from(form.validated_data, campaign=campaign, team=team, user=request.user,
                                  request=request)
        except UploadRefused as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        run.refresh_from_db()
        body = serializers.RunDetailSerializer(run, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)


class RunDetail(generics.RetrieveAPIView):
    """A run's status, progress and validation report (poll this)."""

    serializer_class = serializers.RunDetailSerializer
    permission_classes = [IsAuthenticated]

    def get_object(self):
        return visible_run(self.request, self.kwargs["pk"])


class RunResults(APIView):
    """The latest result of a run, once its team may see it."""

    permission_classes = [IsAuthenticated, CanSeeScores]

    @extend_schema(responses={200: dict})
    def get(self, request, pk: int):
        run = visible_run(request, pk)
        self.check_object_permissions(request, run)
        result = latest_result(run)
        if result is None:
            raise Http404("This run has no result yet.")
        body = result.document if visibility.is_organiser(request.user, run.campaign) \
            else public_result_document(result)
        shown_at = result.created_at if visibility.can_see_run_scoring_time(request.user, run) else None
        return Response({"run": run.pk, "created_at": shown_at, "metric": result.metric,
                         "history": run.results.count(), "result": body})


class RunConverted(APIView):
    """The EASY XML (a zip) a CoNLL-U run was converted to on validation; 404 for any other run."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "application/zip"): bytes})
    def get(self, request, pk: int):
        run = visible_run(request, pk)
        if not run.converted_file:
            raise Http404("This run has no converted EASY XML.")
        return converted_response(run, request)


class RunWithdraw(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: serializers.RunDetailSerializer})
    def post(self, request, pk: int):
        run = visible_run(request, pk)
        try:
            withdraw_run(run, user=request.user, request=request)
        except WithdrawalRefused as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(serializers.RunDetailSerializer(run, context={"request": request}).data)
