"""In headless Chromium: a team member uploads a real EASY run, sees it scored,
and the results page shows exactly the stored figures."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from parseval.annotations.easy import read_document, write_document
from campaign import demo
from campaign.lifecycle import transition
from campaign.models import Campaign, CampaignState, Membership, Run, RunStatus, Team
from campaign.services.corpus import import_corpus
from evaluation.models import ResultCell
from tests.conftest import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"
SENTENCES = 25

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def eager_scoring():
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the live server scores the upload in process
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def campaign_world(shared_data, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    source = shared_data / "easy-ref" / "ref" / "general_lemonde.xml"
    gold = read_document(source, gold=True, strict=True, name=source.name)
    gold.sentences = gold.sentences[:SENTENCES]
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    write_document(gold, gold_dir / source.name)

    users = get_user_model().objects
    organiser = users.create_user("org", password="org-pw-123456")
    member = users.create_user("marie", password="marie-pw-123456")
    # pooled figures: the 15 ways are on the page before the gold release (the default shows one F per layer)
    campaign = Campaign.objects.create(name="Browser campaign", slug="browser", metrics={"bootstrap": 50},
                                       team_figures="pooled")
    campaign.organisers.add(organiser)
    import_corpus(campaign, [gold_dir / source.name], actor=organiser)
    transition(campaign, CampaignState.OPEN, actor=organiser)
    team = Team.objects.create(campaign=campaign, name="Marie's parser", slug="marie", code="A")
    Membership.objects.create(team=team, user=member)

    run_file = tmp_path / "upload" / source.name
    run_file.parent.mkdir()
    write_document(demo.perturb(gold, demo.Recipe("b", "", ((demo.shift_boundaries, 0.2), (demo.drop_relations, 0.1)), 7)),
                   run_file)
    return {"campaign": campaign, "organiser": organiser, "run_file": run_file}



def test_member_uploads_a_run_sees_it_scored_and_reads_the_stored_figures(live_server, campaign_world, chromium,
                                                                         eager_scoring):
    campaign = campaign_world["campaign"]
    page = chromium.new_page(viewport={"width": 1280, "height": 900})

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "marie")
    page.fill("#id_password", "marie-pw-123456")
    page.click("form.stacked button[type=submit]")
    page.wait_for_load_state()

    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/upload/")
    page.fill("#id_name", "my-parser-v1")
    page.fill("#id_system_description", "Chunker and relation finder, browser test.")
    page.select_option("#id_scope", "test")
    page.set_input_files("#id_file", str(campaign_world["run_file"]))
    page.click("form.stacked button[type=submit]")
    page.wait_for_url(re.compile(r"/runs/\d+/$"))

    run = Run.objects.get(campaign=campaign, name="my-parser-v1")
    # Before the release a team sees its test run only as accepted, never as scored (no timing channel).
    page.wait_for_selector('.status-label[data-status="accepted"]', timeout=60_000)
    assert run.sha256 in page.content()  # the receipt
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED

    # Before the release the member's results page holds no score.
    page.goto(f"{live_server.url}/results/{campaign.slug}/")
    assert page.locator("td[data-f]").count() == 0

    for state in (CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED):
        transition(campaign, state, actor=campaign_world["organiser"])

    # After the release the run page tells the whole story.
    page.goto(f"{live_server.url}/runs/{run.pk}/")
    page.wait_for_selector('.status-label[data-status="scored"]', timeout=10_000)

    page.goto(f"{live_server.url}/results/{campaign.slug}/?mode=HYP&match=EQUAL")
    row = page.locator(f'table.overview tr[data-run="{run.pk}"]')
    assert row.count() == 1
    cells = row.locator("td[data-f]")
    # Before the gold release a team reads its figures to 0.1 point, pooled (docs/threat-model.md).
    stored = {
        layer: round(ResultCell.objects.get(result__run=run, aggregation="micro", layer=layer, mode=mode,
                                            match="EQUAL", genre="ALL", type="ALL").f, 3)
        for layer, mode in (("relations", "HYP"), ("constituents", ""))
    }
    assert float(cells.nth(0).get_attribute("data-f")) == stored["relations"]
    assert float(cells.nth(1).get_attribute("data-f")) == stored["constituents"]
    assert cells.nth(0).inner_text().split("\n")[0].strip() == f"{100 * stored['relations']:.1f}"
    assert cells.nth(1).inner_text().split("\n")[0].strip() == f"{100 * stored['constituents']:.1f}"
    assert 0 < stored["relations"] < 1 and 0 < stored["constituents"] < 1

    # the 15 ways, as drawn and as tabulated
    ways = page.locator(f'table.ways-table[data-layer="relations"] tr[data-run="{run.pk}"] td[data-f]')
    shown = [float(ways.nth(i).get_attribute("data-f")) for i in range(ways.count())]
    expected = [round(ResultCell.objects.get(result__run=run, aggregation="micro", layer="relations", mode=m,
                                             match=x, genre="ALL", type="ALL").f, 3)
                for m in ("HYP", "DEFHYP", "REF") for x in ("EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER")]
    assert shown == expected
    # the heatmap of the ways: one cell per way, the stored figure in each (15 relation ways, 5 constituent ones)
    cells = page.locator("#ways-relations svg.chart g.cell")
    assert cells.count() == 15
    assert [float(cells.nth(i).get_attribute("data-value")) for i in range(15)] == expected
    assert page.locator("#ways-constituents svg.chart g.cell").count() == 5
    assert "F = " in cells.first.locator("title").text_content()

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "results-page.png"), full_page=True)
    assert (ARTIFACTS / "results-page.png").stat().st_size > 10_000

    # on a phone the tables scroll sideways instead of overflowing the page
    phone = chromium.new_page(viewport={"width": 375, "height": 740})
    phone.context.add_cookies(page.context.cookies())
    phone.goto(f"{live_server.url}/results/{campaign.slug}/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375 + 1
    connections.close_all()
