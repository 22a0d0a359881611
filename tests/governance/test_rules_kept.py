"""The rules kept before the gold release, tried as an adversarial team and as the public.

* A scored test run that its team withdrew shows no figure to anyone but the organisers until the gold
  release (docs/governance.md): withdrawing is not a way around the run limit, so a withdrawn run is no
  extra probe of the test set.
* What anyone reads of a published campaign under the default team figures (the significance document, the
  published snapshot through ``data.json`` and the pages, the publication bundle's ``results.json`` and
  ``bundle.json``) holds no count of test sentences (per genre or in all), no full-precision consensus oracle
  (its value, its per-genre values), no count of the test sentences each combined run won (``picked``) or the
  oracle was read on, and no p-value finer than the differences it goes with.

Values nobody prints by chance are planted in the stored results, the consensus run's combination and the
significance set, and every document is searched for them (the leak tests' style, :mod:`.world`). The
self-tests search the same documents after the gold release, when nothing is limited, and find every planted
value: the scanner can find what it looks for.
"""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from campaign import lifecycle
from campaign.models import CampaignState, Run, TeamFigures
from campaign.services.runs import withdraw_run
from evaluation.consensus import runs as consensus_runs
from evaluation.results import disclosure
from evaluation.bundle import publication as publication_bundle
from evaluation.significance import sets as significance
from evaluation.models import SignificanceFigure, SignificanceSet, SignificanceTable
from evaluation.significance import packing
from evaluation.results.summaries import visible_results

from . import walker
from .conftest import run as make_run
from .world import SCORES_A, SCORES_B, Scores, WholeNumber, _result, build_world

pytestmark = pytest.mark.django_db(transaction=False)

FIGURE = "micro|relations|HYP|EQUAL"


def through(world, *states: str) -> None:
    for state in states:
        lifecycle.transition(world.campaign, state, actor=world.organiser)


def client_of(world, role: str | None) -> Client:
    client = Client()
    if role is not None:
        client.force_login(world.users[role])
    return client


# -- a withdrawn scored run ---------------------------------------------------------------------------

def withdrawn_run_views(world, client: Client) -> dict[str, str]:
    """Every way its team reads a run's figures: the API, the run page, the run's results page, data.json."""
    run, slug = world.runs["A"], world.campaign.slug
    urls = {"api": f"/api/runs/{run.pk}/results/?format=json", "run page": f"/runs/{run.pk}/",
            "results page": f"/results/{slug}/runs/{run.pk}/", "data.json": f"/results/{slug}/data.json",
            "results": f"/results/{slug}/"}
    return {name: walker.body_text(client.get(url)) for name, url in urls.items()}


def test_a_withdrawn_scored_run_shows_no_figure_before_the_gold_release(tmp_path):
    """Team A uploads, its run is scored, it withdraws it (as a team at its run limit would, to upload another)
    and reads the withdrawn run's figures at the results release and at publication: nothing, under full figures
    (which print the planted values exactly), until the gold release, when they are there."""
    world = build_world(tmp_path)
    through(world, CampaignState.OPEN)
    withdraw_run(world.runs["A"], user=world.users["A"])
    scores = {"team A's withdrawn run": SCORES_A.textual_forms()}

    through(world, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED)
    team = client_of(world, "A")
    assert team.get(f"/api/runs/{world.runs['A'].pk}/results/").status_code in (403, 404)
    seen = withdrawn_run_views(world, team)
    assert not {way: walker.find_markers(text, scores) for way, text in seen.items() if walker.find_markers(text, scores)}
    assert "withdrawn-scores" in seen["run page"]  # the page says why, not "wait for the release"
    # Team B's own run, not withdrawn, is shown as before: the rule is about withdrawal only.
    mine = walker.body_text(client_of(world, "B").get(f"/api/runs/{world.runs['B'].pk}/results/?format=json"))
    assert walker.find_markers(mine, {"B": SCORES_B.textual_forms()})

    through(world, CampaignState.PUBLISHED)
    for role in ("A", None):
        seen = withdrawn_run_views(world, client_of(world, role))
        assert not any(walker.find_markers(text, scores) for text in seen.values()), role

    # Self-test: at the gold release the withdrawn run's figures are its team's, found by the same search.
    through(world, CampaignState.GOLD_RELEASED)
    seen = withdrawn_run_views(world, team)
    assert walker.find_markers(seen["api"], scores) and walker.find_markers(seen["run page"], scores)


