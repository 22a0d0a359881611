"""The development sample's round trip: the zip a team downloads is a valid development-sample run as it is."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotations.models import GoldSentence
from campaign.subsets import mark_subset
from campaign.models import Campaign, CampaignState, Run, RunStatus
from campaign.services.corpus import import_corpus
from campaign.services.runs import upload_run
from tests import factories

from .conftest import team, user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def dev_campaign(organiser, storage):
    c = Campaign.objects.create(name="Dev flow", slug="dev-flow", dev_sample_public=True, corpus_public=True)
    c.organisers.add(organiser)
    import_corpus(c, factories.easy_gold_paths(factories.SMALL_EASY_FILES))
    # the first 5 sentences of one document only form the development sample
    dev = GoldSentence.objects.filter(sentence__document__campaign=c, sentence__document__name="mail_10")
    mark_subset(c, "dev", sentences=list(dev.order_by("sentence__position")[:5].values_list("sentence_id", flat=True)))
    Campaign.objects.filter(pk=c.pk).update(state=CampaignState.OPEN)
    c.refresh_from_db()
    return c


def test_the_downloaded_dev_sample_uploads_back_as_a_dev_run_and_scores_1(dev_campaign, django_capture_on_commit_callbacks):
    member = user("dev-member")
    t = team(dev_campaign, member)
    client = Client()
    client.force_login(member)
    data = client.get(f"/governance/campaigns/{dev_campaign.slug}/dev-sample.zip").content
    with django_capture_on_commit_callbacks(execute=True):
        run = upload_run(campaign=dev_campaign, team=t, user=member, name="dev check", scope=Run.Scope.DEV,
                         uploaded_file=SimpleUploadedFile(f"{dev_campaign.slug}-dev-sample.zip", data))
    run.refresh_from_db()
    assert run.status == RunStatus.SCORED, (run.status, run.status_reason, run.validation_report)
    # only mail_10 was in the sample: the other documents are not asked for in a development-sample run
    assert run.validation_report["valid"] and run.validation_report["documents"] == 1
    cells = run.results.get().cells.filter(genre="ALL", type="ALL")
    assert cells.count() and all(c.f == 1.0 for c in cells if c.fp or c.cr)
