"""The organiser's audit-log page and its CSV export (streamed). Nobody can edit the log."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import render

from . import audit, visibility
from .csv_export import csv_stream
from .governance_forms import AuditFilterForm
from .models import Campaign


def organised_campaign(request, slug: str) -> Campaign:
    """The campaign, or 404 for anyone but its organisers (not even whether it exists)."""
    return visibility.get_visible_or_404(Campaign, visibility.can_read_audit, request.user, "No such campaign.",
                                         slug=slug)


@login_required
def audit_log(request, slug: str):
    campaign = organised_campaign(request, slug)
    form = AuditFilterForm(request.GET or None)
    entries = audit.entries(campaign, **form.filters()).select_related("actor")
    page = Paginator(entries, 100).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "console/audit_log.html", {
        "campaign": campaign, "form": form, "page": page, "query": query.urlencode(),
        "actions": sorted(set(audit.entries(campaign).values_list("action", flat=True))),
    })


@login_required
def audit_csv(request, slug: str):
    campaign = organised_campaign(request, slug)
    form = AuditFilterForm(request.GET or None)
    filters = form.filters()
    audit.record(audit.AUDIT_EXPORT, campaign=campaign, target=campaign.slug,
                 details={k: str(v) for k, v in filters.items() if v}, request=request)
    entries = audit.entries(campaign, **filters)
    rows = (audit.csv_row(entry) for entry in entries.iterator(chunk_size=1000))
    response = StreamingHttpResponse(csv_stream(audit.CSV_COLUMNS, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="audit-{campaign.slug}.csv"'
    return response
