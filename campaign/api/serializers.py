"""API representations. Nothing here carries gold or test-subset membership."""
from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaign import tracks
from campaign.models import Campaign, Genre, Run
from campaign.services.runs import run_status, validation_report_for


class GenreSerializer(serializers.ModelSerializer):
    documents = serializers.IntegerField(source="documents.count", read_only=True)

    class Meta:
        model = Genre
        fields = ["code", "name", "description", "documents"]


class CampaignSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:campaign-detail", lookup_field="slug")

    class Meta:
        model = Campaign
        fields = ["url", "slug", "name", "kind", "state", "language", "deadline"]


class CampaignDetailSerializer(CampaignSerializer):
    genres = GenreSerializer(many=True, read_only=True)
    documents = serializers.SerializerMethodField()
    accepts_runs = serializers.BooleanField(read_only=True)
    runs_url = serializers.SerializerMethodField()

    class Meta(CampaignSerializer.Meta):
        fields = CampaignSerializer.Meta.fields + [
            "description", "genres", "documents", "accepts_runs", "runs_per_team", "max_upload_bytes", "runs_url",
        ]

    def get_documents(self, campaign) -> list[dict]:
        return [{"name": d.name, "genre": d.genre.code, "sentences": d.sentence_count, "words": d.word_count}
                for d in campaign.documents.select_related("genre")]

    def get_runs_url(self, campaign) -> str:
        request = self.context.get("request")
        url = reverse("api:campaign-runs", kwargs={"slug": campaign.slug})
        return request.build_absolute_uri(url) if request else url


class RunSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:run-detail")
    campaign = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    finished = serializers.SerializerMethodField()
    withdrawn = serializers.SerializerMethodField()
    converted_url = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["url", "id", "campaign", "team", "name", "system_description", "scope", "track", "original_filename",
                  "sha256", "size", "status", "status_reason", "progress", "finished", "withdrawn",
                  "uploaded_at", "status_changed_at", "sealed", "converter", "converted_url"]
        read_only_fields = fields

    # The status fields as the requesting user may see them (see campaign.services.runs.run_status).
    status = serializers.SerializerMethodField()
    status_reason = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    status_changed_at = serializers.SerializerMethodField(
        help_text=_("When the status last changed. Left out (never null) where the viewer may not see it; "
                    "'sealed' then says why."))
    sealed = serializers.SerializerMethodField(
        help_text=_("The status fields left out of this answer, each with the reason (only when there are any)."))

    def _shown(self, run) -> dict:
        request = self.context.get("request")
        cache = self.context.setdefault("_run_status", {})
        if run.pk not in cache:
            cache[run.pk] = run_status(run, request.user if request else AnonymousUser())
        return cache[run.pk]

    def get_status(self, run) -> str:
        return self._shown(run)["status"]

    def get_status_reason(self, run) -> str:
        return self._shown(run)["status_reason"]

    def get_progress(self, run) -> int:
        return self._shown(run)["progress"]

    def get_status_changed_at(self, run) -> str | None:
        return self._shown(run).get("status_changed_at")

    @extend_schema_field({"type": "object", "additionalProperties": {"type": "string"}})
    def get_sealed(self, run) -> dict | None:
        return self._shown(run).get("sealed")

    def to_representation(self, run):
        data = super().to_representation(run)
        if "status_changed_at" not in self._shown(run):  # a sealed time is left out, not sent as null
            data.pop("status_changed_at", None)
        if "sealed" not in self._shown(run):
            data.pop("sealed", None)
        return data

    def get_finished(self, run) -> bool:
        return self._shown(run)["finished"]

    def get_withdrawn(self, run) -> bool:
        return run.withdrawn_at is not None

    def get_converted_url(self, run) -> str | None:
        """Where the EASY XML a CoNLL-U run was converted to is downloaded (None for any other run)."""
        if not run.converted_file:
            return None
        url = reverse("api:run-converted", kwargs={"pk": run.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


class RunDetailSerializer(RunSerializer):
    validation_report = serializers.SerializerMethodField()

    def get_validation_report(self, run) -> dict:
        request = self.context.get("request")
        return validation_report_for(run, request.user if request else AnonymousUser())

    class Meta(RunSerializer.Meta):
        fields = RunSerializer.Meta.fields + ["validation_report"]
        read_only_fields = fields


@extend_schema_field(OpenApiTypes.BINARY)
class UploadedFileField(serializers.FileField):
    """A file sent in a multipart request: binary in the OpenAPI schema, so that Swagger UI offers a file
    picker (a plain FileField is described as a URI, which it is only in responses)."""


class RunUploadSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    system_description = serializers.CharField(required=False, allow_blank=True, default="")
    scope = serializers.ChoiceField(choices=Run.Scope.choices, default=Run.Scope.TEST)
    track = serializers.ChoiceField(choices=[], required=False, allow_blank=True, default="",
                                    help_text=_("Dependency campaigns: gold-tokens or raw-text; empty for the "
                                              "campaign's first accepted track"))
    file = UploadedFileField(help_text=_("One run file in the campaign's format (EASY .xml, or CoNLL-U .conllu where an EASY "
                                            "campaign takes them, converted on validation; trees .mrg/.tree/.txt; CoNLL-U .conllu), "
                                            "or a .zip / .tar.gz with one such file per corpus document, named after it"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["track"].choices = tracks.choices()  # the registered kinds' tracks
