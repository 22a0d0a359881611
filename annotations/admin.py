"""Admin for annotation guides (with their versions) and, read-only, the gold.

Gold lives apart from the corpus; the admin lists what was imported but
never offers it for editing: gold changes go through the corpus import.
"""
from __future__ import annotations

from django.contrib import admin

from campaign.admin import OrganisedOnly, ReadOnly

from .models import AnnotationGuide, GoldDocument, GuideVersion


class GuideVersionInline(admin.StackedInline):
    model = GuideVersion
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


@admin.register(GoldDocument)
class GoldDocumentAdmin(ReadOnly, OrganisedOnly, admin.ModelAdmin):
    campaign_path = "document__campaign__"
    list_display = ("document", "campaign", "sentence_count", "sha256", "uploaded_at")
    list_select_related = ("document__campaign",)
    list_filter = ("document__campaign",)
    readonly_fields = ("document", "file", "sha256", "sentence_count", "uploaded_at", "uploaded_by")

    @admin.display(description="campaign")
    def campaign(self, obj):
        return obj.document.campaign
