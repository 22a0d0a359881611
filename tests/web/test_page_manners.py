"""Small things a first visit trips over: an invalid run's page, the state-change message, the 404 page."""
from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaign.models import CampaignState, Run, RunStatus
from campaign.services.runs import upload_run
from tests import factories


def test_an_invalid_run_page_has_no_progress_bar_and_no_promise_of_scoring(campaign, team_a, alice, client,
                                                                           django_capture_on_commit_callbacks):
    mail = factories.gold_bytes("mail_10.xml").decode("utf-8")
    missing = re.sub(r'<E id="E2">.*?</E>\n', "", mail, count=1, flags=re.S)  # a sentence left out: a warning
    wrong = factories.gold_bytes("general_elda.xml").decode("utf-8")
    first_form = re.search(r'<F id="[^"]+">([^<]+)</F>', wrong)
    wrong = wrong[:first_form.start(1)] + "XXX" + wrong[first_form.end(1):]  # a changed word: a problem
    archive = factories.zip_of({"mail_10.xml": missing.encode(), "general_elda.xml": wrong.encode(),
                                "oral_delic_2.xml": factories.gold_bytes("oral_delic_2.xml")})
    with django_capture_on_commit_callbacks(execute=True):
        run = upload_run(campaign=campaign, team=team_a, user=alice, name="broken",
                         uploaded_file=SimpleUploadedFile("run.zip", archive))
    run.refresh_from_db()
    assert run.status == RunStatus.INVALID and run.validation_report["warnings"]
    client.force_login(alice)
    html = client.get(reverse("portal:run", kwargs={"pk": run.pk})).content.decode()
    assert "<progress" not in html  # finished: nothing is in progress
    warnings = html.split('class="warnings-title"')[1]
    assert "once the problems above are fixed" in warnings.split("</h3>")[0]
    assert "scored as empty output" not in html and "a valid run scores them as empty output" in html
    # while a run is still being worked on, the bar is there
    Run.objects.filter(pk=run.pk).update(status=RunStatus.VALIDATING, progress=40)
    assert '<progress class="status-progress" max="100" value="40">' in client.get(
        reverse("portal:run", kwargs={"pk": run.pk})).content.decode()


@pytest.mark.django_db
def test_a_state_change_is_told_in_a_sentence(client):
    organiser = factories.make_user("org")
    campaign = factories.make_campaign(state=CampaignState.SCORED, organisers=[organiser])
    client.force_login(organiser)
    response = client.post(reverse("governance:state", kwargs={"slug": campaign.slug}),
                           {"to": CampaignState.RELEASED}, follow=True)
    html = response.content.decode()
    assert "The results are released to the teams." in html
    assert "is now results released" not in html


@pytest.mark.django_db
def test_every_404_is_the_same_styled_page_with_a_viewport(client):
    from django.contrib.staticfiles import finders

    campaign = factories.make_campaign(state=CampaignState.DRAFT)
    bodies = {client.get(url).content for url in ("/no/such/page/", f"/campaigns/{campaign.slug}/",
                                                  "/runs/999999/", "/results/nothing-here/")}
    assert len(bodies) == 1
    (body,) = bodies
    html = body.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    css = re.search(r'<link rel="stylesheet" href="([^"]+)">', html).group(1)
    assert css.endswith("css/site.css") and finders.find("css/site.css")
    assert client.get(css).status_code == 200
