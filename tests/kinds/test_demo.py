"""The constituency and dependency demo campaigns built by load_demo."""
from __future__ import annotations

from io import StringIO

import pytest

from campaign.demo_kinds import DEP_SLUG, TREE_SLUG, load_kind_demos
from campaign.models import Campaign, CampaignState, RunStatus
from evaluation.models import PublishedSnapshot, ResultCell
from tests import factories


@pytest.mark.django_db(transaction=True)
def test_kind_demos_are_published_with_synthetic_scored_runs(storage, shared_data):
    organiser = factories.make_user("organiser")
    users = {name: factories.make_user(name) for name in ("alpha", "beta")}
    out = StringIO()
    built = load_kind_demos(organiser, users, out.write)
    assert [c.slug for c in built] == [TREE_SLUG, DEP_SLUG]
    trees = Campaign.objects.get(slug=TREE_SLUG)
    assert trees.state == CampaignState.PUBLISHED and trees.kind == "constituency"
    # French Sequoia trees from data/, one genre per source: no Penn Treebank file is read.
    assert sorted(trees.genres.values_list("code", flat=True)) == ["europarl", "medical", "news", "wikipedia"]
    assert trees.documents.count() == 4 and sum(d.sentence_count for d in trees.documents.all()) == 4 * 50
    runs = list(trees.runs.filter(team__system=False))
    assert len(runs) == 3 and all(r.synthetic and r.status == RunStatus.SCORED for r in runs)
    evalb = {r.name: ResultCell.objects.get(result__run=r, layer="evalb", genre="ALL").f for r in runs}
    assert all(0.8 < f < 1.0 for f in evalb.values()) and len(set(evalb.values())) == 3
    assert PublishedSnapshot.objects.filter(campaign=trees).exists()

    deps = Campaign.objects.get(slug=DEP_SLUG)
    las = sorted(ResultCell.objects.get(result__run=r, layer="deps-las", genre="ALL").f
                 for r in deps.runs.filter(team__system=False))
    assert deps.state == CampaignState.PUBLISHED and len(las) == 2 and las[0] < las[1] < 1.0

    # Each has its consensus, one run per team, scored and taken into the published snapshot.
    for campaign in (trees, deps):
        [consensus] = campaign.runs.filter(team__system=True)
        assert consensus.status == RunStatus.SCORED
        assert len(consensus.combination["runs"]) == campaign.teams.filter(system=False).count()
        snapshot = PublishedSnapshot.objects.filter(campaign=campaign).latest()
        assert [r["consensus"]["runs"] for r in snapshot.data["runs"] if r.get("consensus")] == \
            [len(consensus.combination["runs"])]

    # A second call finds everything and adds nothing.
    load_kind_demos(organiser, users, out.write)
    assert trees.runs.count() == 3 + 1 and deps.runs.count() == 2 + 1
