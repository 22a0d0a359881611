"""Results pages of the tree and dependency kinds, and the leaf-ancestor word view, by role and state."""
from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaign import lifecycle
from campaign.models import AuditEntry, CampaignState, RunStatus
from evaluation.models import PublishedSnapshot, ResultCell
from tests import factories

from .helpers import damaged_trees, upload


@pytest.fixture
def scored(tree_campaign, alice, bob, tree_gold, django_capture_on_commit_callbacks):
    team_a = factories.make_team(tree_campaign, alice, name="Team A")
    team_b = factories.make_team(tree_campaign, bob, name="Team B")
    run_a = upload(tree_campaign, team_a, alice, {p.name: damaged_trees(p, "LABEL I", seed=5) for p in tree_gold},
                   django_capture_on_commit_callbacks, name="labels-off")
    run_b = upload(tree_campaign, team_b, bob, {p.name: p.read_text() for p in tree_gold},
                   django_capture_on_commit_callbacks, name="perfect")
    assert run_a.status == run_b.status == RunStatus.SCORED
    return run_a, run_b


def _set_state(campaign, state):
    from django.utils import timezone

    campaign.state = state
    if state == CampaignState.GOLD_RELEASED:
        campaign.gold_released_at = timezone.now()
    campaign.save()


def _f(html: str, run_pk: int, column: int) -> str:
    row = re.search(rf'<tr data-run="{run_pk}">(.*?)</tr>', html, re.S).group(1)
    return re.findall(r'data-f="([^"]*)"', row)[column]


def test_organiser_sees_metrics_side_by_side(client, tree_campaign, scored, organiser):
    # genres named as EASY names them: the code, capitalised
    run_a, run_b = scored
    client.force_login(organiser)
    html = client.get(reverse("results:campaign", kwargs={"slug": tree_campaign.slug})).content.decode()
    for name in ("evalb F", "Leaf-ancestor (word mean)", "LAS", ">news<", ">wiki<", "<svg"):
        assert name in html
    evalb = ResultCell.objects.get(result__run=run_a, layer="evalb", genre="ALL").f
    assert float(_f(html, run_a.pk, 0)) == evalb < 1.0
    assert float(_f(html, run_b.pk, 0)) == 1.0
    page = client.get(reverse("results:run", kwargs={"slug": tree_campaign.slug, "pk": run_a.pk}))
    assert page.status_code == 200 and "labels-off" in page.content.decode()
    assert reverse("lab:run_leaf_ancestor", kwargs={"pk": run_a.pk}) in page.content.decode()


def test_scores_hidden_before_release_then_own_then_snapshot(client, tree_campaign, scored, alice, organiser):
    run_a, run_b = scored
    url = reverse("results:campaign", kwargs={"slug": tree_campaign.slug})
    client.force_login(alice)
    html = client.get(url).content.decode()
    assert "not available yet" in html and 'data-run="' not in html
    assert client.get(reverse("results:run", kwargs={"slug": tree_campaign.slug, "pk": run_a.pk})).status_code == 404

    _set_state(tree_campaign, CampaignState.RELEASED)
    html = client.get(url).content.decode()
    assert f'data-run="{run_a.pk}"' in html and f'data-run="{run_b.pk}"' not in html

    tree_campaign.state = CampaignState.RELEASED
    tree_campaign.save()
    lifecycle.transition(tree_campaign, CampaignState.PUBLISHED, actor=organiser)
    snapshot = PublishedSnapshot.objects.get(campaign=tree_campaign)
    assert {c["layer"] for r in snapshot.data["runs"] for c in r["cells"]} >= {"evalb", "leaf-ancestor"}
    client.logout()
    html = client.get(url).content.decode()
    assert "Published results" in html and f'data-run="{run_a.pk}"' in html and f'data-run="{run_b.pk}"' in html


def test_leaf_ancestor_view_by_role_and_state(client, tree_campaign, scored, alice, bob, organiser):
    run_a, _ = scored
    url = reverse("lab:run_leaf_ancestor", kwargs={"pk": run_a.pk})
    for user in (None, alice, bob):
        client.logout()
        if user:
            client.force_login(user)
        assert client.get(url).status_code == 404, user
    client.force_login(organiser)
    before = AuditEntry.objects.filter(action="diagnostics.view").count()
    response = client.get(url)
    html = response.content.decode()
    assert response.status_code == 200
    assert AuditEntry.objects.filter(action="diagnostics.view").count() == before + 1
    assert "gold lineage:" in html and "candidate lineage:" in html and 'class="la-word la-perfect"' in html
    assert re.search(r'class="la-word la-(fair|poor|good)"[^>]*title="[^"]*score 0\.\d{3}', html)

    _set_state(tree_campaign, CampaignState.PUBLISHED)
    client.force_login(alice)
    assert client.get(url).status_code == 404  # published scores, but the gold is not released
    _set_state(tree_campaign, CampaignState.GOLD_RELEASED)
    assert client.get(url).status_code == 200
    client.force_login(bob)
    assert client.get(url).status_code == 404  # never another team's run
    after = AuditEntry.objects.filter(action="diagnostics.view").count()
    assert after == before + 1  # teams looking at their own run are not organiser views


