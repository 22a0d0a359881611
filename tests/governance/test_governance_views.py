"""The governance pages: organisers' state page, a team's publication opt-in, per-sentence
diagnostics (organisers audited; a team's own test run only after gold release), and the
admin's read-only run receipt."""
from __future__ import annotations

import pytest
from django.test import Client

from campaign.subsets import sample_test_subset, sentence_ids_by_document
from campaign import lifecycle
from campaign.models import AuditEntry, Campaign, Run, RunStatus
from campaign.services.corpus import import_corpus
from tests.factories import SMALL_EASY_FILES, easy_gold_paths, gold_bytes, zip_of
from tests.web.helpers import stored_run

from .conftest import campaign, team, user

pytestmark = pytest.mark.django_db


def client_of(u=None) -> Client:
    c = Client()
    if u is not None:
        c.force_login(u)
    return c


def test_state_page_moves_the_campaign_and_audits(organiser, member_a):
    c = campaign(organiser=organiser)
    url = f"/governance/campaigns/{c.slug}/state/"
    assert client_of(member_a).get(url).status_code == 404
    assert client_of(member_a).post(url, {"to": "open"}).status_code == 404
    page = client_of(organiser).get(url)
    assert page.status_code == 200 and b'value="open"' in page.content and b'value="closed"' not in page.content
    response = client_of(organiser).post(url, {"to": "open"})
    assert response.status_code == 302
    c.refresh_from_db()
    assert c.state == "open"
    assert AuditEntry.objects.get(campaign=c, action="campaign.transition").ip_address == "127.0.0.1"
    refused = client_of(organiser).post(url, {"to": "published"})
    assert refused.status_code == 400 and b"cannot go from open to published" in refused.content


def test_team_opts_in_to_its_name(organiser, member_a, member_b):
    c = campaign("open", organiser=organiser)
    mine, theirs = team(c, member_a, name="Alpha"), team(c, member_b, name="Bravo")
    url = f"/governance/teams/{mine.pk}/publication/"
    assert client_of(member_b).get(url).status_code == 404
    assert client_of().get(url).status_code == 302
    assert client_of(member_a).post(url, {"show_name": "on"}).status_code == 302
    mine.refresh_from_db()
    assert mine.show_name
    assert AuditEntry.objects.get(action="team.settings", actor=member_a).details == {"show_name": True}
    from campaign.visibility import public_team_label

    assert public_team_label(mine) == "Alpha" and public_team_label(theirs) != "Bravo"
    c.state = "published"
    c.save()
    client_of(member_a).post(url, {})  # unticking after publication changes nothing
    mine.refresh_from_db()
    assert mine.show_name


@pytest.fixture
def scored(organiser, member_a, member_b, django_capture_on_commit_callbacks):
    """A campaign whose test run (team A) and dev run are scored by the real worker."""
    c = Campaign.objects.create(name="Diag", slug="diag")
    c.organisers.add(organiser)
    import_corpus(c, easy_gold_paths(SMALL_EASY_FILES))
    sample_test_subset(c, ratio=0.5, dev_ratio=0.2)
    c.state = "open"
    c.save()
    a = team(c, member_a, name="Alpha")
    team(c, member_b, name="Bravo")
    name = SMALL_EASY_FILES[0]
    # Team A's parser found the constituents and no relation at all of the first document.
    text = gold_bytes(name).decode("utf-8")
    import re

    no_relations = re.sub(r"<relations>.*?</relations>", "", text, flags=re.S)
    files = {n: gold_bytes(n) for n in SMALL_EASY_FILES}
    files[name] = no_relations.encode("utf-8")
    test_run = stored_run(c, a, member_a, zip_of(files), capture=django_capture_on_commit_callbacks)
    dev_run = stored_run(c, a, member_a, capture=django_capture_on_commit_callbacks, scope="dev", name="dev")
    assert test_run.status == RunStatus.SCORED, test_run.status_reason
    assert dev_run.status == RunStatus.SCORED, dev_run.status_reason
    return c, test_run, dev_run


def test_diagnostics_for_organisers_are_audited_and_list_missed_items(scored, organiser):
    c, test_run, _ = scored
    doc = SMALL_EASY_FILES[0].removesuffix(".xml")
    response = client_of(organiser).get(f"/governance/runs/{test_run.pk}/diagnostics/", {"document": doc})
    assert response.status_code == 200
    data = response.context["data"]
    rows = data["shown"][0]["sentences"]
    assert {r["id"] for r in rows} == sentence_ids_by_document(c, "test")[doc]  # test sentences only
    with_relations = [r for r in rows if r["relations"]["cr"]]
    assert with_relations and all(r["relations"]["fc"] == 0 and r["relations"]["fp"] == 0 for r in with_relations)
    assert all(r["constituents"]["fc"] == r["constituents"]["cr"] for r in rows)  # constituents all found
    missed = [m for r in with_relations for m in r["missed"]]
    assert missed and all(m["layer"] == "relation" for m in missed)
    assert sum(r["relations"]["cr"] for r in rows) == len(missed)
    entry = AuditEntry.objects.get(action="diagnostics.view", actor=organiser)
    assert entry.target == f"run {test_run.pk}" and entry.details["document"] == doc


def test_team_sees_diagnostics_of_its_test_run_only_after_gold_release(scored, organiser, member_a, member_b):
    c, test_run, dev_run = scored
    url = f"/governance/runs/{test_run.pk}/diagnostics/"
    for state in ["closed", "scored", "released", "published"]:
        lifecycle.transition(c, state, actor=organiser)
        assert client_of(member_a).get(url).status_code == 404, state
    lifecycle.transition(c, "gold_released", actor=organiser)
    assert client_of(member_a).get(url).status_code == 200
    assert client_of(member_b).get(url).status_code == 404  # never another team's run
    assert client_of().get(url).status_code == 302


def test_dev_check_diagnostics_are_available_at_once(scored, member_a, member_b):
    c, _, dev_run = scored
    response = client_of(member_a).get(f"/governance/runs/{dev_run.pk}/diagnostics/")
    assert response.status_code == 200
    shown = response.context["data"]["shown"][0]
    dev = sentence_ids_by_document(c, "dev")
    assert {r["id"] for r in shown["sentences"]} == dev[shown["name"]]  # dev sentences, never test ones
    assert all(not r["missed"] for r in shown["sentences"])  # the gold itself misses nothing
    assert client_of(member_b).get(f"/governance/runs/{dev_run.pk}/diagnostics/").status_code == 404


def test_admin_cannot_change_a_run_receipt(scored):
    _, test_run, _ = scored
    root = user("root", is_staff=True, is_superuser=True)
    client = client_of(root)
    url = f"/admin/campaign/run/{test_run.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and b'name="sha256"' not in page.content
    client.post(url, {"sha256": "0" * 64, "name": "forged", "system_description": "x", "size": 1})
    stored = Run.objects.get(pk=test_run.pk)
    assert (stored.sha256, stored.size, stored.file.name) == (test_run.sha256, test_run.size, test_run.file.name)
