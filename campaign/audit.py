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
