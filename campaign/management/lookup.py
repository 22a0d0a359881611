"""Lookups the management commands share, so that they all refuse an unknown campaign or user the same way."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from campaign.models import Campaign


def campaign_by_slug(slug: str) -> Campaign:
    campaign = Campaign.objects.filter(slug=slug).first()
    if campaign is None:
        raise CommandError(f"No campaign with slug {slug!r}.")
    return campaign


def user_by_name(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"No user named {username!r}.")
    return user
