"""The secrecy budget, attacked as a team that reads the code (issue: "secrecy you can count").

The adversary of :mod:`evaluation.results.secrecy_budget` searches probe codes against what each team-figures setting
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
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from evaluation.results import secrecy_budget as sb

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


@pytest.fixture(scope="module")
def benchmark_shapes(django_db_blocker):
    from benchmarks.secrecy_budget import shapes

    return {shape.name: shape for shape in shapes()}


@pytest.mark.parametrize("which", ["EASY reference demo", "Sequoia constituency demo", "UD dependency demo",
                                   "UD practice (open)", "40,000 sentences, 16 teams"])
def test_the_default_keeps_the_budget_small(benchmark_shapes, which):
    shape = benchmark_shapes[which]
    from campaign.models import Campaign

    default = Campaign._meta.get_field("team_figures").default  # what a new campaign gets
    b = sb.budget(shape, sb.SETTINGS[default])
    assert b.bits_per_run <= 1 and b.runs_per_team == 1
    assert b.decodable <= 0.01 * b.non_dev
    if which in ("EASY reference demo", "40,000 sentences, 16 teams"):
        old = sb.budget(shape, "pooled")
        assert old.decodable > 0.01 * b.non_dev and old.bits_per_run > 1  # the old default failed both


def test_a_gated_figure_over_the_limit_is_withheld(benchmark_shapes):
    """The constituency demo's 150 test sentences, 3 teams and a consensus: one F per primary run would still let
    4 sentences (2.7 %) be decoded, so the default shows none before the gold release."""
    b = sb.budget(benchmark_shapes["Sequoia constituency demo"], "primary")
    assert b.withheld is not None and b.withheld.over and b.decodable == 0 and b.bits_per_run == 0


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
    page = client.get(reverse("portal:run", kwargs={"pk": primary.pk})).content.decode()
    shown_f = sorted(float(f) for f in re.findall(r'data-f="([0-9.]+)"', page))
    assert shown_f == sorted(c["f"] for c in shown)  # the run page: the same one F per layer, nothing more

    # Two more teams admitted: 3 sentences of 253 could then be decoded (above 1 %), so the one figure is withheld.
    for name in ("Second", "Third"):
        factories.make_team(campaign, factories.make_user(name.lower()), name=name)
    assert cells(primary) == [] and all(not r["cells"] for r in client.get(
        f"/results/{campaign.slug}/data.json").json()["data"]["runs"])

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
        assert "Secrecy budget, measured" in page and "no figure before the gold release" in page \
            and "would let the 3 admitted teams decode up to 3 of the 253" in page, url
    campaign.team_figures = "full"
    campaign.save()
    page = client.get(f"/console/{campaign.slug}/").content.decode()
    assert 'class="secrecy-budget warning"' in page


# -- the issue's two-probe attack, end to end through the API ------------------------------------------------

XLINK = "http://www.w3.org/1999/xlink"
# Types the gold never has with the first argument after the second: reversed, such a relation is surely wrong.
SURELY_WRONG = (("JUXT", "premier", "suivant"), ("AUX-V", "auxiliaire", "verbe"), ("COMP", "complementeur", "verbe"))
BITS = 7  # per probe run, the issue's code


def _relation(parent, rtype, rid, first, second, roles):
    from lxml import etree

    rel = etree.SubElement(parent, "relation", {f"{{{XLINK}}}type": "extended", "type": rtype, "id": rid})
    for role, target in zip(roles, (first, second)):
        etree.SubElement(rel, role, {f"{{{XLINK}}}type": "locator", f"{{{XLINK}}}href": target})


def _room(words: int, units: int) -> int:
    """Padding a sentence may carry: reversed pairs of distinct units (its groups and the forms outside them: the
    scorer reads an argument as its unit, so two forms of one group make one pair), within the bound."""
    from parseval.annotations import plausibility

    per_type = min(plausibility.bound("relations_of_one_type", words) - 1, units * (units - 1) // 2)
    return min(plausibility.bound("relations", words) - 1, len(SURELY_WRONG) * per_type)


def _units(e) -> list[str]:
    return [child.get("id") for child in e if child.tag in ("Groupe", "F")]


def _baseline_sentences():
    """``{(document, sentence): (element, words, units)}`` of the team's own baseline (its groups: here the gold's)."""
    from lxml import etree

    from tests import factories

    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True)
    roots = {name: etree.fromstring(factories.gold_bytes(name), parser) for name in factories.SMALL_EASY_FILES}
    return roots, {(name[:-4], e.get("id")): (e, len(list(e.iter("F"))), len(_units(e)))
                   for name, root in roots.items() for e in root.iter("E")}


def _probe_run(padding: dict[tuple[str, str], int]) -> bytes:
    """One relation per sentence (the gold's first, as a strong parser's surest, or a null-argument JUXT where
    there is none), plus ``padding[(document, sentence)]`` reversed relations of the surely-wrong types."""
    from lxml import etree

    from tests import factories

    roots, _ = _baseline_sentences()
    files = {}
    for name in factories.SMALL_EASY_FILES:
        root = roots[name]
        for e in root.iter("E"):
            sid = e.get("id")
            relations = e.find("relations")
            if relations is None:
                relations = etree.SubElement(e, "relations")
            for extra in list(relations)[1:]:
                relations.remove(extra)
            forms = [f.get("id") for f in e.iter("F")]
            if not len(relations):
                _relation(relations, "JUXT", f"{sid}R0", forms[0], f"{sid}F0", ("premier", "suivant"))
            wanted = padding.get((name[:-4], sid), 0)
            units = _units(e)
            assert wanted <= _room(len(forms), len(units))
            reversed_pairs = [(units[i], units[j]) for i in range(len(units)) for j in range(i)]
            for n in range(wanted):
                rtype, *roles = SURELY_WRONG[n % len(SURELY_WRONG)]
                later, earlier = reversed_pairs[n // len(SURELY_WRONG)]
                _relation(relations, rtype, f"{sid}P{n}", later, earlier, roles)
        files[name] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return factories.zip_of(files)


def _pooled_precision(client, run):
    from evaluation.results.summaries import pooled

    cells = client.get(reverse("api:run-results", kwargs={"pk": run.pk})).json()["result"]["cells"]
    for c in cells:
        if (c["layer"], c.get("mode"), c.get("match"), pooled(c["genre"]), pooled(c["type"])) == \
                ("relations", "HYP", "EQUAL", "ALL", "ALL") and c.get("aggregation", "micro") == "micro":
            return c["p"]
    return None


def _decode(client, baseline, probes, plan, T):
    """The issue's decoder: c from the baseline's pooled precision (c / T, to 0.1 point), then each probe's
    K from its precision c / (T + K), and K's bits. Nothing where a precision is not shown."""
    p0 = _pooled_precision(client, baseline)
    if p0 is None:
        return {}
    (c,) = [c for c in range(T + 1) if round(c / T, 3) == round(p0, 3)]
    found = {}
    for probe, sentences in zip(probes, plan):
        p = _pooled_precision(client, probe)
        if p is None:
            continue
        (K,) = [K for K in range(2 ** BITS) if round(c / (T + K), 3) == round(p, 3)]
        found.update({s: bool(K >> i & 1) for i, s in enumerate(sentences)})
    return found


