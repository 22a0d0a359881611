"""The consensus as a marked pseudo-run: built from the chosen runs, scored by the same scorer, shown by the
same rules as the runs (nothing of it before publication)."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.test import Client

from campaign.models import Campaign, CampaignState, Run, RunStatus
from campaign.services.runs import withdraw_run
from campaign.console.actions import disqualify
from evaluation import consensus_runs
from evaluation.models import ConsensusSetting
from tests import factories
from tests.kinds.helpers import damaged_trees, upload

pytestmark = pytest.mark.django_db(transaction=True)


def three_runs(campaign, tree_gold, capture):
    users = [factories.make_user(n) for n in ("alice", "bob", "carol")]
    teams = [factories.make_team(campaign, u, name=f"Team {n}") for u, n in zip(users, "ABC")]
    runs = [upload(campaign, teams[0], users[0], {p.name: p.read_text(encoding="utf-8") for p in tree_gold},
                   capture, name="gold copy")]
    for i, seed in ((1, 5), (2, 7)):
        runs.append(upload(campaign, teams[i], users[i],
                           {p.name: damaged_trees(p, "ATTACH I", seed=seed, per_type=6) for p in tree_gold},
                           capture, name=f"damaged {seed}"))
    assert {r.status for r in runs} == {RunStatus.SCORED}
    return users, teams, runs


def enable(campaign, **fields):
    ConsensusSetting.objects.update_or_create(campaign=campaign, defaults={"enabled": True, **fields})


def built(campaign, capture) -> Run:
    with capture(execute=True):
        run = consensus_runs.build(campaign)
    run.refresh_from_db()
    return run


def test_the_consensus_is_a_run_of_the_system_team_scored_by_the_same_scorer(tree_campaign, tree_gold, django_capture_on_commit_callbacks):
    _, _, runs = three_runs(tree_campaign, tree_gold, django_capture_on_commit_callbacks)
    assert consensus_runs.build(tree_campaign) is None  # not asked for: nothing is built
    enable(tree_campaign)
    run = built(tree_campaign, django_capture_on_commit_callbacks)
    assert run.team.system and run.team.members.count() == 0
    assert run.status == RunStatus.SCORED, run.status_reason
    assert [c["run"] for c in run.combination["runs"]] == [r.pk for r in runs]  # one per team, in team order
    assert [round(c["weight"], 6) for c in run.combination["runs"]] == [round(1 / 3, 6)] * 3
    mine, theirs = run.results.get(), runs[1].results.get()
    assert mine.gold_sha256 == theirs.gold_sha256
    assert mine.signature == theirs.signature and mine.scorer_version == theirs.scorer_version
    assert mine.parameters == theirs.parameters
    # Rebuilding with nothing changed is a no-op; a new choice makes a new consensus and withdraws the old one.
    assert consensus_runs.build(tree_campaign).pk == run.pk
    consensus_runs.choose(tree_campaign, {runs[2].team_id: 0}, weighting=None, actor=None)
    second = built(tree_campaign, django_capture_on_commit_callbacks)
    assert second.pk != run.pk and len(second.combination["runs"]) == 2
    run.refresh_from_db()
    assert run.withdrawn_at is not None
