"""What every admin of the organiser console shares: rows limited to the campaigns the user organises, files
served through the admin, read-only admins.

Apart from :mod:`campaign.admin` so that the guide and gold admin (:mod:`campaign.gold_admin`), which the campaign
admin registers, and the evaluation app's admin use them without importing the admin that imports them.
"""
from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist
from django.http import FileResponse, Http404
from django.urls import path, reverse
from django.utils.html import format_html

from .models import Campaign


def campaign_path_of(model) -> str | None:
    """The lookup from ``model`` to its campaign (``"team__campaign__"``), ``""`` for Campaign, None if none."""
    if model is Campaign:
        return ""
    for name in ("campaign", "document", "run", "team", "result"):
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            continue
        if field.many_to_one:
            rest = campaign_path_of(field.related_model)
            if rest is not None:
                return f"{name}__{rest}"
    return None


def organised_rows(queryset, user, path: str):
    """``queryset`` limited to the campaigns ``user`` organises (all for superusers).

    A subquery rather than a join through the organisers: no duplicate rows, so no
    DISTINCT over every column (JSON documents included) on big tables.
    """
    if user.is_superuser:
        return queryset
    organised = Campaign.objects.filter(organisers=user).values("pk")
    return queryset.filter(**{f"{path}in" if path else "pk__in": organised})


class OrganisedOnly:
    """Restricts a ModelAdmin, its foreign-key widgets and its list filters to the campaigns the user organises."""

    campaign_path = "campaign__"

    def get_queryset(self, request):
        return organised_rows(super().get_queryset(request), request.user, self.campaign_path)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        path = campaign_path_of(db_field.related_model)
        if path is not None and not request.user.is_superuser:
            kwargs["queryset"] = organised_rows(db_field.related_model._default_manager.all(), request.user, path)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ServesFile:
    """Admin mixin: the ``file_field`` of a row is offered through a view of this admin.

    Media and gold are never served as static files; the view hands the file only to whom this
    admin's queryset shows the row (the campaign's organisers), so no link leads to a 404 or 403.
    """

    file_field = "file"

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_file"
        return [path("<int:pk>/file/", self.admin_site.admin_view(self.file_view), name=name)] + super().get_urls()

    @admin.display(description="file")
    def file_link(self, obj):
        field = getattr(obj, self.file_field)
        if not field:
            return "–"
        url = reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_file", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, field.name.rsplit("/", 1)[-1])

    def file_view(self, request, pk: int):
        obj = self.get_queryset(request).filter(pk=pk).first()
        if obj is None or not self.has_view_permission(request, obj) or not getattr(obj, self.file_field):
            raise Http404("No such file.")
        self.file_downloaded(request, obj)
        field = getattr(obj, self.file_field)
        return FileResponse(field.open("rb"), as_attachment=True, filename=field.name.rsplit("/", 1)[-1])

    def file_downloaded(self, request, obj) -> None:
        """Hook: record the download (the gold's admin writes the audit log)."""


class ReadOnly:
    """Admin mixin for records that must not be added, changed or deleted by hand (gold, audit log)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
