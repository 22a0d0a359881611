"""Writing to the audit log. Every organiser action and every run upload,
withdrawal and download goes through :func:`record`."""
from __future__ import annotations

from typing import Any

from .models import AuditEntry, Campaign


def client_ip(request) -> str | None:
    if request is None:
        return None
    # Behind the compose proxy the first X-Forwarded-For hop is the client.
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if forwarded:
        return forwarded.split(",")[0].strip() or None
    return request.META.get("REMOTE_ADDR") or None


def record(
    action: str,
    *,
    actor=None,
    campaign: Campaign | None = None,
    target: Any = "",
    details: dict | None = None,
    request=None,
) -> AuditEntry:
    if actor is None and request is not None and request.user.is_authenticated:
        actor = request.user
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    return AuditEntry.objects.create(
        actor=actor,
        actor_name=actor.get_username() if actor is not None else "",
        campaign=campaign,
        action=action,
        target=str(target)[:255],
        details=details or {},
        ip_address=client_ip(request),
    )


# Action names used across the project, so that filters and docs agree.
TRANSITION = "campaign.transition"
SUBSET_SAMPLED = "subset.sampled"
SUBSET_MARKED = "subset.marked"
DEV_SAMPLE_DOWNLOAD = "dev_sample.download"
GOLD_DOWNLOAD = "gold.download"
DIAGNOSTICS_VIEW = "diagnostics.view"
TEAM_SETTINGS = "team.settings"
AUDIT_EXPORT = "audit.export"
SNAPSHOT_TAKEN = "results.snapshot"

CSV_COLUMNS = ["at", "actor", "action", "campaign", "target", "ip_address", "details"]


def entries(campaign: Campaign | None = None, *, action: str = "", actor: str = "", since=None, until=None):
    """Audit entries filtered as the organiser page does: action prefix, actor name, date range (inclusive)."""
    qs = AuditEntry.objects.select_related("campaign")
    if campaign is not None:
        qs = qs.filter(campaign=campaign)
    if action:
        qs = qs.filter(action__startswith=action)
    if actor:
        qs = qs.filter(actor_name__iexact=actor) if actor != "system" else qs.filter(actor__isnull=True)
    if since is not None:
        qs = qs.filter(at__gte=since)
    if until is not None:
        qs = qs.filter(at__lt=until)
    return qs.order_by("-at", "-pk")


def csv_row(entry: AuditEntry) -> list[str]:
    import json

    return [
        entry.at.isoformat(),
        entry.actor_name or "system",
        entry.action,
        entry.campaign.slug if entry.campaign_id else "",
        entry.target,
        entry.ip_address or "",
        json.dumps(entry.details, sort_keys=True, ensure_ascii=False),
    ]