# -- planted values in the anonymous documents of a published campaign ----------------------------------------

def forms(value: float, *, percent: bool = True) -> list[WholeNumber]:
    """How a page or a document may print a fraction more finely than to 0.001 (the planted values have a
    non-zero fourth decimal, so that a value rounded to 0.001 never prints as one of these)."""
    out = [repr(value), f"{value:.4f}", f"{value:.6f}"]
    if percent:
        out.append(f"{100 * value:.2f}")
    return [WholeNumber(f) for f in out]


ORACLE_VALUE = 0.5083215796897038  # the value finding 4 read on the results page
ORACLE_GENRES = (0.4127391846, 0.3861529374, 0.6234917528)
MEAN_AGREEMENT = 0.7364928157
PICKED = [5417203, 6029311]
ORACLE_SENTENCES = 1144679
SENTENCES_ALL = 3579113
SENTENCES_GENRES = (1736291, 1264837, 578009)
P_VALUE, P_HOLM, P_BH = 0.0123457, 0.0417293, 0.0246913
DIFF, SE = 0.0345678, 0.0123987
SCORES_CONSENSUS = Scores(0.857193462, 0.794618253, 0.735291846, 4481, 4663, 4877, (0.843916527, 0.871254639))


def planted(genres: list[str]) -> dict[str, list]:
    return {
        "the oracle's value": forms(ORACLE_VALUE),
        "the oracle's genre values": [f for v in ORACLE_GENRES[:len(genres)] for f in forms(v)],
        "the agreement of the combined runs": forms(MEAN_AGREEMENT),
        "picked": [WholeNumber(str(n)) for n in PICKED],
        "the oracle's sentences": [WholeNumber(str(ORACLE_SENTENCES))],
        "the test sentences in all": [WholeNumber(str(SENTENCES_ALL))],
        "the test sentences per genre": [WholeNumber(str(n)) for n in SENTENCES_GENRES[:len(genres)]],
        "an unrounded p-value": forms(P_VALUE, percent=False) + forms(P_HOLM, percent=False),
        "an unrounded difference": forms(DIFF),
    }


