"""Who may download a campaign's publication bundle, and where the pages link it."""
from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from campaign.models import CampaignState
from parseval.evaluation import bundle_format as fmt
from evaluation.models import PublicationBundle, PublishedSnapshot
from tests.results import builders as b

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def stored_bundle(campaign) -> tuple[PublicationBundle, bytes]:
    snapshot = PublishedSnapshot.objects.create(campaign=campaign, data={"runs": []}, sha256="c" * 64)
    data = fmt.write_archive({"bundle.json": b"{}\n", "results.json": b"{}\n"})
    bundle = PublicationBundle(campaign=campaign, snapshot=snapshot, sha256=fmt.sha256(data), size=len(data))
    bundle.file.save("b.zip", ContentFile(data), save=True)
    return bundle, data


def login(client, user) -> None:
    client.force_login(user)


def test_the_bundle_is_the_organisers_before_publication_and_everyones_after(client):
    organiser, member, outsider = b.user("org"), b.user("member"), b.user("outsider")
    campaign = b.campaign(CampaignState.RELEASED, organiser=organiser)
    b.team(campaign, "Alpha", member)
    bundle, data = stored_bundle(campaign)
    url = reverse("results:bundle", args=[campaign.slug])

    assert client.get(url).status_code == 404  # a visitor
    for user in (member, outsider):
        login(client, user)
        assert client.get(url).status_code == 404
    login(client, organiser)
    response = client.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == data
    assert response["X-Content-SHA256"] == bundle.sha256
    assert f"{campaign.slug}-bundle-{bundle.sha256[:12]}.zip" in response["Content-Disposition"]

    campaign.state = CampaignState.PUBLISHED
    campaign.save(update_fields=["state"])
    client.logout()
    response = client.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == data


def test_no_bundle_yet_is_404_even_for_organisers(client):
    organiser = b.user("org")
    campaign = b.campaign(CampaignState.PUBLISHED, organiser=organiser)
    login(client, organiser)
    assert client.get(reverse("results:bundle", args=[campaign.slug])).status_code == 404


def test_console_links_the_bundle_and_builds_it_only_once_published(client, monkeypatch):
    from campaign import kinds

    sent = []
    monkeypatch.setattr(kinds, "enqueue", lambda name, *args, **kw: sent.append((name, args)))
    organiser = b.user("org")
    campaign = b.campaign(CampaignState.RELEASED, organiser=organiser)
    login(client, organiser)
    dashboard = reverse("console:dashboard", args=[campaign.slug])
    page = client.get(dashboard).content.decode()
    assert 'id="build-bundle"' not in page and "No bundle yet" in page
    client.post(reverse("console:build-bundle", args=[campaign.slug]))
    assert sent == []

    campaign.state = CampaignState.PUBLISHED
    campaign.save(update_fields=["state"])
    bundle, _ = stored_bundle(campaign)
    page = client.get(dashboard).content.decode()
    assert 'id="build-bundle"' in page and reverse("results:bundle", args=[campaign.slug]) in page
    response = client.post(reverse("console:build-bundle", args=[campaign.slug]))
    assert response.status_code == 302 and sent == [(kinds.BUNDLE_TASK, (campaign.pk,))]
    # not an organiser: the console does not even confirm the campaign exists
    login(client, b.user("someone"))
    assert client.post(reverse("console:build-bundle", args=[campaign.slug])).status_code == 404
    assert len(sent) == 1


def test_published_results_page_links_the_bundle(client):
    campaign = b.campaign(CampaignState.PUBLISHED)
    url = reverse("results:campaign", args=[campaign.slug])
    link = reverse("results:bundle", args=[campaign.slug])
    PublishedSnapshot.objects.create(campaign=campaign, data={"runs": [], "genres": []}, sha256="d" * 64)
    assert link not in client.get(url).content.decode()  # none built yet: no dead link
    stored_bundle(campaign)
    assert link in client.get(url).content.decode()
