"""The Django admin, organised as the organiser console.

Organisers are staff accounts; a non-superuser sees and changes only the
campaigns they organise. Run actions go through services that check the
organiser again and write the audit log; the audit log itself is read-only
for everyone.
"""
from __future__ import annotations

from django import forms
from django.db import models
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from parseval.annotations.errors import InputError

from . import audit, kinds, visibility
from . import gold_admin  # noqa: F401  (registers guides and gold, with the same organiser scoping)
from .admin_forms import CampaignAdminForm, CorpusImportForm
from .admin_scoping import OrganisedOnly, ReadOnly, ServesFile
from .console import actions
from .services import teams
from .models import AuditEntry, Campaign, CorpusDocument, Genre, Membership, Run, Team
from campaign.services.corpus_upload import import_uploaded_corpus

admin.site.site_header = "Parser evaluation campaigns — organiser console"
admin.site.site_title = "Organiser console"
admin.site.index_title = "Campaigns, corpus, runs and results"


class GenreInline(admin.TabularInline):
    model = Genre
    extra = 0
    fields = ("order", "code", "name", "description")
    # The admin's default textarea (40 columns by 10 rows) made the campaign page 1,688 px wide at 1280.
    formfield_overrides = {models.TextField: {"widget": forms.Textarea(attrs={"rows": 2, "cols": 30})},
                           models.CharField: {"widget": forms.TextInput(attrs={"size": 16})}}


class CorpusDocumentInline(admin.TabularInline):
    model = CorpusDocument
    extra = 0
    fields = ("name", "genre", "sentence_count", "word_count", "checksum")
    readonly_fields = ("name", "genre", "sentence_count", "word_count", "checksum")
    show_change_link = True
    can_delete = False
    ordering = ("order", "name")

    @admin.display(description="SHA-256")
    def checksum(self, document):
        # The first 16 hex digits in the table (the whole in the tooltip and on the document's own page).
        return format_html('<code title="{}">{}…</code>', document.sha256, document.sha256[:16])

    def has_add_permission(self, request, obj=None):
        return False  # documents come from the corpus import, with their gold stored apart


