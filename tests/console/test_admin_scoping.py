"""The admin shows an organiser only their own campaigns: lists, list filters and foreign-key widgets."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from campaign.models import AuditEntry, CampaignState, Genre
from tests.results import builders as b

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    org = b.user("org", is_staff=True)
    org.user_permissions.add(*Permission.objects.filter(content_type__app_label__in=["campaign", "evaluation", "annotations"]))
    root = b.user("root", is_staff=True, is_superuser=True)
    mine = b.campaign(CampaignState.CLOSED, organiser=org)
    mine.name = "Mine campaign"
    mine.save()
    theirs = b.campaign(CampaignState.CLOSED)
    theirs.name = "Secret rival campaign"
    theirs.save()
    Genre.objects.filter(campaign=theirs).update(name="Secretgenre")
    runs = {}
    for c, label in ((mine, "Mine"), (theirs, "Rival")):
        t = b.team(c, f"{label} team")
        runs[label] = b.scored_run(c, t, f"{label.lower()}-run")
        AuditEntry.objects.create(action="run.upload", campaign=c, target=f"{label} entry")
    return {"org": org, "root": root, "mine": mine, "theirs": theirs, "runs": runs}


CHANGELISTS = ["admin:campaign_run_changelist", "admin:campaign_team_changelist", "admin:evaluation_result_changelist",
               "admin:campaign_auditentry_changelist", "admin:evaluation_publishedsnapshot_changelist"]


@pytest.mark.parametrize("name", CHANGELISTS)
def test_list_pages_and_their_filters_name_only_the_organisers_campaigns(client, world, name):
    client.force_login(world["org"])
    page = client.get(reverse(name))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Secret rival campaign" not in html and "Rival team" not in html
    for spec in page.context["cl"].filter_specs:
        choices = [str(c.get("display")) for c in spec.choices(page.context["cl"])]
        assert not any("Secret rival" in c or "Rival team" in c for c in choices), (spec.title, choices)


def test_superusers_see_every_campaign_in_the_filters(client, world):
    client.force_login(world["root"])
    html = client.get(reverse("admin:campaign_run_changelist")).content.decode()
    assert "Secret rival campaign" in html and "Mine campaign" in html


def test_result_list_counts_cells_per_result(client, world):
    client.force_login(world["org"])
    page = client.get(reverse("admin:evaluation_result_changelist"))
    (result,) = page.context["cl"].result_list
    assert result._cells == world["runs"]["Mine"].results.get().cells.count()


def _choices(form, field):
    return {str(label) for _, label in form.fields[field].choices if str(label) != "---------"}


def test_foreign_key_widgets_offer_only_the_organisers_rows(client, world):
    client.force_login(world["org"])
    team_form = client.get(reverse("admin:campaign_team_add")).context["adminform"].form
    assert _choices(team_form, "campaign") == {"Mine campaign"}
    doc_form_page = client.get(reverse("admin:annotations_annotationguide_add"))
    assert _choices(doc_form_page.context["adminform"].form, "campaign") == {"Mine campaign"}


def test_genre_widget_of_a_document_is_limited(world):
    # The CorpusDocument form's genre field: only genres of organised campaigns.
    from django.contrib import admin as django_admin
    from django.test import RequestFactory

    from campaign.models import CorpusDocument

    request = RequestFactory().get("/")
    request.user = world["org"]
    model_admin = django_admin.site._registry[CorpusDocument]
    field = model_admin.formfield_for_foreignkey(CorpusDocument._meta.get_field("genre"), request)
    assert set(field.queryset.values_list("campaign", flat=True)) == {world["mine"].pk}
    request.user = world["root"]
    field = model_admin.formfield_for_foreignkey(CorpusDocument._meta.get_field("genre"), request)
    assert set(field.queryset.values_list("campaign", flat=True)) == {world["mine"].pk, world["theirs"].pk}
