"""EASY: the paired tests count the run again (count_sentences) and agree with the stored figures."""
from __future__ import annotations

import io

import numpy as np
import pytest

from parseval.annotations.easy import read_document, write_document
from campaign import demo
from campaign.models import RunStatus
from evaluation.models import ResultCell, SentenceRows, SignificanceSet
from evaluation.significance import sets as significance
from tests import factories
from tests.web.helpers import stored_run

from .helpers import headline_row


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def perturbed_zip(recipe) -> bytes:
    files = {}
    for name in factories.SMALL_EASY_FILES:
        doc = read_document(io.BytesIO(factories.gold_bytes(name)), gold=True, name=name)
        out = io.BytesIO()
        write_document(demo.perturb(doc, recipe), out)
        files[name] = out.getvalue()
    return factories.zip_of(files)


def test_easy_pairs_match_the_stored_figures(db, storage, alice, bob, django_capture_on_commit_callbacks):
    campaign = factories.make_easy_campaign(slug="easy-sig", name="EASY significance")
    team_a = factories.make_team(campaign, alice, name="Team A")
    team_b = factories.make_team(campaign, bob, name="Team B")
    good = stored_run(campaign, team_a, alice, capture=django_capture_on_commit_callbacks, name="gold copy")
    bad = stored_run(campaign, team_b, bob, perturbed_zip(demo.TEAMS[3]["runs"][1]),
                     capture=django_capture_on_commit_callbacks, name="perturbed")
    assert good.status == bad.status == RunStatus.SCORED
    ra, rb = good.results.get(), bad.results.get()
    computed = SignificanceSet.objects.latest()
    assert computed.results == sorted([ra.pk, rb.pk]) and computed.skipped == []
    # constituents in 5 ways and relations in 3 modes x 5 = 15 ways, micro and macro: (5 + 15) x 2 = 40 figures
    assert computed.stored == 40 == len(significance.stored_headlines(computed))
    row = headline_row(computed, "micro|relations|HYP|EQUAL")
    sign = 1 if row["result_a_id"] == ra.pk else -1

    def f(result, **where):
        return ResultCell.objects.get(result=result, layer="relations", mode="HYP", match="EQUAL", **where).f

    assert sign * row["diff"] == pytest.approx(f(ra, genre="ALL", type="ALL", aggregation="micro")
                                               - f(rb, genre="ALL", type="ALL", aggregation="micro"), abs=1e-6)
    table = significance.pair_tables(computed, row["result_a_id"], row["result_b_id"],
                                     ["micro|relations|HYP|EQUAL"])["micro|relations|HYP|EQUAL"]
    genre = sorted(g for g in table["cells"] if g != "ALL")[0]
    cell = table["cells"][genre]["ALL"]
    assert sign * cell["diff"] == pytest.approx(
        f(ra, genre=genre, type="ALL", aggregation="micro") - f(rb, genre=genre, type="ALL", aggregation="micro"),
        abs=1e-6)
    macro = headline_row(computed, "macro|relations|HYP|EQUAL")
    assert sign * macro["diff"] == pytest.approx(f(ra, genre="ALL", type="ALL", aggregation="macro")
                                              - f(rb, genre="ALL", type="ALL", aggregation="macro"), abs=1e-6)
    # the gold copy is perfect, the perturbed run is not: the headline difference is significant
    assert row["significant"]
    # the rows are kept, one per gold sentence, sorted by document/sentence id
    kept = SentenceRows.objects.get(result=ra)
    with np.load(io.BytesIO(bytes(kept.data))) as z:
        assert list(z["keys"]) == sorted(z["keys"])
        assert len(z["keys"]) == ra.document["counts"]["gold_sentences"]
