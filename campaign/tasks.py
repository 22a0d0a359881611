"""Periodic work of the campaign app: scheduled life-cycle transitions; and, imported here so that a worker
registers them, the account mail sent off the request (:mod:`campaign.account_tasks`)."""
from __future__ import annotations

from celery import shared_task

from .account_tasks import complete_sign_up, send_password_reset
from .lifecycle import apply_due_transitions

__all__ = ["apply_scheduled_transitions", "complete_sign_up", "send_password_reset"]


@shared_task(name="campaign.apply_scheduled_transitions", ignore_result=True)
def apply_scheduled_transitions() -> list[dict]:
    """Apply every transition whose date is due; audited with actor None (the system)."""
    return [
        {"campaign": a.campaign.slug, "from": a.from_state, "to": a.to_state}
        for a in apply_due_transitions()
    ]
