"""Navigation around the results: the organiser's home links, a team's diagnostics link for its development-sample
run, the upload page of a campaign that takes no run, and the paginated diagnostics page."""
from __future__ import annotations

import pytest
from django.test import Client

from annotations.models import GoldSentence
from campaign import lifecycle
from campaign.models import CampaignState
from evaluation.kinds.easy import pages as easy_pages
from tests import factories
from tests.web.helpers import stored_run


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def client_of(user):
    c = Client()
    c.force_login(user)
    return c


def test_the_organisers_home_links_console_admin_error_lab_and_diagnostics(campaign):
    organiser = factories.make_user("org", is_staff=True)
    campaign.organisers.add(organiser)
    page = client_of(organiser).get("/").content.decode()
    for url in ("/console/", "/admin/", f"/results/{campaign.slug}/ranking/#runs"):
        assert f'href="{url}"' in page, url
    # an EASY campaign: the error lab (damaged phrase-structure trees) does not apply to it
    # (tests/kinds/test_kind_words.py: offered on a constituency campaign)
    assert f"/lab/campaigns/{campaign.slug}/error-lab/" not in page
    # a member of no organising body sees none of it
    assert "organiser-links" not in client_of(factories.make_user("someone")).get("/").content.decode()


def test_a_team_reaches_the_diagnostics_of_its_development_sample_run(campaign, team_a, alice,
                                                                     django_capture_on_commit_callbacks):
    organiser = factories.make_user("org")
    campaign.organisers.add(organiser)
    # the development sample: one gold sentence, public at once
    first = GoldSentence.objects.filter(sentence__document__campaign=campaign).order_by("pk").first()
    first.subset = GoldSentence.Subset.DEV
    first.save(update_fields=["subset"])
    run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks, name="check",
                     scope="dev")
    page = client_of(alice).get(f"/runs/{run.pk}/").content.decode()
    assert 'id="diagnostics-link"' in page and f"/governance/runs/{run.pk}/diagnostics/" in page
    assert client_of(alice).get(f"/governance/runs/{run.pk}/diagnostics/").status_code == 200


def test_the_upload_page_of_a_closed_campaign_says_so(campaign, team_a, alice):
    organiser = factories.make_user("org")
    campaign.organisers.add(organiser)
    lifecycle.transition(campaign, CampaignState.CLOSED, actor=organiser)
    response = client_of(alice).get(f"/campaigns/{campaign.slug}/upload/")
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="not-accepting"' in page and "does not accept runs" in page
    assert "<form method=\"post\" enctype" not in page


def test_diagnostics_are_paginated(campaign, team_a, alice, monkeypatch, django_capture_on_commit_callbacks):
    organiser = factories.make_user("org")
    campaign.organisers.add(organiser)
    run = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks, name="run")
    monkeypatch.setattr(easy_pages, "DIAGNOSTICS_PER_PAGE", 2)
    url = f"/governance/runs/{run.pk}/diagnostics/"
    first = client_of(organiser).get(url)
    total = len(first.context["data"]["shown"][0]["sentences"])
    assert total > 2
    assert first.content.decode().count("data-sentence=") == 2
    # the last page holds what is left: total - 2 * (pages - 1) sentences
    pages = (total + 1) // 2
    last = client_of(organiser).get(url, {"page": pages, "document": first.context["document"]})
    assert last.content.decode().count("data-sentence=") == total - 2 * (pages - 1)
    assert 'rel="prev"' in last.content.decode() and 'rel="next"' not in last.content.decode()
