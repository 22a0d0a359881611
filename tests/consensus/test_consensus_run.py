"""The consensus as a marked pseudo-run: built from the chosen runs, scored by the same scorer, shown by the
same rules as the runs (nothing of it before publication)."""
from __future__ import annotations

import io
import zipfile

import pytest
from django.test import Client

from campaign.models import Campaign, CampaignState, Run, RunStatus
from campaign.services.runs import withdraw_run
from campaign.console.actions import disqualify
from evaluation.consensus import runs as consensus_runs
from evaluation.models import ConsensusSetting
from tests import factories
from tests.kinds.helpers import damaged_trees, upload

pytestmark = pytest.mark.django_db(transaction=True)


def three_runs(campaign, tree_gold, capture):
    users = [factories.make_user(n) for n in ("alice", "bob", "carol")]
    teams = [factories.make_team(campaign, u, name=f"Team {n}") for u, n in zip(users, "ABC")]
    runs = [upload(campaign, teams[0], users[0], {p.name: p.read_text(encoding="utf-8") for p in tree_gold},
                   capture, name="gold copy")]
    for i, seed in ((1, 5), (2, 7)):
        runs.append(upload(campaign, teams[i], users[i],
                           {p.name: damaged_trees(p, "ATTACH I", seed=seed, per_type=6) for p in tree_gold},
                           capture, name=f"damaged {seed}"))
    assert {r.status for r in runs} == {RunStatus.SCORED}
    return users, teams, runs


def enable(campaign, **fields):
    ConsensusSetting.objects.update_or_create(campaign=campaign, defaults={"enabled": True, **fields})


def built(campaign, capture) -> Run:
    with capture(execute=True):
        run = consensus_runs.build(campaign)
    run.refresh_from_db()
    return run


def test_the_consensus_is_a_run_of_the_system_team_scored_by_the_same_scorer(tree_campaign, tree_gold, django_capture_on_commit_callbacks):
    _, _, runs = three_runs(tree_campaign, tree_gold, django_capture_on_commit_callbacks)
    assert consensus_runs.build(tree_campaign) is None  # not asked for: nothing is built
    enable(tree_campaign)
    run = built(tree_campaign, django_capture_on_commit_callbacks)
    assert run.team.system and run.team.members.count() == 0
    assert run.status == RunStatus.SCORED, run.status_reason
    assert [c["run"] for c in run.combination["runs"]] == [r.pk for r in runs]  # one per team, in team order
    assert [round(c["weight"], 6) for c in run.combination["runs"]] == [round(1 / 3, 6)] * 3
    mine, theirs = run.results.get(), runs[1].results.get()
    assert mine.gold_sha256 == theirs.gold_sha256
    assert mine.signature == theirs.signature and mine.scorer_version == theirs.scorer_version
    assert mine.parameters == theirs.parameters
    # Rebuilding with nothing changed is a no-op; a new choice makes a new consensus and withdraws the old one.
    assert consensus_runs.build(tree_campaign).pk == run.pk
    consensus_runs.choose(tree_campaign, {runs[2].team_id: 0}, weighting=None, actor=None)
    second = built(tree_campaign, django_capture_on_commit_callbacks)
    assert second.pk != run.pk and len(second.combination["runs"]) == 2
    run.refresh_from_db()
    assert run.withdrawn_at is not None


def test_withdrawn_and_disqualified_runs_are_never_combined(tree_campaign, tree_gold, organiser,
                                                            django_capture_on_commit_callbacks):
    users, teams, runs = three_runs(tree_campaign, tree_gold, django_capture_on_commit_callbacks)
    second = upload(tree_campaign, teams[0], users[0],
                    {p.name: damaged_trees(p, "ATTACH I", seed=9, per_type=6) for p in tree_gold},
                    django_capture_on_commit_callbacks, name="later")
    enable(tree_campaign)
    # By default a team's latest scored run; the organiser may choose another one of its runs.
    assert [r.pk for r in consensus_runs.chosen_runs(tree_campaign)] == [second.pk, runs[1].pk, runs[2].pk]
    consensus_runs.choose(tree_campaign, {teams[0].pk: runs[0].pk}, weighting=None, actor=organiser)
    assert [r.pk for r in consensus_runs.chosen_runs(tree_campaign)] == [runs[0].pk, runs[1].pk, runs[2].pk]
    # A run of another team, or a withdrawn or disqualified one, cannot be chosen.
    with pytest.raises(Exception):
        consensus_runs.choose(tree_campaign, {teams[0].pk: runs[1].pk}, weighting=None, actor=organiser)
    disqualify(runs[1], actor=organiser, reason="copied the gold")
    with pytest.raises(Exception):
        consensus_runs.choose(tree_campaign, {teams[1].pk: runs[1].pk}, weighting=None, actor=organiser)
    # A chosen run withdrawn since falls back to the team's default; a disqualified team's only run leaves it out.
    Campaign.objects.filter(pk=tree_campaign.pk).update(deadline=None)
    withdraw_run(runs[0], user=users[0])
    chosen = [r.pk for r in consensus_runs.chosen_runs(tree_campaign)]
    assert chosen == [second.pk, runs[2].pk]
    run = built(tree_campaign, django_capture_on_commit_callbacks)
    assert [c["run"] for c in run.combination["runs"]] == chosen


