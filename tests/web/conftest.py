"""Fixtures of the portal and API tests: storage in a temporary folder, a small real campaign."""
from __future__ import annotations

import pytest
from django.utils.functional import empty

from tests import factories


@pytest.fixture
def storage(settings, tmp_path):
    factories.use_storage(settings, tmp_path)
    yield tmp_path
    from annotations.models import gold_storage

    gold_storage._wrapped = empty


@pytest.fixture
def campaign(db, storage):
    """An open campaign of three real EASY gold files (three genres)."""
    return factories.make_easy_campaign(slug="easy-small", name="EASY small")


@pytest.fixture
def alice(db):
    return factories.make_user("alice")


@pytest.fixture
def bob(db):
    return factories.make_user("bob")


@pytest.fixture
def team_a(campaign, alice):
    return factories.make_team(campaign, alice, name="Team A")


@pytest.fixture
def team_b(campaign, bob):
    return factories.make_team(campaign, bob, name="Team B")
