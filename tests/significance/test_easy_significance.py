"""EASY: the paired tests count the run again (count_sentences) and agree with the stored figures."""
from __future__ import annotations

import io

import numpy as np
import pytest

from parseval.annotations.easy import read_document, write_document
from campaign import demo
from campaign.models import RunStatus
from evaluation.models import PairedDifference, ResultCell, SentenceRows, SignificanceSet
from tests import factories
from tests.web.helpers import stored_run


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
    assert computed.pairs.count() == 40
    row = PairedDifference.objects.get(set=computed, figure="micro|relations|HYP|EQUAL")
    sign = 1 if row.result_a_id == ra.pk else -1

    def f(result, **where):
        return ResultCell.objects.get(result=result, layer="relations", mode="HYP", match="EQUAL", **where).f

    assert sign * row.diff == pytest.approx(f(ra, genre="ALL", type="ALL", aggregation="micro")
                                            - f(rb, genre="ALL", type="ALL", aggregation="micro"), abs=1e-6)
    genre = row.cells["genres"][0]
    cell = row.cells["values"][0][row.cells["types"].index("ALL")]
    assert sign * cell[0] == pytest.approx(
        f(ra, genre=genre, type="ALL", aggregation="micro") - f(rb, genre=genre, type="ALL", aggregation="micro"),
        abs=1e-6)
    macro = PairedDifference.objects.get(set=computed, figure="macro|relations|HYP|EQUAL")
    assert sign * macro.diff == pytest.approx(f(ra, genre="ALL", type="ALL", aggregation="macro")
                                              - f(rb, genre="ALL", type="ALL", aggregation="macro"), abs=1e-6)
    # the gold copy is perfect, the perturbed run is not: the headline difference is significant
    assert row.significant
    # the rows are kept, one per gold sentence, sorted by document/sentence id
    kept = SentenceRows.objects.get(result=ra)
    with np.load(io.BytesIO(bytes(kept.data))) as z:
        assert list(z["keys"]) == sorted(z["keys"])
        assert len(z["keys"]) == ra.document["counts"]["gold_sentences"]
