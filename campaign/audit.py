"""Writing to the audit log. Every organiser action and every run upload,
withdrawal and download goes through :func:`record`."""
from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings

from .models import AuditEntry, Campaign


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def _trusted(address, proxies) -> bool:
    return any(address in network for network in proxies)


def client_ip(request) -> str | None:
    """The client's address: ``REMOTE_ADDR``, unless that is a configured trusted proxy.

    Behind trusted proxies (``PARSEVAL_TRUSTED_PROXIES``) the ``X-Forwarded-For``
    list is read from the right, skipping the proxies' own hops: the first
    address a trusted proxy received the request from is the client. Anything
    to its left was written by the client and is not believed. Whatever is
    not a valid IP address is recorded as no address.
    """
    if request is None:
        return None
    remote = _ip(request.META.get("REMOTE_ADDR", ""))
    if remote is None:
        return None
    proxies = [ipaddress.ip_network(p, strict=False) for p in getattr(settings, "PARSEVAL_TRUSTED_PROXIES", [])]
    if not _trusted(remote, proxies):
        return str(remote)
    hops = [h for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
    client = remote
    for hop in reversed(hops):
        address = _ip(hop)
        if address is None:
            break  # a forged or broken hop: keep the last address a trusted proxy vouched for
        client = address
        if not _trusted(address, proxies):
            break
    return str(client)


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
    # nobody logged in: "anonymous" for a visitor's request, "" (shown as "system") for the platform's own acts
    anonymous = (actor is None and request is not None) or (actor is not None and not actor.is_authenticated)
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    return AuditEntry.objects.create(
        actor=actor,
        actor_name=actor.get_username() if actor is not None else ANONYMOUS if anonymous else "",
        campaign=campaign,
        action=action,
        target=str(target)[:255],
        details=details or {},
        ip_address=client_ip(request),
    )


ANONYMOUS = "anonymous"

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
        if actor == "system":
            qs = qs.filter(actor__isnull=True, actor_name="")
        elif actor == ANONYMOUS:
            qs = qs.filter(actor__isnull=True, actor_name=ANONYMOUS)
        else:
            qs = qs.filter(actor_name__iexact=actor)
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
