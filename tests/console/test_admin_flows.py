"""The admin as an organiser uses it: every link works, creating a campaign keeps its creator, corpus import."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from campaign.management.commands.load_demo import organisers_group
from campaign.models import AuditEntry
from tests import factories
from tests.console.crawl import crawl


@pytest.fixture
def staff_organiser(db):
    user = factories.make_user("orga", is_staff=True)
    user.groups.add(organisers_group())
    return user


@pytest.mark.django_db
def test_no_admin_link_leads_to_an_error_for_an_organiser(storage, staff_organiser):
    from django.core.files.base import ContentFile

    from annotations.models import AnnotationGuide, GuideVersion

    campaign = factories.make_easy_campaign(organisers=[staff_organiser])
    other = factories.make_user("other-staff", is_staff=True)
    factories.make_team(campaign, other)
    guide = AnnotationGuide.objects.create(campaign=campaign, title="Guide")
    version = GuideVersion(guide=guide, version="1.0")
    version.document.save("guide.pdf", ContentFile(b"%PDF-1.4 guide"), save=True)
    client = Client()
    client.force_login(staff_organiser)
    seen = crawl(client, "/admin/", follow=("/admin/",))
    bad = {url: code for url, code in seen.items() if code >= 400}
    assert not bad, bad
    assert len(seen) > 30  # the walk went through the campaign, its documents, gold, teams, audit entries
    guide_link = f"/admin/annotations/annotationguide/version/{version.pk}/document/"
    assert seen.get(guide_link) == 200
    # gold files come through a view only the campaign's organisers reach, and the download is audited
    gold_links = [u for u in seen if re.fullmatch(r"/admin/annotations/golddocument/\d+/file/", u)]
    assert len(gold_links) == 3
    response = client.get(gold_links[0])
    assert b"".join(response.streaming_content).startswith(b"<?xml")
    assert AuditEntry.objects.filter(campaign=campaign, action="gold.download", actor=staff_organiser).exists()
    stranger = factories.make_user("stranger", is_staff=True)
    stranger.groups.add(organisers_group())
    client.force_login(stranger)
    assert client.get(gold_links[0]).status_code == 404


def _add_form_data(client, **fields) -> dict:
    """The admin's add-campaign form as a browser would post it (inline management forms included)."""
    html = client.get("/admin/campaign/campaign/add/").content.decode()
    data = {name: value for name, value in re.findall(r'<input type="hidden" name="([^"]+-(?:TOTAL|INITIAL|MIN_NUM|MAX_NUM)_FORMS)"[^>]*value="(\d+)"', html)}
    assert data, "no inline management form found"
    data.update({"name": "Admin-made", "slug": "admin-made", "language": "fr", "kind": "easy", "runs_per_team": 3,
                 "invalid_uploads_per_day": 10, "uploads_per_day": 10, "withdrawals_per_day": 2, "max_upload_bytes": 1000000, "publication": "coded", "team_admission": "open",
                 "metrics": "{}", "description": "", "team_figures": "pooled", "min_genre_sentences": 20})
    data.update(fields)
    return data


@pytest.mark.django_db
def test_a_campaign_created_in_the_admin_keeps_its_creator_as_organiser(staff_organiser):
    from campaign.models import Campaign

    colleague = factories.make_user("colleague", is_staff=True)
    not_staff = factories.make_user("participant")
    client = Client()
    client.force_login(staff_organiser)
    page = client.get("/admin/campaign/campaign/add/")
    choices = page.context["adminform"].form.fields["organisers"].queryset
    assert set(choices) == {staff_organiser, colleague} and not_staff not in choices  # staff users only

    # the creator names only a colleague: the many-to-many save used to drop the creator
    response = client.post("/admin/campaign/campaign/add/", _add_form_data(client, organisers=[colleague.pk]))
    assert response.status_code == 302, response.context["adminform"].form.errors
    campaign = Campaign.objects.get(slug="admin-made")
    assert set(campaign.organisers.all()) == {staff_organiser, colleague}
    assert client.get(f"/admin/campaign/campaign/{campaign.pk}/change/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("kind, metrics, message", [
    ("easy", '{"bootstrapp": 10}', "Unknown option(s) bootstrapp for a easy campaign"),
    ("easy", '{"matches": ["SIMILAR"]}', "matches must be a list drawn from"),
    ("easy", '{"bootstrap": "many"}', "invalid literal for int()"),
    ("easy", '[1, 2]', "Write a JSON object"),
    ("constituency", '{"tree_metrics": ["evalb", "parseval"]}', "unknown tree metric(s) parseval"),
    ("dependency", '{"punct": "upos:"}', "punct:"),
])
def test_scoring_options_are_checked_against_the_kind(staff_organiser, kind, metrics, message):
    client = Client()
    client.force_login(staff_organiser)
    response = client.post("/admin/campaign/campaign/add/", _add_form_data(client, kind=kind, metrics=metrics))
    assert response.status_code == 200  # the form again, with the error
    errors = response.context["adminform"].form.errors["metrics"]
    assert any(message in e for e in errors), errors
    assert b"Checked when saved." in response.content  # the help text says what goes in the field


@pytest.mark.django_db
def test_guide_schema_is_checked_when_saved():
    from campaign.gold_admin import GuideVersionForm
    from parseval.annotations.easy.schema import DEFAULT_SCHEMA

    good = GuideVersionForm(data={"version": "2", "notes": "", "schema": json.dumps(DEFAULT_SCHEMA.to_dict())})
    bad = GuideVersionForm(data={"version": "2", "notes": "", "schema": '{"group_types": ["GN"]}'})
    assert "schema" not in good.errors
    assert "Not a schema: invalid EASY schema: missing or malformed field 'relation_types'" in bad.errors["schema"][0]


@pytest.mark.django_db
def test_organiser_imports_a_corpus_from_the_admin_with_a_zip(storage, staff_organiser):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaign.models import AuditEntry as Entry

    campaign = factories.make_campaign(organisers=[staff_organiser], state="draft")
    client = Client()
    client.force_login(staff_organiser)
    change = client.get(f"/admin/campaign/campaign/{campaign.pk}/change/").content.decode()
    url = f"/admin/campaign/campaign/{campaign.pk}/import-corpus/"
    assert f'href="{url}"' in change

    # a zip holding a file that is not EASY: nothing kept, the problem named
    bad = factories.zip_of({"mail_10.xml": factories.gold_bytes("mail_10.xml"), "notes.xml": b"<DOCUMENT><E id='E1'>"})
    page = client.post(url, {"archive": SimpleUploadedFile("gold.zip", bad), "subset": "test"})
    assert page.status_code == 200 and "Nothing imported" in page.content.decode()
    assert "notes.xml" in page.content.decode() and not campaign.documents.exists()

    good = factories.zip_of({n: factories.gold_bytes(n) for n in factories.SMALL_EASY_FILES})
    response = client.post(url, {"archive": SimpleUploadedFile("gold.zip", good), "subset": "dev"})
    assert response.status_code == 302
    assert sorted(campaign.documents.values_list("name", flat=True)) == ["general_elda", "mail_10", "oral_delic_2"]
    from annotations.models import GoldSentence
    subsets = GoldSentence.objects.filter(sentence__document__campaign=campaign).values_list("subset", flat=True)
    assert set(subsets) == {"dev"}
    assert Entry.objects.filter(campaign=campaign, action="corpus.import", actor=staff_organiser).exists()

    # another staff organiser of another campaign cannot reach this page
    stranger = factories.make_user("stranger2", is_staff=True)
    stranger.groups.add(organisers_group())
    client.force_login(stranger)
    assert client.get(url).status_code == 404
