"""The explorer of an EASY and a constituency run: the buckets sum to the headline, confusion rows to the gold
counts, and a sentence with an error is drawn with it marked."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from evaluation.analysis import store
from evaluation.kinds.analysis import CONFUSION_SEPARATOR

pytestmark = pytest.mark.django_db

WRONG = 'data-state="wrong"'  # evaluation.kinds.sentence_svg's mark of a run's wrong item
MISSING = 'data-state="missing"'  # and of a gold item the run does not have


@pytest.mark.parametrize("kind", ["easy", "constituency"])
def test_the_explorer_of_each_kind(kind_worlds, kind):
    campaign, perfect, damaged = kind_worlds[kind]
    client = Client()  # the public, after the gold release
    html = client.get(f"/results/{campaign.slug}/runs/{damaged.pk}/analysis/").content.decode()
    assert 'class="chart"' in html and "<table" in html
    document = store.stored(damaged.results.get()).document
    head = document["headline"]
    assert head["f"] < 1.0 and store.analysis_of(perfect.results.get()).document["headline"]["f"] == 1.0
    for attribute in document["attributes"]:  # every attribute's buckets sum to the headline's counts
        for column in ("gold", "test", "correct"):
            assert sum(b[column] for b in attribute["buckets"]) == head[column], (attribute["name"], column)
    index = store.stored(damaged.results.get()).index
    for table in document["confusions"]:  # a row sums to the gold count of its label; "extra" is no gold label
        for row in table["rows"]:
            assert sum(c["count"] for c in row["cells"].values()) == row["count"]
        gold_rows = sum(row["count"] for row in table["rows"] if row["gold"] != "extra")
        if table["name"] in ("relations", "labels"):
            assert gold_rows == head["gold"], table["name"]
        for row in table["rows"]:  # the sentences behind every cell are kept
            for run_label in row["cells"]:
                assert index["confusions"][table["name"]][f"{row['gold']}{CONFUSION_SEPARATOR}{run_label}"]
    # A sentence with an error: its view marks it.
    key = index["errors"][0][0]
    view = client.get(f"/results/{campaign.slug}/runs/{damaged.pk}/analysis/sentence/", {"key": key})
    assert view.status_code == 200
    svg = re.search(r"<svg.*?</svg>", view.content.decode(), re.S).group(0)
    assert 'class="chart sentence-view"' in svg and (WRONG in svg or MISSING in svg)
    clean = client.get(f"/results/{campaign.slug}/runs/{perfect.pk}/analysis/sentence/", {"key": key})
    clean_svg = re.search(r"<svg.*?</svg>", clean.content.decode(), re.S).group(0)
    assert clean.status_code == 200 and WRONG not in clean_svg and MISSING not in clean_svg
    # The pairwise page and the confusion page answer.
    pair = client.get(f"/results/{campaign.slug}/analysis/compare/{perfect.pk}/{damaged.pk}/")
    assert pair.status_code == 200 and b'data-reading="' in pair.content
    assert client.get(f"/results/{campaign.slug}/runs/{damaged.pk}/analysis/confusions/").status_code == 200
    assert client.get(f"/results/{campaign.slug}/runs/{damaged.pk}/analysis/errors/").status_code == 200