def test_development_weights_never_read_the_test_subset(tree_campaign, tree_gold, django_capture_on_commit_callbacks,
                                                        monkeypatch):
    """Runs scored on the development sample in one order and on the test subset in the other: the weights
    follow the development order, and poisoning every test result changes nothing."""
    from campaign.subsets import mark_subset
    from campaign.models import Sentence

    users = [factories.make_user(n) for n in ("alice", "bob")]
    teams = [factories.make_team(tree_campaign, u, name=f"Team {n}") for u, n in zip(users, "AB")]
    Campaign.objects.filter(pk=tree_campaign.pk).update(state=CampaignState.DRAFT)
    tree_campaign.refresh_from_db()
    dev = list(Sentence.objects.filter(document__campaign=tree_campaign, document__name="frwiki",
                                       position__lt=10))
    mark_subset(tree_campaign, "dev", sentences=dev)
    Campaign.objects.filter(pk=tree_campaign.pk).update(state=CampaignState.OPEN)
    tree_campaign.refresh_from_db()
    from parseval.annotations.trees.detect import read_trees
    from parseval.annotations.trees.penn import write_penn
    from parseval.evaluation.deps.errorlab import insert_errors

    def damaged(path, *, dev_part: bool) -> str:
        """Heavy damage on the development sentences (dev_part) or on the others."""
        trees = read_trees(path)
        wanted = [i for i in range(len(trees)) if (path.stem == "frwiki" and i < 10) == dev_part]
        picked = [trees[i] for i in wanted]
        out = insert_errors(picked, "ATTACH I", seed=3, per_type=len(picked))
        for i, tree in zip(out["indices"], out["damaged"]):
            trees[wanted[i]] = tree
        return write_penn(trees)

    bad_on_dev = upload(tree_campaign, teams[0], users[0], {p.name: damaged(p, dev_part=True) for p in tree_gold},
                        django_capture_on_commit_callbacks, name="bad on dev")
    bad_on_test = upload(tree_campaign, teams[1], users[1], {p.name: damaged(p, dev_part=False) for p in tree_gold},
                         django_capture_on_commit_callbacks, name="bad on test")
    key = ("micro", "evalb", "", "", "ALL")
    test_f = [consensus_runs.figure_value(r.results.get().document["cells"], key) for r in (bad_on_dev, bad_on_test)]
    assert test_f[0] > test_f[1]  # on the test subset, the first run is the better
    weights, scores = consensus_runs.weights_for([bad_on_dev, bad_on_test], ConsensusSetting.Weighting.DEVELOPMENT)
    assert scores[0] < scores[1] and weights[0] < weights[1]  # the weights follow the development scores
    # Scoring for the weights reads the development gold only: the test subset's gold is never asked for.
    from evaluation.kinds import gold as kind_gold

    original = kind_gold.run_subset_gold

    def guarded(run):
        assert run.scope == Run.Scope.DEV, "weights read the test subset"
        return original(run)

    monkeypatch.setattr(kind_gold, "run_subset_gold", guarded)
    assert consensus_runs.weights_for([bad_on_dev, bad_on_test], ConsensusSetting.Weighting.DEVELOPMENT) == \
        (weights, scores)
    # The tuned consensus (weights and span threshold) is chosen on the development sample too: under the same
    # guard (the consensus run's own scoring, on the test subset, is not run here), its record follows the
    # development order, and the setting it keeps beats the development-best run there, or is that run.
    enable(tree_campaign, weighting=ConsensusSetting.Weighting.DEVELOPMENT)
    with django_capture_on_commit_callbacks(execute=False):
        run = consensus_runs.build(tree_campaign)
    combination = run.combination
    tuning = combination["tuning"]
    assert combination["tuned"] and tuning["development"] == pytest.approx(scores)
    assert tuning["best_run"] == 1  # bad on test, best on the development sample
    assert len(tuning["candidates"]) > 14 and all(set(c["thresholds"]) == {"spans"} for c in tuning["candidates"])
    if combination["fallback"]:
        assert combination["fallback_run"] == bad_on_test.pk
        assert [c["weight"] for c in combination["runs"]] == [0.0, 1.0]
    else:
        assert combination["development_figure"] > scores[1]
        assert combination["thresholds"]["spans"] == tuning["thresholds"]["spans"]
    best = max(tuning["candidates"], key=lambda c: c["figures"][0])
    assert combination["fallback"] == (best["figures"][0] <= scores[1])