@admin.register(Campaign)
class CampaignAdmin(OrganisedOnly, admin.ModelAdmin):
    campaign_path = ""
    form = CampaignAdminForm
    list_display = ("name", "slug", "kind", "state", "deadline", "team_count", "console_link")
    list_filter = ("state", "kind")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    filter_horizontal = ("organisers",)
    readonly_fields = ("state", "guide_versions", "corpus_import", "created_at", "updated_at")
    inlines = [GenreInline, CorpusDocumentInline]
    fieldsets = (
        (None, {"fields": ("name", "slug", "description", "language", "page_language", "kind", "state", "organisers")}),
        ("Corpus", {"fields": ("corpus_import",)}),
        ("Schedule", {"fields": ("opens_at", "deadline", "results_release_at", "publish_at", "gold_release_at", "archive_at")}),
        ("Rules", {"fields": ("runs_per_team", "uploads_per_day", "withdrawals_per_day", "invalid_uploads_per_day",
                              "max_upload_bytes", "publication", "team_admission",
                              "corpus_public", "dev_sample_public", "bundle_run_files", "metrics")}),
        ("Secrecy of the test set", {"fields": ("team_figures", "min_genre_sentences"), "description":
            "What a team sees of its own test runs between the results release and the gold release. Rates only "
            "keep membership hidden; full figures (exact counts per genre and type) let a crafted run read "
            "which sentences are scored from its own counts (docs/threat-model.md)."}),
        ("Annotation guide", {"fields": ("guide_versions",)}),
        (None, {"fields": ("created_at", "updated_at")}),
    )

    def get_queryset(self, request):
        from django.db.models import Count

        return super().get_queryset(request).annotate(_teams=Count("teams", distinct=True))

    def has_change_permission(self, request, obj=None):
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or visibility.can_manage_campaign(request.user, obj))

    def has_delete_permission(self, request, obj=None):
        # Campaigns carry an append-only audit log; they are archived, not deleted.
        return False

    @admin.display(description="teams", ordering="_teams")
    def team_count(self, obj):
        return obj._teams

    @admin.display(description="console")
    def console_link(self, obj):
        return format_html('<a href="{}">dashboard</a>', reverse("console:dashboard", args=[obj.slug]))

    @admin.display(description="import")
    def corpus_import(self, obj):
        if not obj or not obj.pk:
            return "Save the campaign first, then import its corpus here."
        return format_html('<a href="{}">Import a corpus (upload a zip of gold documents)</a>',
                           reverse("admin:campaign_campaign_import", args=[obj.pk]))

    def get_urls(self):
        return [path("<int:pk>/import-corpus/", self.admin_site.admin_view(self.import_view),
                     name="campaign_campaign_import")] + super().get_urls()

    def import_view(self, request, pk: int):
        from django.shortcuts import redirect
        from django.template.response import TemplateResponse

        campaign = self.get_queryset(request).filter(pk=pk).first()
        if campaign is None or not self.has_change_permission(request, campaign):
            raise Http404("No such campaign.")
        form = CorpusImportForm(request.POST or None, request.FILES or None)
        problems: list = []
        if request.method == "POST" and form.is_valid():
            try:
                summary = import_uploaded_corpus(campaign, form.cleaned_data["archive"],
                                                 subset=form.cleaned_data["subset"],
                                                 genres=form.cleaned_data["genres"], actor=request.user)
            except InputError as exc:
                problems = exc.problems
            else:
                self.message_user(request, f"Imported {summary.documents} document(s), {summary.sentences} "
                                           f"sentence(s).", messages.SUCCESS)
                return redirect("admin:campaign_campaign_change", campaign.pk)
        return TemplateResponse(request, "admin/campaign/import_corpus.html", {
            **self.admin_site.each_context(request), "campaign": campaign, "form": form, "opts": self.opts,
            "problems": [str(p) for p in problems[:50]], "problem_count": len(problems),
            "file_label": kinds.for_campaign(campaign).file_label, "title": "Import a corpus",
        })

    @admin.display(description="guide versions")
    def guide_versions(self, obj):
        guide = getattr(obj, "guide", None) if obj and obj.pk else None
        if guide is None:
            add = reverse("admin:annotations_annotationguide_add")
            return format_html('No guide yet. <a href="{}?campaign={}">Add the guide</a>', add, obj.pk if obj else "")
        change = reverse("admin:annotations_annotationguide_change", args=[guide.pk])
        versions = format_html_join(", ", "v{} ({})", ((v.version, f"{v.created_at:%Y-%m-%d}") for v in guide.versions.all()))
        return format_html('{} — <a href="{}">edit the guide and its versions</a>', versions or "no version", change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if not change:
            # after the many-to-many save, which sets the organisers to the form's list
            form.instance.organisers.add(request.user)
        # Settings changes are organiser actions too: the audit log says which fields moved.
        changed = list(form.changed_data) + [
            f"{fs.model._meta.verbose_name_plural}" for fs in formsets if fs.has_changed()
        ]
        if changed or not change:
            audit.record("campaign.change" if change else "campaign.create", campaign=form.instance,
                         target=form.instance.slug, details={"changed": changed}, request=request)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    fields = ("user", "role", "joined_at")
    readonly_fields = ("joined_at",)
    autocomplete_fields = ("user",)


@admin.register(Team)
class TeamAdmin(OrganisedOnly, admin.ModelAdmin):
    list_display = ("name", "code", "campaign", "affiliation", "admitted", "show_name", "member_list")
    list_filter = (("campaign", admin.RelatedOnlyFieldListFilter), "admitted")
    # admitted changes only through the action below, which is audited
    readonly_fields = ("admitted",)
    actions = ["admit_teams"]
    search_fields = ("name", "code", "affiliation", "members__username")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [MembershipInline]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("campaign").prefetch_related("memberships__user")

    @admin.display(description="members")
    def member_list(self, obj):
        return ", ".join(m.user.get_username() for m in obj.memberships.all())

    @admin.action(description="Admit the selected teams (campaigns with organiser approval)", permissions=["change"])
    def admit_teams(self, request, queryset):
        done = teams.admit_teams(queryset.select_related("campaign"), request.user, request=request)
        self.message_user(request, f"{done} team(s) admitted.")


@admin.register(CorpusDocument)
class CorpusDocumentAdmin(ServesFile, OrganisedOnly, admin.ModelAdmin):
    list_display = ("name", "campaign", "genre", "sentence_count", "word_count")
    list_filter = (("campaign", admin.RelatedOnlyFieldListFilter), ("genre", admin.RelatedOnlyFieldListFilter))
    search_fields = ("name",)
    file_field = "text_file"
    readonly_fields = ("campaign", "name", "file_link", "sha256", "sentence_count", "word_count")
    fields = ("campaign", "genre", "name", "order", "file_link", "sha256", "sentence_count", "word_count")

    def has_add_permission(self, request):
        return False


class RunActionForm(ActionForm):
    reason = forms.CharField(required=False, label=_("Reason (for mark failed / disqualify)"),
                             widget=forms.TextInput(attrs={"size": 40}))


@admin.register(Run)
class RunAdmin(OrganisedOnly, admin.ModelAdmin):
    list_display = ("name", "team", "campaign", "scope", "track", "status", "progress", "uploaded_at", "synthetic",
                    "disqualified", "withdrawn")
    list_filter = ("status", "scope", "track", ("campaign", admin.RelatedOnlyFieldListFilter),
                   ("team", admin.RelatedOnlyFieldListFilter), "synthetic", "disqualified")
    list_select_related = ("team", "campaign")
    search_fields = ("name", "team__name", "sha256", "original_filename")
    date_hierarchy = "uploaded_at"
    action_form = RunActionForm
    actions = ["rescore_runs", "mark_runs_failed", "disqualify_runs"]
    # Runs are evidence: their fields change only through the services (upload, scoring, the actions above).
    readonly_fields = [f.name for f in Run._meta.fields]

    def has_add_permission(self, request):
        return False  # runs come in through the portal, the API or the command line

    def has_delete_permission(self, request, obj=None):
        return False  # withdraw or disqualify instead: runs are evidence

    @admin.display(boolean=True, description="withdrawn")
    def withdrawn(self, obj):
        return obj.withdrawn_at is not None

    def _apply(self, request, queryset, verb: str, action):
        done, refused = 0, []
        for run in queryset.select_related("campaign", "team"):
            try:
                action(run)
                done += 1
            except (PermissionDenied, ValueError) as exc:
                refused.append(f"{run}: {exc}")
        if done:
            self.message_user(request, f"{verb} {done} run(s).", messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.ERROR)

    @admin.action(description="Re-score the selected runs (adds a new result)", permissions=["change"])
    def rescore_runs(self, request, queryset):
        self._apply(request, queryset, "Queued for re-scoring", lambda run: actions.rescore(run, actor=request.user, request=request))

    @admin.action(description="Mark the selected runs failed", permissions=["change"])
    def mark_runs_failed(self, request, queryset):
        reason = request.POST.get("reason", "")
        self._apply(request, queryset, "Marked failed",
                    lambda run: actions.mark_failed(run, actor=request.user, reason=reason, request=request))

    @admin.action(description="Disqualify the selected runs (give a reason)", permissions=["change"])
    def disqualify_runs(self, request, queryset):
        reason = request.POST.get("reason", "")
        self._apply(request, queryset, "Disqualified",
                    lambda run: actions.disqualify(run, actor=request.user, reason=reason, request=request))


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("at", "actor_name", "campaign", "action", "target", "ip_address")
    list_filter = ("action", ("campaign", admin.RelatedOnlyFieldListFilter))
    search_fields = ("actor_name", "action", "target")
    date_hierarchy = "at"
    readonly_fields = [f.name for f in AuditEntry._meta.fields]

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("campaign")
        if request.user.is_superuser:
            return qs
        return qs.filter(campaign__organisers=request.user).distinct()

    def get_actions(self, request):
        return {}  # not even the bulk delete action

