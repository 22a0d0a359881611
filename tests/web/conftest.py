"""Fixtures of the portal and API tests: storage in a temporary folder, a small real campaign."""
from __future__ import annotations

import pytest

from tests import factories


@pytest.fixture
def campaign(db, storage):
    """An open campaign of three real EASY gold files (three genres)."""
    return factories.make_easy_campaign(slug="easy-small", name="EASY small")


@pytest.fixture
def team_a(campaign, alice):
    return factories.make_team(campaign, alice, name="Team A")


@pytest.fixture
def team_b(campaign, bob):
    return factories.make_team(campaign, bob, name="Team B")