def planted_world(tmp_path):
    """The leak tests' world under the default team figures, with a scored consensus run of teams A and B and a
    significance set between A and B, each carrying planted values."""
    world = build_world(tmp_path)
    campaign = world.campaign
    campaign.team_figures = TeamFigures.POOLED  # the default: what the public sees of a default campaign
    campaign.save(update_fields=["team_figures"])
    genres = sorted(campaign.genres.values_list("code", flat=True))
    oracle = {"figure": FIGURE, "type": "ALL", "value": ORACLE_VALUE,
              "genres": dict(zip(genres, ORACLE_GENRES)), "sentences": ORACLE_SENTENCES, "picked": PICKED}
    combination = {"runs": [{"run": world.runs[t].pk, "weight": 0.5} for t in "AB"], "weighting": "equal",
                   "mean_agreement": MEAN_AGREEMENT, "oracle": oracle}
    consensus = make_run(consensus_runs.consensus_team(campaign), name="Consensus of 2 runs",
                         combination=combination, content=b"<DOCUMENT><!-- consensus --></DOCUMENT>")
    world.runs["consensus"] = consensus
    world.results["consensus"] = _result(consensus, SCORES_CONSENSUS, genres, "E1")
    computed = SignificanceSet.objects.get(campaign=campaign)
    computed.sentences = {"ALL": SENTENCES_ALL, **dict(zip(genres, SENTENCES_GENRES))}
    computed.results = sorted(r.pk for r in world.results.values())
    computed.save(update_fields=["sentences", "results"])
    # Stored as the worker stores them (evaluation.significance.sets): a row per figure with every pair's
    # headline (raw difference, standard error, p, Holm-adjusted p, agreement), a row per figure and second
    # result with the pairs' cells. Every genre cell has the p-value P_BH: Benjamini-Hochberg over equal
    # p-values keeps them, so the comparison table shows P_BH.
    ids = sorted(r.pk for r in world.results.values())
    strata = ["ALL", *genres]
    pairs = len(ids) * (len(ids) - 1) // 2
    agreement = [len(genres), len(genres), 0, 0, 0, 0, 0]
    SignificanceFigure.objects.create(set=computed, figure=FIGURE, context="planted", results=ids, family=3,
                                      heads=packing.pack({"heads": np.array([[DIFF, SE, P_VALUE]] * pairs),
                                                          "p_holm": np.full(pairs, P_HOLM),
                                                          "agreement": np.array([agreement] * pairs, dtype=np.int32)}))
    cell = [[[np.nan]] + [[DIFF]] * len(genres), [[np.nan]] + [[SE]] * len(genres),
            [[np.nan]] + [[P_BH]] * len(genres)]
    for j, b in enumerate(ids[1:], start=1):
        SignificanceTable.objects.create(
            campaign=campaign, context="planted", figure=FIGURE, result_b_id=b, others=ids[:j], strata=strata,
            types=["ALL"], heads=packing.pack({"heads": np.array([[DIFF, SE, P_VALUE]] * j),
                                               "agreement": np.array([agreement] * j, dtype=np.int32)}),
            cells=packing.pack({"cells": np.array([cell] * j, dtype=np.float32)}))
    return world, genres


def public_documents(world, client: Client) -> dict[str, str]:
    """Everything anyone reads of the published campaign's figures: the significance document (page JSON and
    API), the published snapshot (data.json, the results, ranking, comparison and consensus run pages) and the
    publication bundle (results.json, bundle.json)."""
    slug, runs = world.campaign.slug, world.runs
    urls = {
        "significance.json": f"/results/{slug}/significance.json",
        "significance API": f"/api/campaigns/{slug}/significance/?format=json",
        "data.json": f"/results/{slug}/data.json",
        "results page": f"/results/{slug}/",
        "ranking": f"/results/{slug}/ranking/?figure={FIGURE}",
        "comparison": f"/results/{slug}/compare/{runs['A'].pk}/{runs['B'].pk}/?figure={FIGURE}",
        "consensus comparison": f"/results/{slug}/compare/{runs['consensus'].pk}/{runs['A'].pk}/?figure={FIGURE}",
        "consensus run page": f"/results/{slug}/runs/{runs['consensus'].pk}/",
    }
    seen = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        seen[name] = walker.body_text(response)
    archive = publication_bundle.archive_bytes(world.campaign)
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        for name in ("results.json", "bundle.json"):
            seen[f"bundle {name}"] = zf.read(name).decode()
    return seen


def found_in(seen: dict[str, str], markers: dict[str, list]) -> dict[str, list[str]]:
    return {name: hits for name, text in seen.items() if (hits := walker.find_markers(text, markers))}


