"""Results in the admin: read-only. A result is never edited; re-scoring adds one."""
from __future__ import annotations

import json

from django.contrib import admin
from django.db.models import Count, OuterRef, Subquery
from django.utils.html import format_html

from campaign.admin_scoping import OrganisedOnly

from .models import PublishedSnapshot, Result, ResultCell


class ReadOnly:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Result)
class ResultAdmin(ReadOnly, OrganisedOnly, admin.ModelAdmin):
    campaign_path = "run__campaign__"
    list_display = ("run", "campaign", "metric", "created_at", "scorer_version", "gold_short", "cell_count")
    list_filter = ("metric", ("run__campaign", admin.RelatedOnlyFieldListFilter), "scorer_version")
    search_fields = ("run__name", "run__team__name", "signature", "gold_sha256")
    date_hierarchy = "created_at"
    fields = ("run", "metric", "created_at", "signature", "scorer_version", "gold_sha256", "parameters", "document_head")
    readonly_fields = fields

    def get_queryset(self, request):
        # A correlated count per listed row, not a GROUP BY over every cell joined to every result.
        cells = ResultCell.objects.filter(result=OuterRef("pk")).order_by().values("result").annotate(n=Count("*"))
        return (super().get_queryset(request).select_related("run__team", "run__campaign")
                .defer("document").annotate(_cells=Subquery(cells.values("n"))))

    @admin.display(description="campaign")
    def campaign(self, obj):
        return obj.run.campaign

    @admin.display(description="gold SHA-256")
    def gold_short(self, obj):
        return obj.gold_sha256[:12]

    @admin.display(description="cells", ordering="_cells")
    def cell_count(self, obj):
        return obj._cells

    @admin.display(description="engine output (start)")
    def document_head(self, obj):
        text = json.dumps(Result.objects.filter(pk=obj.pk).values_list("document", flat=True).first(), indent=1)
        return format_html("<pre style='max-height:30em;overflow:auto'>{}</pre>", text[:20000])


@admin.register(PublishedSnapshot)
class PublishedSnapshotAdmin(ReadOnly, OrganisedOnly, admin.ModelAdmin):
    list_display = ("campaign", "created_at", "sha256", "run_count")
    list_filter = (("campaign", admin.RelatedOnlyFieldListFilter),)
    fields = ("campaign", "created_at", "sha256", "run_count")
    readonly_fields = fields

    @admin.display(description="runs")
    def run_count(self, obj):
        return len(obj.data.get("runs", []))
