"""The paired significance tests in the REST API: the same document as the results pages' significance.json."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.significance.views import significance_document
from evaluation.results.views import _campaign_or_404


class CampaignSignificance(APIView):
    """Run A minus run B on each figure, with its interval, p-value, Holm-adjusted p-value and verdict,
    between the runs the caller may see; ``computed`` is null until a worker has run the tests."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=[OpenApiParameter("figure", str, description="aggregation|layer|mode|match, "
                                                                          "e.g. micro|relations|HYP|EQUAL")],
                   responses={200: dict})
    def get(self, request, slug: str):
        campaign = _campaign_or_404(request.user, slug)
        return Response(significance_document(request.user, campaign, request.query_params.get("figure")))
