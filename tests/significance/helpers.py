"""Two scored runs of a constituency campaign: the gold itself, and heavily damaged trees."""
from __future__ import annotations

from campaign.models import RunStatus
from tests import factories
from tests.kinds.helpers import damaged_trees, upload


def gold_and_damaged(campaign, gold, alice, bob, capture, *, team_b: str = "Team B"):
    team_a = factories.make_team(campaign, alice, name="Team A")
    team_b = factories.make_team(campaign, bob, name=team_b)
    good = upload(campaign, team_a, alice, {p.name: p.read_text(encoding="utf-8") for p in gold}, capture,
                  name="gold copy")
    bad = upload(campaign, team_b, bob, {p.name: damaged_trees(p, "ATTACH I", seed=5, per_type=12) for p in gold},
                 capture, name="damaged")
    assert good.status == bad.status == RunStatus.SCORED
    return good, bad