@pytest.mark.django_db
def test_the_issues_two_probe_attack_through_the_api(organiser, alice, django_capture_on_commit_callbacks):
    import io
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile
    from lxml import etree

    from annotations.models import GoldSentence
    from campaign import lifecycle
    from campaign.models import CampaignState, RunStatus
    from campaign.services.runs import upload_run
    from campaign.subsets import sample_test_subset
    from tests import factories

    campaign = factories.make_easy_campaign(slug="two-probes", state=CampaignState.DRAFT, organisers=[organiser])
    sample_test_subset(campaign, ratio=0.5, dev_ratio=0.1)
    campaign.state = CampaignState.OPEN
    campaign.team_figures = "pooled"  # the old default
    campaign.save()
    team = factories.make_team(campaign, alice, name="Probers")
    client = Client()
    client.force_login(alice)

    # What the team knows: the corpus (every sentence's length, by genre), the development sample (not scored),
    # and T, as the draw computes it from the ratio (the issue read it from the significance document).
    lengths, genres = {}, {}
    for doc in campaign.documents.select_related("genre"):
        for s in doc.sentences.all():
            lengths[(doc.name, s.sid)] = s.word_count
            genres.setdefault(doc.genre.code, 0)
            genres[doc.genre.code] += 1
    T = sum(max(1, round(n * 0.5)) for n in genres.values())
    dev = set()
    with zipfile.ZipFile(io.BytesIO(client.get(f"/governance/campaigns/{campaign.slug}/dev-sample.zip").content)) as z:
        for name in z.namelist():
            root = etree.fromstring(z.read(name), etree.XMLParser(resolve_entities=False, load_dtd=False))
            dev |= {(name.rsplit("/", 1)[-1][:-4], e.get("id")) for e in root.iter("E")}
    assert dev
    _, own = _baseline_sentences()
    candidates = sorted((s for s in lengths if s not in dev), key=lambda s: -_room(*own[s][1:]))
    plan = [candidates[:BITS], candidates[BITS:2 * BITS]]
    runs = []
    for name, padding in (("baseline", {}),
                          *((f"probe {k + 1}", {s: 2 ** i for i, s in enumerate(sentences)})
                            for k, sentences in enumerate(plan))):
        with django_capture_on_commit_callbacks(execute=True):
            run = upload_run(campaign=campaign, team=team, user=alice, name=name, scope="test",
                             uploaded_file=SimpleUploadedFile("run.zip", _probe_run(padding)))
        run.refresh_from_db()
        assert run.status == RunStatus.SCORED, run.validation_report.get("problems", [])[:3]
        runs.append(run)
    for state in ("closed", "scored", "released"):
        lifecycle.transition(campaign, state, actor=organiser)
    truth = {(d, s): sub == "test" for d, s, sub in GoldSentence.objects.filter(
        sentence__document__campaign=campaign).values_list("sentence__document__name", "sentence__sid", "subset")}
    assert T == sum(truth.values())

    # Under the old pooled default: every bit, 14 of 14.
    decoded = _decode(client, runs[0], runs[1:], plan, T)
    encoded = [s for sentences in plan for s in sentences]
    assert len(decoded) == 2 * BITS and all(decoded[s] == truth[s] for s in encoded)
    assert any(decoded.values()) and not all(decoded.values())

    # Under the new default: no precision of any run, so nothing for the decoder; the one figure shown (F of
    # the primary run) is not enough to place K, as the budget measures.
    campaign.team_figures = "primary"
    campaign.save()
    assert _decode(client, runs[0], runs[1:], plan, T) == {}
    assert all(_pooled_precision(client, r) is None for r in runs)
