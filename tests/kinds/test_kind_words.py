"""The team's pages speak of the campaign's kind: no EASY words on a tree or dependency campaign.

The corpus link says what the zip holds (and the zip holds that), the upload page names the run files
of the kind, and the organisers' error lab (damaged phrase-structure treebanks) is offered only on the
campaigns whose kind it applies to.
"""
from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.urls import reverse

from tests import factories


def corpus_link(client, campaign) -> str:
    page = client.get(campaign.get_absolute_url()).content.decode()
    match = re.search(r'<a href="%s">([^<]*)</a>' % re.escape(reverse("portal:corpus_download", args=[campaign.slug])),
                      page)
    assert match, page
    return match.group(1)


def zip_suffixes(client, campaign) -> set[str]:
    response = client.get(reverse("portal:corpus_download", args=[campaign.slug]))
    data = b"".join(response.streaming_content)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    return {name.split(".", 1)[1] for name in names if "." in name}


@pytest.mark.parametrize("fixture, words, suffixes", [
    ("dep_campaign", ["(.tok)", "(.txt)", "(.tokens.conllu)"], {"tok", "txt", "tokens.conllu"}),
    ("tree_campaign", ["(.tok)"], {"tok"}),
])
def test_the_corpus_link_says_what_the_zip_holds(request, client, alice, fixture, words, suffixes):
    campaign = request.getfixturevalue(fixture)
    factories.make_team(campaign, alice)
    client.force_login(alice)
    text = corpus_link(client, campaign)
    assert "EASY" not in text and text.startswith("Download the corpus")
    assert all(w in text for w in words), text
    assert zip_suffixes(client, campaign) == suffixes


@pytest.mark.parametrize("fixture, label", [("dep_campaign", "CoNLL-U file"),
                                            ("tree_campaign", "tree file (Penn or square brackets)")])
def test_the_upload_page_names_the_kinds_run_files(request, client, alice, fixture, label):
    campaign = request.getfixturevalue(fixture)
    factories.make_team(campaign, alice)
    client.force_login(alice)
    page = client.get(reverse("portal:run_upload", args=[campaign.slug])).content.decode()
    assert f"Name each {label} after the corpus document it annotates." in page
    assert "EASY" not in page


def test_an_easy_campaign_taking_conllu_names_both_formats(db, storage, client, alice, organiser):
    campaign = factories.make_campaign(slug="easy-words", organisers=[organiser],
                                       metrics={"run_formats": ["easy-xml", "conllu"]})
    factories.make_team(campaign, alice)
    client.force_login(alice)
    page = client.get(reverse("portal:run_upload", args=[campaign.slug])).content.decode()
    assert "Name each EASY .xml or CoNLL-U .conllu file after the corpus document it annotates." in page


def test_the_error_lab_is_offered_only_where_it_applies(db, storage, client, organiser, tree_campaign, dep_campaign):
    easy = factories.make_campaign(slug="easy-lab", organisers=[organiser])
    client.force_login(organiser)
    page = client.get(reverse("portal:home")).content.decode()
    assert reverse("lab:error_lab", args=[tree_campaign.slug]) in page
    assert reverse("lab:error_lab", args=[easy.slug]) not in page
    assert reverse("lab:error_lab", args=[dep_campaign.slug]) not in page
