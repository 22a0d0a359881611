"""Publication codes are drawn at random for every team at publication, not in registration order."""
from __future__ import annotations

import pytest

from campaign import lifecycle
from campaign.services.teams import create_team
from evaluation.models import PublishedSnapshot

from .conftest import campaign, user

pytestmark = pytest.mark.django_db


def _register(c, n):
    """n teams through the portal's service, in registration order."""
    return [create_team(c, user(), name=f"Team {i:02d}") for i in range(n)]


def _codes_in_registration_order(teams):
    return [type(t).objects.get(pk=t.pk).code for t in teams]


def test_every_team_is_drawn_again_at_publication(organiser):
    c = campaign("open", organiser=organiser)
    teams = _register(c, 12)
    c.state = "released"
    c.save()
    lifecycle.take_snapshot(c)
    codes = _codes_in_registration_order(teams)
    assert sorted(codes) == sorted(lifecycle._codes(12))  # A..L, each once
    # 12 teams in registration order would get A..L in order with probability 1/12! (about 2e-9).
    assert codes != lifecycle._codes(12)


def test_codes_given_earlier_are_not_kept(organiser):
    c = campaign("released", organiser=organiser)
    teams = _register_open(c, 8)
    for t, code in zip(teams, "ABCDEFGH"):
        t.code = code
        t.save(update_fields=["code"])
    # Drawn until the order differs from registration order (a single draw keeps it with probability 1/8!).
    draws = set()
    for _ in range(5):
        lifecycle.assign_team_codes(c)
        draws.add(tuple(_codes_in_registration_order(teams)))
    assert draws != {tuple("ABCDEFGH")}
    assert all(sorted(d) == list("ABCDEFGH") for d in draws)


def _register_open(c, n):
    state = c.state
    c.state = "open"
    c.save()
    teams = _register(c, n)
    c.state = state
    c.save()
    return teams


def test_a_second_snapshot_keeps_the_published_codes(organiser):
    c = campaign("released", organiser=organiser)
    teams = _register_open(c, 6)
    lifecycle.take_snapshot(c)
    first = _codes_in_registration_order(teams)
    lifecycle.take_snapshot(c)
    assert _codes_in_registration_order(teams) == first
    assert PublishedSnapshot.objects.filter(campaign=c).count() == 2
