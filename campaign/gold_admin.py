"""Admin for annotation guides (with their versions) and, read-only, the gold.

Registered by the campaign admin (the annotations app knows nothing of campaigns).

Gold lives apart from the corpus; the admin lists what was imported but
never offers it for editing: gold changes go through the corpus import.
"""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.http import FileResponse, Http404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from annotations.models import AnnotationGuide, GoldDocument, GuideVersion
from campaign import audit
from campaign.admin_scoping import OrganisedOnly, ReadOnly, ServesFile
from parseval.annotations.easy.schema import EasySchema


class GuideVersionForm(forms.ModelForm):
    class Meta:
        model = GuideVersion
        fields = "__all__"
        help_texts = {"schema": _("A JSON object as EasySchema.to_dict() writes it ({} for the EASY schema): "
                                '{"name": ..., "group_types": [...], "relation_types": [{"type": ..., "roles": [...]}, ...]}. '
                                "Checked when saved.")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.document and "document" in self.fields:
            # the file's link goes through the guide admin's view: media is not served
            url = reverse("admin:annotations_guideversion_document", args=[self.instance.pk])
            self.fields["document"].help_text = format_html('Current file: <a href="{}">download</a>', url)
            self.fields["document"].widget = forms.FileInput()

    def clean_schema(self):
        schema = self.cleaned_data.get("schema") or {}
        if schema:
            try:
                EasySchema.from_dict(schema)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise forms.ValidationError(_("Not a schema: %(error)s") % {"error": exc}) from None
        return schema


class GuideVersionInline(admin.StackedInline):
    model = GuideVersion
    form = GuideVersionForm
    extra = 0
    fields = ("version", "document", "notes", "schema", "created_at")
    readonly_fields = ("created_at",)


@admin.register(AnnotationGuide)
class AnnotationGuideAdmin(OrganisedOnly, admin.ModelAdmin):
    list_display = ("title", "campaign", "current_version")
    list_select_related = ("campaign",)
    search_fields = ("title", "campaign__name")
    inlines = [GuideVersionInline]

    @admin.display(description="current version")
    def current_version(self, obj):
        current = obj.current
        return current.version if current else "–"

    def get_urls(self):
        return [path("version/<int:pk>/document/", self.admin_site.admin_view(self.document_view),
                     name="annotations_guideversion_document")] + super().get_urls()

    def document_view(self, request, pk: int):
        version = GuideVersion.objects.filter(pk=pk, guide__in=self.get_queryset(request)).first()
        if version is None or not version.document or not self.has_view_permission(request, version.guide):
            raise Http404("No such guide document.")
        return FileResponse(version.document.open("rb"), as_attachment=True,
                            filename=version.document.name.rsplit("/", 1)[-1])


@admin.register(GoldDocument)
class GoldDocumentAdmin(ServesFile, ReadOnly, OrganisedOnly, admin.ModelAdmin):
    campaign_path = "document__campaign__"
    list_display = ("document", "campaign", "sentence_count", "sha256", "uploaded_at")
    list_select_related = ("document__campaign",)
    list_filter = (("document__campaign", admin.RelatedOnlyFieldListFilter),)
    # gold is stored apart, never served as media: the file comes through ServesFile's view, audited
    fields = readonly_fields = ("document", "file_link", "sha256", "sentence_count", "uploaded_at", "uploaded_by")

    @admin.display(description="campaign")
    def campaign(self, obj):
        return obj.document.campaign

    def file_downloaded(self, request, obj) -> None:
        audit.record(audit.GOLD_DOWNLOAD, campaign=obj.document.campaign, target=obj.document.name,
                     details={"document": obj.document.name, "via": "admin"}, request=request)
