"""The secrecy budget, attacked as a team that reads the code (issue: "secrecy you can count").

The adversary of :mod:`evaluation.secrecy_budget` searches probe codes against what each team-figures setting
shows before the gold release. Written as that adversary:

* it can find a code: against ``full`` it decodes every non-development sentence of the demo campaign, and
  against the old ``pooled`` default it finds the issue's code (at least 7 bits per probe run from the
  pooled precision of a one-relation-per-sentence baseline padded with ``u * 2^i`` surely-wrong relations),
  and that code, simulated on a random test set and read through the rounded figure, gives every bit back;
* against the new default it decodes at most 1 sentence per disclosed run and at most 1 % of the
  non-development sentences with every admitted team, on the demo campaign and on 40,000 sentences;
* through the API, a team with a baseline and two probe runs reads, under the default, no precision at all and
  no figure of any run but its primary one: nothing for the issue's decoder (which needs both precisions).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from evaluation import secrecy_budget as sb

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_shape():
    paths = sorted((ROOT / "data" / "easy-ref" / "ref").glob("*.xml"))
    return sb.easy_shape(paths, test_ratio=0.9, dev_ratio=0.1, teams=5, name="demo")


def _issue_shape(demo_shape, test=358):
    """The issue's campaign: the reference corpus with T = 358 test sentences."""
    total = demo_shape.test_total
    return sb.Shape(demo_shape.words, {g: round(n * test / total) for g, n in demo_shape.test.items()}, teams=5)


def test_against_full_it_decodes_everything(demo_shape):
    b = sb.budget(demo_shape, "full")
    assert b.decodable == b.non_dev and b.bits_per_run > 100


def test_against_the_old_pooled_it_finds_the_issues_code_and_it_decodes(demo_shape):
    shape = _issue_shape(demo_shape)
    b = sb.budget(shape, "pooled")
    relations = dict(b.sums)["relations pooled"]
    assert relations.bits >= 7 and b.bits_per_run >= 13  # the issue: 7, and 13 with a PV group per sentence
    assert sb.budget(shape, "rates").bits_per_run >= 30  # the issue: 30, from 6-bit codes in 5 genres

    # The code, played: a baseline of one relation per sentence (c of them right), the probe padded with the
    # code's weights; the team reads the probe's pooled precision and its difference from the baseline's (the
    # paired test's headline), both to 0.1 point, and looks K up.
    T, step = shape.test_total, 0.001
    c = round(relations.baseline[1] * T)
    weights = relations.weights

    def reading(K):
        return round(c / (T + K) / step), round((c / T - c / (T + K)) / step)

    table = {}
    for mask in range(2 ** len(weights)):
        table.setdefault(reading(sum(w for i, w in enumerate(weights) if mask >> i & 1)), []).append(mask)
    assert all(len(masks) == 1 for masks in table.values())  # every reading names one membership pattern
    rng = random.Random(34)
    for _ in range(50):
        truth = [rng.random() < 0.5 for _ in weights]
        (mask,) = table[reading(sum(w for w, t in zip(weights, truth) if t))]
        assert [bool(mask >> i & 1) for i in range(len(weights))] == truth


@pytest.mark.parametrize("which", ["demo", "40,000 sentences, 16 teams"])
def test_the_default_keeps_the_budget_small(demo_shape, which):
    shape = demo_shape if which == "demo" else sb.scaled_shape(
        demo_shape.words, sentences=40_000, test_ratio=0.1, dev_ratio=0.025, teams=16)
    b = sb.budget(shape, sb.SETTINGS["primary"])
    assert b.bits_per_run <= 1 and b.runs_per_team == 1
    assert b.decodable <= 0.01 * b.non_dev
    old = sb.budget(shape, "pooled")
    assert old.decodable > 0.01 * b.non_dev or old.bits_per_run > 1  # the old default failed one of the two


@pytest.mark.django_db
def test_three_runs_through_the_api_show_one_f_per_layer_and_no_precision(organiser, alice,
                                                                         django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from campaign import lifecycle
    from campaign.models import CampaignState, RunStatus
    from campaign.services.runs import upload_run
    from campaign.subsets import sample_test_subset
    from tests import factories

    campaign = factories.make_easy_campaign(slug="budget-api", state=CampaignState.DRAFT, organisers=[organiser])
    assert campaign.team_figures == "primary"  # the default
    sample_test_subset(campaign, ratio=0.5, dev_ratio=0.1)
    campaign.state = CampaignState.OPEN
    campaign.save()
    team = factories.make_team(campaign, alice, name="Probers")
    runs = []
    for name in ("baseline", "probe 1", "probe 2"):
        with django_capture_on_commit_callbacks(execute=True):
            run = upload_run(campaign=campaign, team=team, user=alice, name=name, scope="test",
                             uploaded_file=SimpleUploadedFile("run.zip", factories.gold_run_zip()))
        run.refresh_from_db()
        assert run.status == RunStatus.SCORED
        runs.append(run)
    for state in ("closed", "scored", "released"):
        lifecycle.transition(campaign, state, actor=organiser)
    client = Client()
    client.force_login(alice)

    def cells(run):
        return client.get(reverse("api:run-results", kwargs={"pk": run.pk})).json()["result"]["cells"]

    *others, primary = runs
    assert all(cells(r) == [] for r in others)  # the baseline and the first probe: nothing before the gold release
    shown = cells(primary)
    assert shown and len(shown) == len({c["layer"] for c in shown})  # one figure per layer
    assert all(c["p"] is None and c["r"] is None and c["f"] == round(c["f"], 3) and c["fp"] is None for c in shown)
    data = client.get(f"/results/{campaign.slug}/data.json").json()["data"]
    assert [bool(r["cells"]) for r in sorted(data["runs"], key=lambda r: r["run"])] == [False, False, True]
    page = client.get(reverse("portal:run", kwargs={"pk": runs[0].pk})).content.decode()
    assert 'class="figures"' not in page and "data-f=" not in page

    # The organisers' old default shows every run's precision: the calibration the issue's decoder needs.
    campaign.team_figures = "pooled"
    campaign.save()
    assert all(any(c["p"] is not None for c in cells(r)) for r in runs)
    # The organisers see everything whatever the setting, and the measured budget of their campaign's.
    client.force_login(organiser)
    campaign.team_figures = "primary"
    campaign.save()
    assert any(c["p"] is not None for c in cells(runs[0]))
    for url in (f"/console/{campaign.slug}/", reverse("governance:state", kwargs={"slug": campaign.slug})):
        page = client.get(url).content.decode()
        assert "Secrecy budget, measured" in page and "non-development sentences can be decoded by the 1 admitted" \
            in page, url
    campaign.team_figures = "full"
    campaign.save()
    page = client.get(f"/console/{campaign.slug}/").content.decode()
    assert 'class="secrecy-budget warning"' in page
