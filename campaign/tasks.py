"""Periodic work of the campaign app: scheduled life-cycle transitions."""
from __future__ import annotations

from celery import shared_task

from .lifecycle import apply_due_transitions


@shared_task(name="campaign.apply_scheduled_transitions", ignore_result=True)
def apply_scheduled_transitions() -> list[dict]:
    """Apply every transition whose date is due; audited with actor None (the system)."""
    return [
        {"campaign": a.campaign.slug, "from": a.from_state, "to": a.to_state}
        for a in apply_due_transitions()
    ]