def test_word_view_is_for_constituency_runs_only(client, dep_campaign, alice, organiser, dep_gold,
                                                 django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    run = upload(dep_campaign, team, alice, {p.name: p.read_text() for p in dep_gold},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED
    client.force_login(organiser)
    assert client.get(reverse("lab:run_leaf_ancestor", kwargs={"pk": run.pk})).status_code == 404
    html = client.get(reverse("results:campaign", kwargs={"slug": dep_campaign.slug})).content.decode()
    # genres named by their codes as given, not capitalised ("Gsd")
    assert "UAS" in html and ">gsd<" in html and ">sequoia<" in html and "Gsd" not in html
    assert float(_f(html, run.pk, 0)) == 1.0


def test_portal_pages_of_a_tree_run(client, tree_campaign, scored, alice, organiser):
    import io
    import zipfile

    run_a, _ = scored
    client.force_login(organiser)
    # The run page lists the pooled figures; EASY's diagnostics link leads to the word view.
    html = client.get(reverse("portal:run", kwargs={"pk": run_a.pk})).content.decode()
    evalb = ResultCell.objects.get(result__run=run_a, layer="evalb", genre="ALL")
    assert "leaf-ancestor" in html and f"{evalb.f:.4f}" in html
    # A single-score figure (leaf-ancestor) has no P or R: shown as not applicable, not "undefined".
    assert "undefined" not in html
    response = client.get(reverse("governance:diagnostics", kwargs={"pk": run_a.pk}))
    assert response.status_code == 302 and response["Location"] == reverse("lab:run_leaf_ancestor",
                                                                           kwargs={"pk": run_a.pk})
    # The corpus download holds the word lists under their own suffix.
    client.force_login(alice)
    response = client.get(reverse("portal:corpus_download", kwargs={"slug": tree_campaign.slug}))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sorted(archive.namelist()) == ["annodis.tok", "frwiki.tok"]
    assert archive.read("annodis.tok").startswith(b"# sent_id = 1\n1\tGutenberg\n\n# sent_id = 2\n1\tCette\n")


def test_released_gold_of_a_tree_campaign(client, tree_campaign, alice, tree_gold):
    import io
    import zipfile

    from annotations.models import GoldSentence
    from parseval.annotations.trees.detect import read_trees

    # Two sentences of frwiki go to the development sample, one is left out of scoring.
    sentences = GoldSentence.objects.filter(sentence__document__name="frwiki").order_by("sentence__position")
    GoldSentence.objects.filter(pk__in=[g.pk for g in sentences[:2]]).update(subset="dev")
    GoldSentence.objects.filter(pk=sentences[2].pk).update(subset="unused")
    factories.make_team(tree_campaign, alice, name="Team A")
    client.force_login(alice)
    url = reverse("governance:gold", kwargs={"slug": tree_campaign.slug})
    assert client.get(url).status_code == 404
    _set_state(tree_campaign, CampaignState.GOLD_RELEASED)
    archive = zipfile.ZipFile(io.BytesIO(client.get(url).content))
    assert sorted(archive.namelist()) == ["gold/annodis.mrg", "gold/frwiki.mrg", "gold/subsets.tsv"]
    gold3 = read_trees(tree_gold[1])
    released = archive.read("gold/frwiki.mrg").decode()
    assert released.splitlines() == [t.to_penn() for i, t in enumerate(gold3) if i != 2]
    assert "frwiki\t3\tunused" not in archive.read("gold/subsets.tsv").decode()
    assert "frwiki\t1\tdev" in archive.read("gold/subsets.tsv").decode()
    dev = client.get(reverse("governance:dev_sample", kwargs={"slug": tree_campaign.slug}))
    assert zipfile.ZipFile(io.BytesIO(dev.content)).read("dev/frwiki.mrg").decode().splitlines() == [
        t.to_penn() for t in gold3[:2]]


def test_upload_page_of_a_tree_campaign(client, tree_campaign, alice, tree_gold, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    factories.make_team(tree_campaign, alice, name="Team A")
    client.force_login(alice)
    url = reverse("portal:run_upload", kwargs={"slug": tree_campaign.slug})
    assert "One tree file (.mrg, .tree or .txt" in client.get(url).content.decode()
    archive = factories.zip_of({p.name: p.read_bytes() for p in tree_gold})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"name": "web", "scope": "test", "file": SimpleUploadedFile("run.zip", archive)})
    assert response.status_code == 302
    run = tree_campaign.runs.get()
    assert run.status == RunStatus.SCORED
    response = client.post(url, {"name": "bad", "scope": "test",
                                 "file": SimpleUploadedFile("run.xml", b"<x/>")})
    assert "unsupported file type" in response.content.decode() and tree_campaign.runs.count() == 1
