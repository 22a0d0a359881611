"""The design aid's default pair and wording (docs/significance.md, "Design aid")."""
from __future__ import annotations

import re

from campaign.models import Team
from tests import factories
from tests.kinds.helpers import damaged_trees, upload

from .helpers import gold_and_damaged


def test_the_default_pair_is_two_real_runs_never_the_consensus_pseudo_run(
        tree_campaign, tree_gold, alice, bob, organiser, client, django_capture_on_commit_callbacks):
    good, bad = gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)
    carol = factories.make_user("carol")
    team_c = factories.make_team(tree_campaign, carol, name="Team C")
    upload(tree_campaign, team_c, carol,
                       {p.name: damaged_trees(p, "ATTACH I", seed=9, per_type=6) for p in tree_gold},
                       django_capture_on_commit_callbacks, name="consensus")
    # the last run stands for the platform's consensus pseudo-run, made after the runs it combines: its team
    # is the system team (the pairs are listed newest first, so it heads the list)
    Team.objects.filter(pk=team_c.pk).update(system=True)

    client.force_login(organiser)
    page = client.get(f"/results/{tree_campaign.slug}/design/?figure=micro|evalb||").content.decode()
    selected = re.search(r'<option value="([^"]+)" selected>([^<]*)</option>', page.split('name="pair"')[1])
    assert selected, page
    ra, rb = good.results.get().pk, bad.results.get().pk
    assert "consensus" not in selected.group(2) and selected.group(1) in (f"{ra}-{rb}", f"{rb}-{ra}")


def test_one_point_is_singular(tree_campaign, tree_gold, alice, bob, organiser, client,
                               django_capture_on_commit_callbacks):
    gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)
    client.force_login(organiser)
    page = client.get(f"/results/{tree_campaign.slug}/design/?figure=micro|evalb||&target=1").content.decode()
    assert "Sentences needed for 1 point<" in page and "1 points" not in page
    page = client.get(f"/results/{tree_campaign.slug}/design/?figure=micro|evalb||&target=2").content.decode()
    assert "Sentences needed for 2 points<" in page



def test_without_two_real_runs_the_default_leaves_the_consensus_out(
        tree_campaign, tree_gold, alice, bob, organiser, client, django_capture_on_commit_callbacks):
    """The demo without its spaCy runs: every team run is synthetic; two of them, not one against the consensus."""
    from campaign.models import Run

    good, bad = gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)
    carol = factories.make_user("carol")
    team_c = factories.make_team(tree_campaign, carol, name="Team C")
    upload(tree_campaign, team_c, carol, {p.name: damaged_trees(p, "ATTACH I", seed=9, per_type=6) for p in tree_gold},
           django_capture_on_commit_callbacks, name="consensus")
    Team.objects.filter(pk=team_c.pk).update(system=True)
    Run.objects.filter(pk__in=[good.pk, bad.pk]).update(synthetic=True)

    client.force_login(organiser)
    page = client.get(f"/results/{tree_campaign.slug}/design/?figure=micro|evalb||").content.decode()
    selected = re.search(r'<option value="([^"]+)" selected>([^<]*)</option>', page.split('name="pair"')[1])
    assert selected.group(2) in ("gold copy vs damaged", "damaged vs gold copy"), selected.group(2)
