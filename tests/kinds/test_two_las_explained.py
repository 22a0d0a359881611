"""LAS (punctuation left out, subtypes counted) beside CoNLL 2018 LAS F1 (every word, universal relation):
every page showing both says how they differ and how the two tracks differ; a page with one LAS does not."""
from __future__ import annotations

from django.urls import reverse

from tests import factories

from .helpers import upload
from .test_pages import scored  # noqa: F401  (the fixture: two scored runs of a tree campaign)

NOTE = 'id="explain-two-las"'


def test_every_page_showing_both_las_figures_explains_them(client, dep_campaign, alice, organiser, dep_gold,
                                                           django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    run = upload(dep_campaign, team, alice, {p.name: p.read_text() for p in dep_gold},
                 django_capture_on_commit_callbacks)
    client.force_login(organiser)
    slug = dep_campaign.slug
    for url in (reverse("results:campaign", kwargs={"slug": slug}),
                reverse("results:run", kwargs={"slug": slug, "pk": run.pk}),
                reverse("portal:run", kwargs={"pk": run.pk}),
                reverse("results:ranking", kwargs={"slug": slug})):
        html = client.get(url).content.decode()
        assert "LAS F1 (CoNLL 2018)" in html and "LAS (labelled attachment)" in html, url
        assert html.count(NOTE) == 1, url
        note = html[html.index(NOTE):]
        note = note[:note.index("</p>")]
        assert "punctuation left out" in note and "punctuation included" in note
        assert "subtypes included" in note and "universal relation" in note
        assert "gold-tokens track" in note and "raw-text track" in note


def test_a_page_with_one_las_has_no_such_note(client, tree_campaign, scored, organiser):  # noqa: F811
    client.force_login(organiser)
    html = client.get(reverse("results:campaign", kwargs={"slug": tree_campaign.slug})).content.decode()
    assert "LAS (labelled attachment)" in html and NOTE not in html