def with_development_sample(campaign, count: int = 10) -> None:
    from campaign.subsets import mark_subset
    from campaign.models import Sentence

    Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.DRAFT)
    campaign.refresh_from_db()
    dev = list(Sentence.objects.filter(document__campaign=campaign, document__name="frwiki", position__lt=count))
    mark_subset(campaign, "dev", sentences=dev)
    Campaign.objects.filter(pk=campaign.pk).update(state=CampaignState.OPEN)
    campaign.refresh_from_db()


def test_a_tuned_consensus_that_beats_no_run_is_the_best_runs_output(tree_campaign, tree_gold, organiser,
                                                                      django_capture_on_commit_callbacks):
    """The gold copy scores F = 1 on the development sample: no setting can beat it, so the consensus is its
    files, byte for byte, scored as it is; the organisers' page says so."""
    capture = django_capture_on_commit_callbacks
    with_development_sample(tree_campaign)
    _, _, runs = three_runs(tree_campaign, tree_gold, capture)
    enable(tree_campaign, weighting=ConsensusSetting.Weighting.DEVELOPMENT)
    run = built(tree_campaign, capture)
    combination = run.combination
    assert combination["tuned"] and combination["fallback"] and combination["fallback_run"] == runs[0].pk
    assert combination["tuning"]["development"][0] == 1.0 and combination["development_figure"] == 1.0
    assert [c["weight"] for c in combination["runs"]] == [1.0, 0.0, 0.0]
    with zipfile.ZipFile(io.BytesIO(run.file.read())) as zf:
        made = {name: zf.read(name) for name in zf.namelist()}
    assert made == {p.name: p.read_bytes() for p in tree_gold}
    assert run.status == RunStatus.SCORED, run.status_reason
    key = ("micro", "evalb", "", "", "ALL")
    assert consensus_runs.figure_value(run.results.get().document["cells"], key) == \
        consensus_runs.figure_value(runs[0].results.get().document["cells"], key)
    org = Client()
    org.force_login(organiser)
    page = org.get(f"/results/{tree_campaign.slug}/consensus/").content.decode()
    assert 'id="fallback"' in page and "gold copy" in page and "settings tried on the development sample" in page
    org.cookies["django_language"] = "fr"
    page = org.get(f"/results/{tree_campaign.slug}/consensus/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "le consensus est la sortie de ce run" in page


def published_tree_consensus(tree_campaign, tree_gold, organiser, capture):

    users, teams, runs = three_runs(tree_campaign, tree_gold, capture)
    enable(tree_campaign)
    run = built(tree_campaign, capture)
    return users, runs, run


def test_nothing_of_the_consensus_is_seen_before_publication(tree_campaign, tree_gold, organiser,
                                                             django_capture_on_commit_callbacks):
    from campaign.lifecycle import transition

    capture = django_capture_on_commit_callbacks
    users, runs, run = published_tree_consensus(tree_campaign, tree_gold, organiser, capture)
    slug = tree_campaign.slug
    team = Client()
    team.force_login(users[0])
    public = Client()
    org = Client()
    org.force_login(organiser)
    urls = [f"/results/{slug}/", f"/results/{slug}/data.json", f"/results/{slug}/runs/{run.pk}/",
            f"/results/{slug}/ranking/", f"/results/{slug}/significance.json",
            f"/api/campaigns/{slug}/significance/", f"/api/campaigns/{slug}/runs/", f"/api/runs/{run.pk}/",
            f"/api/runs/{run.pk}/results/", f"/api/campaigns/{slug}/"]
    # Organisers see it live, in the results and in the significance tests; it is marked and not ranked.
    ranking = org.get(f"/results/{slug}/ranking/").content.decode()
    assert "consensus of 3 runs" in ranking and 'class="consensus-row"' in ranking
    assert run.pk in {r["run"] for r in org.get(f"/results/{slug}/data.json").json()["data"]["runs"]}
    pairs = org.get(f"/results/{slug}/significance.json").json()["pairs"]
    assert any(run.pk in (p["run_a"], p["run_b"]) for p in pairs)
    with capture(execute=True):
        for state in (CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED):
            transition(tree_campaign, state, actor=organiser)
    for client in (team, public):
        for url in urls:
            response = client.get(url)
            body = response.content.decode() if not getattr(response, "streaming", False) else ""
            assert "Consensus" not in body and f'"run": {run.pk},' not in body and \
                f'"run_a": {run.pk}' not in body and f'"run_b": {run.pk}' not in body, (url, body[:300])
        assert client.get(f"/results/{slug}/runs/{run.pk}/").status_code in (403, 404)
        assert client.get(f"/api/runs/{run.pk}/results/").status_code in (401, 403, 404)
        assert client.get(f"/results/{slug}/consensus/treebank.zip").status_code in (302, 403, 404)
        assert client.get(f"/results/{slug}/consensus/").status_code in (302, 403, 404)
    # After publication: in the snapshot, marked; the treebank is downloadable, in the kind's format.
    with capture(execute=True):
        transition(tree_campaign, CampaignState.PUBLISHED, actor=organiser)
    page = public.get(f"/results/{slug}/").content.decode()
    assert "consensus of 3 runs" in page
    assert public.get(f"/results/{slug}/runs/{run.pk}/").status_code == 200
    response = public.get(f"/results/{slug}/consensus/treebank.zip")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as zf:
        names = sorted(zf.namelist())
    assert names == ["annodis.agreement.tsv", "annodis.mrg", "frwiki.agreement.tsv", "frwiki.mrg"]
    # and a public page links it: the ranking, beside the consensus it was made with
    ranking = public.get(f"/results/{slug}/ranking/").content.decode()
    assert f'href="/results/{slug}/consensus/treebank.zip"' in ranking


def test_dependency_consensus_oracle_and_significance(dep_campaign, dep_gold, organiser,
                                                      django_capture_on_commit_callbacks):
    """Gold-token runs combined by reparsing; the oracle is an upper bound of every combined run; the consensus
    is in the significance tests, against the best run."""
    import random

    from campaign.demo_kinds import damage_heads
    from campaign.demo_kinds import DepRecipe
    from evaluation.significance import sets as significance

    capture = django_capture_on_commit_callbacks
    users = [factories.make_user(n) for n in ("alice", "bob", "carol")]
    teams = [factories.make_team(dep_campaign, u, name=f"Team {n}") for u, n in zip(users, "ABC")]
    runs = []
    for i, (team, user) in enumerate(zip(teams, users)):
        rng = random.Random(i)
        files = {p.name: damage_heads(p.read_text(encoding="utf-8"), DepRecipe(f"r{i}", "", 0.3, i), rng)
                 for p in dep_gold}
        runs.append(upload(dep_campaign, team, user, files, capture, name=f"run {i}"))
    assert {r.status for r in runs} == {RunStatus.SCORED}, [r.status_reason for r in runs]
    enable(dep_campaign)
    run = built(dep_campaign, capture)
    assert run.status == RunStatus.SCORED, run.status_reason
    assert run.track == "gold-tokens"
    key = ("micro", "deps-las", "", "", "ALL")
    las = {r.pk: consensus_runs.figure_value(r.results.get().document["cells"], key) for r in runs + [run]}
    oracle = run.combination["oracle"]
    assert oracle["figure"] == "micro|deps-las||" and sum(oracle["picked"]) == oracle["sentences"] == 22
    assert oracle["value"] >= max(las[r.pk] for r in runs)
    computed = significance.compute(dep_campaign)
    result = run.results.get()
    assert any(result.pk in (d["result_a_id"], d["result_b_id"])
               for d in significance.stored_headlines(computed, figure="micro|deps-las||"))
    org = Client()
    org.force_login(organiser)
    best = max(runs, key=lambda r: las[r.pk])
    ranking = org.get(f"/results/{dep_campaign.slug}/ranking/").content.decode()
    assert f"/compare/{run.pk}/{best.pk}/" in ranking
    compare = org.get(f"/results/{dep_campaign.slug}/compare/{run.pk}/{best.pk}/")
    assert compare.status_code == 200 and "consensus of 3 runs" in compare.content.decode()


def test_easy_consensus_is_scored_like_a_run(organiser, storage, django_capture_on_commit_callbacks):
    """Three EASY runs (perturbed gold) combined on the corpus's forms; scored by the EASY scorer with the same
    signature and gold; relations voted by the majority beat every perturbed run here."""
    from parseval.annotations.easy import document_to_bytes, read_document
    from campaign.demo import TEAMS, perturb

    capture = django_capture_on_commit_callbacks
    campaign = factories.make_easy_campaign(slug="easy-consensus", organisers=[organiser])
    recipes = [TEAMS[0]["runs"][0], TEAMS[1]["runs"][0], TEAMS[2]["runs"][1]]
    users = [factories.make_user(n) for n in ("alice", "bob", "carol")]
    runs = []
    for i, (user, recipe) in enumerate(zip(users, recipes)):
        team = factories.make_team(campaign, user, name=f"Team {i}")
        files = {}
        for path in factories.easy_gold_paths():
            doc = read_document(path, gold=True, strict=False)
            files[path.name] = document_to_bytes(perturb(doc, recipe))
        runs.append(upload(campaign, team, user, files, capture, name=recipe.name))
    assert {r.status for r in runs} == {RunStatus.SCORED}, [r.status_reason for r in runs]
    enable(campaign)
    run = built(campaign, capture)
    assert run.status == RunStatus.SCORED, run.status_reason
    mine, theirs = run.results.get(), runs[0].results.get()
    assert (mine.signature, mine.gold_sha256, mine.scorer_version) == \
        (theirs.signature, theirs.gold_sha256, theirs.scorer_version)
    key = ("micro", "relations", "HYP", "EQUAL", "ALL")
    f = {r.pk: consensus_runs.figure_value(r.results.get().document["cells"], key) for r in runs + [run]}
    assert f[run.pk] > max(f[r.pk] for r in runs)
    oracle = run.combination["oracle"]
    assert oracle["figure"] == "micro|relations|HYP|EQUAL" and oracle["value"] >= max(f[r.pk] for r in runs)
    with zipfile.ZipFile(run.file.path) as zf:
        assert sorted(zf.namelist()) == sorted(p.name for p in factories.easy_gold_paths())
        assert b'agreement="' in zf.read(zf.namelist()[0])
    # Development weights: the runs scored by the EASY scorer on the development sentences only.
    from annotations.models import GoldSentence

    dev = GoldSentence.objects.filter(sentence__document__name="mail_10").order_by("sentence__position")[:20]
    GoldSentence.objects.filter(pk__in=[g.pk for g in dev]).update(subset="dev")
    weights, scores = consensus_runs.weights_for(runs, ConsensusSetting.Weighting.DEVELOPMENT)
    assert all(0 < s < 1 for s in scores) and weights == scores  # development F, sharpness 1
    assert scores != [f[r.pk] for r in runs]  # not the test figures
    # Tuned on those sentences: relation and group thresholds searched, every candidate scored by the EASY scorer
    # on the development sample (relations F, then groups F), the whole corpus combined with the choice.
    enable(campaign, weighting=ConsensusSetting.Weighting.DEVELOPMENT)
    tuned = built(campaign, capture)
    assert tuned.pk != run.pk and tuned.status == RunStatus.SCORED, tuned.status_reason
    combination = tuned.combination
    assert combination["tuned"] and combination["tuning"]["development"] == pytest.approx(scores)
    assert {k for c in combination["tuning"]["candidates"] for k in c["thresholds"]} == {"groups", "relations"}
    assert all(len(c["figures"]) == 2 for c in combination["tuning"]["candidates"])
    if combination["fallback"]:
        assert combination["development_figure"] == max(scores)
    else:
        assert combination["development_figure"] > max(scores)
        with zipfile.ZipFile(tuned.file.path) as zf:
            assert sorted(zf.namelist()) == sorted(p.name for p in factories.easy_gold_paths())
