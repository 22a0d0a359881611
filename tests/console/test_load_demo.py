"""The demo command on a small slice of the real EASY reference corpus."""
from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command
from django.test import RequestFactory

from parseval.annotations.easy import read_document
from campaign import demo
from campaign.models import Campaign, CampaignState, Run, RunStatus
from evaluation.models import PublishedSnapshot, Result, SignificanceSet
from tests import factories

SENTENCES = 12


@pytest.fixture
def small_corpus(tmp_path) -> Path:
    """The first sentences of one document per genre, as gold files."""
    return factories.small_easy_corpus(tmp_path / "gold", SENTENCES)


@pytest.fixture
def spacy_sm_on_small_slices(monkeypatch):
    """The real runs with fr_core_news_sm only, and small constituency and dependency demos."""
    from campaign import demo_kinds, demo_parses

    monkeypatch.setattr(demo_parses, "REAL_MODELS", ("fr_core_news_sm",))
    monkeypatch.setattr(demo_kinds, "TREES_PER_DOCUMENT", 4)
    monkeypatch.setattr(demo_kinds, "DEP_SLICES", {"sequoia": ("fr_sequoia-ud-test.conllu", 6),
                                                   "gsd": ("fr_gsd-ud-test.conllu", 6)})


@pytest.mark.django_db(transaction=True)
def test_load_demo_builds_a_published_campaign_of_synthetic_scored_runs(small_corpus, settings, tmp_path,
                                                                        spacy_sm_on_small_slices):
    settings.MEDIA_ROOT = tmp_path / "media"
    out = StringIO()
    call_command("load_demo", "--data", str(small_corpus), "--bootstrap", "20", "--slug", "demo-t", stdout=out)
    text = out.getvalue()

    campaign = Campaign.objects.get(slug="demo-t")
    assert campaign.name == "EASY reference (demo)"
    assert campaign.state == CampaignState.PUBLISHED
    assert sorted(campaign.genres.values_list("code", flat=True)) == [
        "general", "litteraire", "mail", "medical", "oral", "questions"]
    assert campaign.documents.count() == 6
    teams = list(campaign.teams.filter(system=False).prefetch_related("members"))
    assert len(teams) == 5 and all(t.members.count() == 1 for t in teams)
    runs = Run.objects.filter(campaign=campaign, synthetic=True)
    expected = sum(len(t["runs"]) for t in demo.TEAMS)
    assert runs.count() == expected
    assert all(r.status == RunStatus.SCORED for r in runs)
    assert all("synthetic" in r.name.lower() and "synthetic" in r.system_description.lower() for r in runs)
    # the real run: spaCy's parse converted by ud2easy, named by model and version, not synthetic
    (real,) = Run.objects.filter(campaign=campaign, synthetic=False, team__system=False)
    assert real.name == "spaCy fr_core_news_sm 3.8.0 (converted from UD, ud2easy-2)"
    assert real.status == RunStatus.SCORED and real.team.name == "spaCy baseline"
    assert "not synthetic" in real.system_description.lower()
    # uploaded as CoNLL-U and converted by the platform on validation, as a team's would be
    assert real.original_filename.endswith(".zip") and real.converter == "ud2easy-2" and real.converted_file
    assert real.results.get().parameters["converter"] == "ud2easy-2"
    equal = real.results.get().cells.get(layer="constituents", match="EQUAL", genre="ALL", type="ALL",
                                         aggregation="micro").f
    assert 0.3 < equal < 1.0
    assert "8 scored synthetic runs, 1 real parser runs" in text
    expected += 1
    # the consensus of one run per team (the five teams), scored like a run and published with the runs
    (consensus,) = Run.objects.filter(campaign=campaign, team__system=True)
    assert consensus.status == RunStatus.SCORED and len(consensus.combination["runs"]) == 5
    expected += 1
    assert Result.objects.filter(run__campaign=campaign).count() == expected

    # the perturbations make different runs score differently; the constituents-only run has no relations
    pooled = {}
    for r in runs:
        cell = r.results.get().cells.filter(layer="constituents", match="EQUAL", genre="ALL", type="ALL",
                                            aggregation="micro").first()
        pooled[r.name] = cell.f if cell else None
        has_relations = r.results.get().cells.filter(layer="relations").exists()
        assert has_relations == ("constituents-only" not in r.name)
    assert len({round(v, 6) for v in pooled.values() if v is not None}) >= 4
    assert max(pooled.values()) <= 1.0

    snapshot = PublishedSnapshot.objects.get(campaign=campaign)
    assert len(snapshot.data["runs"]) == expected
    # the paired tests: one set per campaign, over every scored run, computed before the summary is printed
    (computed,) = SignificanceSet.objects.filter(campaign=campaign)
    assert len(computed.results) == expected
    assert text.index("Computing the paired significance tests") < text.index("Logins")
    # one stored p-value per claim: the comparison page's headline is the API's and the ranking's, for the
    # spaCy run against a synthetic one, in the EASY campaign and in the dependency campaign
    from django.test import Client

    from campaign import demo_kinds
    from tests.significance.helpers import assert_one_p_value

    other = runs.order_by("pk").first()
    pair = assert_one_p_value(Client(), campaign.slug, real.pk, other.pk, "micro|relations|HYP|EQUAL")
    assert pair["family"] == expected * (expected - 1) // 2  # every pair of the campaign for this figure
    deps = Campaign.objects.get(slug=demo_kinds.DEP_SLUG)
    dep_real = deps.runs.get(synthetic=False, track="gold-tokens", team__system=False)
    dep_other = deps.runs.filter(synthetic=True, track="gold-tokens").order_by("pk").first()
    assert_one_p_value(Client(), deps.slug, dep_real.pk, dep_other.pk, "micro|deps-las||")

    # the printed logins work
    assert "/results/demo-t/" in text
    # Through a request, as every login is: the login rate limits (django-axes) need one.
    assert authenticate(RequestFactory().post("/"), username="organiser", password="demo-organiser-pw") is not None
    for spec in demo.TEAMS:
        assert f"{spec['user']}" in text and f"demo-{spec['user']}-pw" in text
        assert authenticate(RequestFactory().post("/"), username=spec["user"],
                            password=f"demo-{spec['user']}-pw") is not None

    # a development sample (a tenth of each genre) and a guide document, both downloadable
    from campaign.subsets import subset_counts

    counts = subset_counts(campaign)
    assert counts["dev"] > 0 and counts["test"] > 8 * counts["dev"]
    guide = campaign.guide.versions.get()
    assert guide.document.name.endswith("easy-annotation-guide-examples.zip")

    # every link of the demo's pages works, for a visitor, a team member and the organiser
    from django.test import Client

    from tests.console.crawl import crawl

    member = demo.TEAMS[0]["user"]
    for who in (None, member, "organiser"):
        client = Client()
        if who:
            client.force_login(get_user_model().objects.get(username=who))
        seen = crawl(client, campaign.get_absolute_url(), follow=("/campaigns/", "/results/", "/runs/"))
        assert not {u: c for u, c in seen.items() if c >= 400}, who
        assert f"/campaigns/{campaign.slug}/guide/" in seen and f"/governance/campaigns/{campaign.slug}/dev-sample.zip" in seen

    # the open practice campaign: every demo user has a team there and may upload; the others stay published
    from campaign.demo_open import OPEN_SLUG
    from campaign.rules import why_not_accepting_runs

    practice = Campaign.objects.get(slug=OPEN_SLUG)
    assert practice.state == CampaignState.OPEN and not why_not_accepting_runs(practice)
    assert practice.teams.count() == 5 and not practice.runs.exists()
    assert f"/campaigns/{OPEN_SLUG}/" in text and "data/demo-runs/" in text
    published = Campaign.objects.exclude(slug=OPEN_SLUG)
    assert published.count() == 3 and all(c.state == CampaignState.PUBLISHED for c in published)

    # a second call changes nothing
    call_command("load_demo", "--data", str(small_corpus), "--bootstrap", "20", "--slug", "demo-t", stdout=StringIO())
    assert Run.objects.filter(campaign=campaign).count() == expected
    assert Result.objects.filter(run__campaign=campaign).count() == expected
    assert PublishedSnapshot.objects.filter(campaign=campaign).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_second_call_after_a_failed_first_one_finishes_the_demo(small_corpus, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path / "media"
    args = ["load_demo", "--data", str(small_corpus), "--bootstrap", "0", "--slug", "demo-r", "--no-kinds", "--no-real"]
    real = demo.perturb

    def broken(doc, recipe):
        out = real(doc, recipe)
        if recipe.name.startswith("types-10"):
            out.sentences[0].groups[0].type = "ZZ"  # an unknown group type: the run is refused
        return out

    monkeypatch.setattr(demo, "perturb", broken)
    with pytest.raises(CommandError, match="types-10"):
        call_command(*args, stdout=StringIO())
    campaign = Campaign.objects.get(slug="demo-r")
    assert campaign.state == CampaignState.OPEN
    assert list(campaign.runs.exclude(status=RunStatus.SCORED).values_list("name", flat=True)) == [
        "types-10 (synthetic)"]

    monkeypatch.setattr(demo, "perturb", real)
    out = StringIO()
    call_command(*args, stdout=out)
    campaign.refresh_from_db()
    expected = sum(len(t["runs"]) for t in demo.TEAMS)
    assert campaign.state == CampaignState.PUBLISHED
    teams_runs = campaign.runs.filter(team__system=False)  # and the consensus of one run per team
    assert teams_runs.filter(status=RunStatus.SCORED).count() == teams_runs.count() == expected
    assert campaign.runs.filter(team__system=True, status=RunStatus.SCORED).count() == 1
    # the URLs and logins end the output
    tail = out.getvalue().rstrip().splitlines()[-6:]  # "Logins", the organiser, four members
    assert tail[0].startswith("Logins") and "delta" in tail[-1]


def test_perturbations_leave_the_gold_untouched_and_do_what_they_say(shared_data):
    path = shared_data / "easy-ref" / "ref" / "general_lemonde.xml"
    gold = read_document(path, gold=True, strict=True, name=path.name)
    before = [(len(s.groups), len(s.relations), [(g.start, g.end, g.type) for g in s.groups]) for s in gold.sentences]

    only = demo.perturb(gold, demo.Recipe("c", "", ((demo.constituents_only, 1.0),), 1))
    assert not any(s.relations for s in only.sentences) and not only.has_relations

    dropped = demo.perturb(gold, demo.Recipe("d", "", ((demo.drop_relations, 0.5),), 2))
    kept = sum(len(s.relations) for s in dropped.sentences) / sum(len(s.relations) for s in gold.sentences)
    assert 0.4 < kept < 0.6

    shifted = demo.perturb(gold, demo.Recipe("s", "", ((demo.shift_boundaries, 0.3),), 3))
    moved = total = 0
    for g_sent, s_sent in zip(gold.sentences, shifted.sentences):
        for a, b in zip(sorted(g_sent.groups, key=lambda g: g.start), s_sent.groups):
            total += 1
            moved += (a.start, a.end) != (b.start, b.end)
        spans = sorted((g.start, g.end) for g in s_sent.groups)
        assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:]))  # never overlapping
        assert all(0 <= s < e <= len(s_sent.forms) for s, e in spans)
    assert 0.15 < moved / total < 0.35

    typed = demo.perturb(gold, demo.Recipe("t", "", ((demo.wrong_types, 1.0),), 4))
    for g_sent, t_sent in zip(gold.sentences, typed.sentences):
        for r in t_sent.relations:
            assert list(r.args) == list(demo.DEFAULT_SCHEMA.roles(r.type))
    assert before == [(len(s.groups), len(s.relations), [(g.start, g.end, g.type) for g in s.groups])
                      for s in gold.sentences]