def test_anonymous_documents_hold_no_count_no_full_oracle_and_no_unrounded_p(tmp_path):
    world, genres = planted_world(tmp_path)
    through(world, CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED,
            CampaignState.PUBLISHED)
    markers = planted(genres)
    for role in (None, "A", "outsider"):
        seen = public_documents(world, client_of(world, role))
        assert not found_in(seen, markers), role
    # What is shown is there, rounded: the oracle to 0.1 point, the headline p to 0.001.
    data = client_of(world, None).get(f"/results/{world.campaign.slug}/data.json").json()["data"]
    entry = next(r for r in data["runs"] if r.get("consensus"))
    assert entry["consensus"]["oracle"]["value"] == round(ORACLE_VALUE, disclosure.DECIMALS)
    assert entry["consensus"]["oracle"]["genres"] == {}
    assert "picked" not in entry["consensus"]["oracle"] and "sentences" not in entry["consensus"]["oracle"]
    document = client_of(world, None).get(f"/results/{world.campaign.slug}/significance.json").json()
    assert document["computed"]["sentences"] is None
    assert {p["p_holm"] for p in document["pairs"]} == {round(P_HOLM, disclosure.DECIMALS)}
    # The cells of a comparison table where genre cells are shown (``rates``): their p-values rounded as well.
    world.campaign.team_figures, world.campaign.min_genre_sentences = TeamFigures.RATES, 1
    tables = significance.pair_tables(SignificanceSet.objects.get(campaign=world.campaign),
                                      world.results["A"].pk, world.results["B"].pk)
    cells = [c for t in disclosure.limit_pair_tables(tables, AnonymousUser(), world.campaign).values()
             for types in t["cells"].values() for c in types.values()]
    assert len(cells) > 1 and all(c[k] == round(c[k], disclosure.DECIMALS) for c in cells
                                  for k in ("p", "p_holm", "p_bh") if c.get(k) is not None)
    assert {c["p_bh"] for c in cells if c.get("p_bh") is not None} == {round(P_BH, disclosure.DECIMALS)}
    world.campaign.refresh_from_db()
    # The organisers keep everything.
    organiser = Client()
    organiser.force_login(world.organiser)
    kept = found_in(public_documents(world, organiser), markers)
    assert {"the oracle's value", "picked", "the test sentences per genre", "an unrounded p-value"} <= \
        {hit.split(" (")[0] for hits in kept.values() for hit in hits}


def test_counts_of_test_sentences_stay_hidden_under_full_figures(tmp_path):
    """Full figures are the organisers' choice of rates and counts per cell; counts of test sentences stay theirs
    until the gold release whatever the setting, as the genre statistics' annotated counts do."""
    world, genres = planted_world(tmp_path)
    world.campaign.team_figures = TeamFigures.FULL
    world.campaign.save(update_fields=["team_figures"])
    through(world, CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED,
            CampaignState.PUBLISHED)
    markers = planted(genres)
    counts = {k: markers[k] for k in ("picked", "the oracle's sentences", "the test sentences in all",
                                      "the test sentences per genre")}
    seen = public_documents(world, client_of(world, None))
    assert not found_in(seen, counts)
    assert found_in(seen, {"the oracle's value": markers["the oracle's value"]})  # the full figures, as chosen


def test_self_test_after_the_gold_release_the_scanner_finds_every_planted_value(tmp_path):
    world, genres = planted_world(tmp_path)
    through(world, CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED,
            CampaignState.PUBLISHED, CampaignState.GOLD_RELEASED)
    markers = planted(genres)
    seen = public_documents(world, client_of(world, None))
    hits = {hit.split(" (")[0] for found in found_in(seen, markers).values() for hit in found}
    assert hits == set(markers), f"not found: {set(markers) - hits}"


def test_the_consensus_goes_through_the_same_disclosure_function_as_every_run(tmp_path):
    """The published snapshot's runs, a team's and the consensus alike, are limited by one function:
    :func:`disclosure.limit_entry`, called once per run."""
    from unittest import mock

    world, _ = planted_world(tmp_path)
    through(world, CampaignState.OPEN, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED,
            CampaignState.PUBLISHED)
    with mock.patch.object(disclosure, "limit_entry", wraps=disclosure.limit_entry) as spy:
        data = visible_results(AnonymousUser(), world.campaign).data
    shown = {e["run"] for e in data["runs"] if e["scope"] == Run.Scope.TEST}
    assert world.runs["consensus"].pk in shown
    assert sorted(call.args[0]["run"] for call in spy.call_args_list) == sorted(shown)
