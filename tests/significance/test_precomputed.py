"""What the pages read of a significance set: the design aid's summary, computed once when the set is stored
(evaluation.significance.precomputed), and every pair's headline formatted from the set's packed rows
(evaluation.significance.headlines): the same figures as the set's pair-by-pair reading, no test computed by
a page, and a "being computed" design aid until its summary is there."""
from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest

from campaign import kinds
from evaluation.models import SignificanceSummary
from evaluation.significance import headlines, precomputed, sets as significance
from parseval.evaluation import design, paired
from tests import factories
from tests.kinds.helpers import damaged_trees, upload

from .helpers import gold_and_damaged

FIGURE = "micro|evalb||"


@pytest.fixture
def three_runs(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    """The gold itself, heavily damaged trees, and lightly damaged ones: three pairs."""
    good, bad = gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)
    carol = factories.make_user("carol")
    team_c = factories.make_team(tree_campaign, carol, name="Team C")
    light = upload(tree_campaign, team_c, carol,
                   {p.name: damaged_trees(p, "ATTACH I", seed=9, per_type=3) for p in tree_gold},
                   django_capture_on_commit_callbacks, name="lightly damaged")
    return good, bad, light


def _needed(page: str) -> dict[str, int | None]:
    rows = re.findall(r'<tr data-stratum="([^"]+)">.*?data-needed="([^"]*)"', page, re.S)
    return {stratum: int(n) if n else None for stratum, n in rows}


def test_the_summary_holds_the_figures_the_pages_computed_inline(three_runs, client, organiser):
    good, bad, light = three_runs
    computed = significance.latest_set(good.campaign)
    results = sorted(computed.results)
    assert len(results) == 3
    summary = precomputed.of_set(computed)
    assert summary is not None, "stored with the set, by the worker that computed it"
    assert FIGURE in summary["figures"] and summary["sentences"] == computed.sentences
    row = precomputed.of_figure(computed, FIGURE)
    pairs = headlines.figure_pairs(computed, FIGURE)
    assert [(p["a"], p["b"]) for p in pairs] == list(itertools.combinations(results, 2))
    # the ranking's headlines: what sets.headline_pairs computes from the stored rows, in both orders
    assert headlines.headline_pairs(computed, FIGURE, results) == significance.headline_pairs(computed, FIGURE, results)
    # the pair the design aid opens on has its genres' figures in the summary; any other pair's are read once
    default = precomputed.default_pair(pairs, summary["runs"])
    assert list(row["genres"]) == [precomputed.pair_key(default["a"], default["b"])]
    # (z(0.975) + z(0.80)) = 1.959964 + 0.841621 = 2.801585 times the standard error, per genre and pooled
    for pair in pairs:
        genres = precomputed.genre_errors(computed, row, pair["a"], pair["b"], FIGURE, summary["sentences"])
        table = significance.pair_tables(computed, pair["a"], pair["b"], figures=[FIGURE])[FIGURE]
        assert genres["se"]["ALL"] == table["headline"]["se"] == pair["headline"]["se"]
        for genre in ("news", "wiki"):
            assert genres["se"][genre] == table["cells"][genre]["ALL"]["se"]
        for stratum, se in genres["se"].items():
            if se:
                assert genres["detectable"][stratum] == pytest.approx(2.801585 * se, rel=1e-6)
            else:  # the two runs agree on every sentence of the genre: nothing to scale from
                assert genres["detectable"][stratum] is None
        pair["se"] = genres["se"]
    # the design aid's page: the sentences needed, as design.needed computes them from the stored errors
    client.force_login(organiser)
    for pair in pairs:
        page = client.get(f"/results/{good.campaign.slug}/design/?figure={FIGURE}&pair={pair['a']}-{pair['b']}"
                          f"&target=2").content.decode()
        needed = _needed(page)
        assert set(needed) == {"news", "wiki", "ALL"}
        for stratum, n in needed.items():
            se = pair["se"][stratum]
            assert n == (design.needed(computed.sentences[stratum], se, 0.02) if se else None)
        # by hand: n · (2.801585 · se / 0.02)², rounded up
        n_all = computed.sentences["ALL"]
        assert needed["ALL"] == math.ceil(n_all * (2.801585 * pair["se"]["ALL"] / 0.02) ** 2)


def _refuse(*args, **kwargs):
    raise AssertionError("a page computed a test or a detectable difference")


# A pair's minimum detectable effect is a constant times its stored standard error, formatted with its headline
# as the interval is (paired.detectable); what a page must never compute is a test, or the design aid's
# detectable differences per genre and the sentences they need for every pair (design.*).
TESTS = ("compare_parts", "compare_all", "compare_arrays", "paired_test")


def test_no_page_computes_a_test_or_a_detectable_difference(three_runs, client, organiser, monkeypatch):
    good, bad, light = three_runs
    slug = good.campaign.slug
    for name in TESTS:
        monkeypatch.setattr(paired, name, _refuse)
    for name in ("plan", "needed", "detectables"):
        monkeypatch.setattr(design, name, _refuse)
    client.force_login(organiser)
    for target in ("1", "2", "0.5"):
        page = client.get(f"/results/{slug}/design/?figure={FIGURE}&target={target}")
        assert page.status_code == 200
        assert _needed(page.content.decode())["ALL"] > 0
    page = client.get(f"/results/{slug}/ranking/?figure={FIGURE}").content.decode()
    assert 'data-cluster="2"' in page and 'id="power"' in page  # clusters and the median detectable difference
    assert 'id="being-computed"' not in page
    # another pair than the default: its genres' figures are read from its stored table the first time only
    computed = significance.latest_set(good.campaign)
    row = precomputed.of_figure(computed, FIGURE)
    other = next(p for p in headlines.figure_pairs(computed, FIGURE)
                 if precomputed.pair_key(p["a"], p["b"]) not in row["genres"])
    url = f"/results/{slug}/design/?figure={FIGURE}&pair={other['a']}-{other['b']}"
    monkeypatch.undo()
    first = client.get(url).content.decode()
    for name in TESTS:
        monkeypatch.setattr(paired, name, _refuse)
    monkeypatch.setattr(design, "detectables", _refuse)
    monkeypatch.setattr(significance, "pair_tables", _refuse)
    again = client.get(url).content.decode()
    table = lambda page: page[page.index('<table id="design">'):page.index("</table>")]  # noqa: E731
    assert table(again) == table(first) and _needed(first)["ALL"] > 0


def test_the_design_aid_says_its_figures_are_being_computed_until_the_summary_is_stored(
        three_runs, client, organiser, monkeypatch, settings):
    good, bad, light = three_runs
    slug = good.campaign.slug
    computed = significance.latest_set(good.campaign)
    asked = []
    monkeypatch.setattr(kinds, "enqueue", lambda task, *args, **kw: asked.append((task, args)))
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a worker apart from the web, as in production
    SignificanceSummary.objects.all().delete()
    for name in TESTS:
        monkeypatch.setattr(paired, name, _refuse)  # "being computed" is not computed inline either
    monkeypatch.setattr(design, "detectables", _refuse)
    client.force_login(organiser)
    page = client.get(f"/results/{slug}/design/?figure={FIGURE}").content.decode()
    assert 'id="being-computed"' in page and 'id="design"' not in page
    # the ranking reads the set's own rows: its clusters do not wait for the design aid's summary
    ranking = client.get(f"/results/{slug}/ranking/?figure={FIGURE}").content.decode()
    assert 'id="being-computed"' not in ranking and 'data-cluster="2"' in ranking and 'id="power"' in ranking
    assert ranking.index("gold copy") < ranking.index("lightly damaged") < ranking.index("/ damaged")
    # the worker was asked once for this set, not once per view
    assert asked == [(precomputed.PRECOMPUTE_TASK, (computed.pk,))]
    monkeypatch.undo()
    assert precomputed.precompute_pages(computed.pk) == "computed"
    assert precomputed.precompute_pages(computed.pk) == "already computed"
    page = client.get(f"/results/{slug}/design/?figure={FIGURE}").content.decode()
    assert 'id="being-computed"' not in page and 'id="design"' in page


def test_a_summary_of_another_set_is_never_read(three_runs):
    good, bad, light = three_runs
    campaign = good.campaign
    first = significance.latest_set(campaign)
    # the stamp names what the set compared: the same id with other results reads nothing
    SignificanceSummary.objects.filter(set_id=first.pk).update(stamp="0" * 32)
    assert precomputed.missing(first) and precomputed.of_figure(first, FIGURE) is None
    second = significance.compute(campaign)
    assert not precomputed.missing(second)
    # one summary per campaign: the older set's rows are gone with the new set's stored
    assert set(SignificanceSummary.objects.filter(campaign=campaign).values_list("set_id", flat=True)) == {second.pk}
    assert precomputed.precompute_pages(first.pk) == "superseded"


def test_the_comparison_reads_the_chosen_figure_s_table_only(three_runs, client, organiser, monkeypatch):
    good, bad, light = three_runs
    slug = good.campaign.slug
    url = f"/results/{slug}/compare/{bad.pk}/{light.pk}/?figure={FIGURE}"
    client.force_login(organiser)
    read = []
    pair_tables = significance.pair_tables
    monkeypatch.setattr(significance, "pair_tables", lambda *args, figures=None: read.append(figures) or pair_tables(
        *args, figures=figures))
    for name in ("compare_parts", "compare_all", "compare_arrays", "paired_test"):
        monkeypatch.setattr(paired, name, _refuse)
    summarised = client.get(url).content.decode()
    assert read == [[FIGURE]]
    # the same page as when every figure's whole table is read from the set
    monkeypatch.setattr(headlines, "pair_headlines", lambda computed, a, b: {
        f: t["headline"] for f, t in pair_tables(computed, a, b).items()})
    whole = client.get(url).content.decode()
    assert read == [[FIGURE], [FIGURE]]
    body = lambda page: page[page.index("<main"):page.index("</main>")]  # noqa: E731
    assert body(summarised) == body(whole)
    assert len(re.findall(r'<tr data-figure="', body(whole))) > 1  # the summary lists every figure, not only one


def _documents(client, slug: str, users, figure: str = "") -> dict:
    """significance.json and the API's document, with and without a figure, as each of ``users`` gets them."""
    out = {}
    for name, user in users:
        client.logout()
        if user is not None:
            client.force_login(user)
        for query in ("", f"?figure={figure}", "?figure=micro|none||"):
            out[(name, "json", query)] = client.get(f"/results/{slug}/significance.json{query}").content
            out[(name, "api", query)] = client.get(f"/api/campaigns/{slug}/significance/{query}").content
    return out


def _pairs_one_at_a_time(computed, result_ids, figure=None):
    """The significance document's pairs as the set reads them one pair at a time (the reference)."""
    return [(p["figure"], p["result_a_id"], p["result_b_id"], significance.headline(p, 1, computed.alpha))
            for p in significance.stored_headlines(computed, list(result_ids), figure)]


def test_the_significance_document_formats_its_pairs_from_the_packed_rows(three_runs, client, organiser, alice, bob,
                                                                          monkeypatch):
    """Every pair's headline is formatted from the set's packed rows, a figure at a time: each role gets the bytes
    the set's pair-by-pair reading gives (the same pairs, order, orientation, rounding and limits)."""
    from campaign import lifecycle
    from campaign.models import CampaignState, TeamFigures

    good, bad, light = three_runs
    campaign = good.campaign
    campaign.team_figures = TeamFigures.POOLED  # pairs shown to teams before the gold release, rounded
    campaign.save(update_fields=["team_figures"])
    computed = significance.latest_set(campaign)
    users = [("organiser", organiser), ("alice", alice), ("bob", bob), ("anyone", None)]
    for state in (None, CampaignState.CLOSED, CampaignState.SCORED, CampaignState.RELEASED,
                  CampaignState.PUBLISHED, CampaignState.GOLD_RELEASED):
        if state is not None:
            lifecycle.transition(campaign, state, actor=organiser)
        with monkeypatch.context() as refused:
            refused.setattr(significance, "stored_headlines", _refuse)  # not one pair at a time
            read = _documents(client, campaign.slug, users, FIGURE)
        with monkeypatch.context() as one_at_a_time:
            one_at_a_time.setattr(headlines, "document_pairs", _pairs_one_at_a_time)
            reference = _documents(client, campaign.slug, users, FIGURE)
        assert read == reference, state
        pairs = {key: len(json.loads(body)["pairs"]) for key, body in read.items()}
        assert pairs[("organiser", "json", "")] == 3 * len(precomputed.of_set(computed)["figures"])
        if state == CampaignState.PUBLISHED:  # before the gold release, anyone sees the pairs rounded
            shown = json.loads(read[("anyone", "json", f"?figure={FIGURE}")])["pairs"]
            full = json.loads(read[("organiser", "json", f"?figure={FIGURE}")])["pairs"]
            assert len(shown) == 3 and all(p["diff"] == round(p["diff"], 3) for p in shown)
            assert any(p["diff"] != round(p["diff"], 3) for p in full)


def test_a_summary_of_an_older_shape_is_never_read(three_runs, client, organiser, monkeypatch, settings):
    """Rows of another version (the first kept every pair's headline three times) are never read: the design aid
    says its figures are being computed and asks a worker; the other pages do not need them."""
    good, bad, light = three_runs
    slug = good.campaign.slug
    computed = significance.latest_set(good.campaign)
    client.force_login(organiser)
    before = {url: client.get(url).content for url in (f"/results/{slug}/significance.json",
                                                       f"/results/{slug}/ranking/?figure={FIGURE}")}
    SignificanceSummary.objects.filter(set_id=computed.pk).update(version=precomputed.VERSION - 1)
    asked = []
    monkeypatch.setattr(kinds, "enqueue", lambda task, *args, **kw: asked.append((task, args)))
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert precomputed.missing(computed) and precomputed.of_set(computed) is None
    assert 'id="being-computed"' in client.get(f"/results/{slug}/design/?figure={FIGURE}").content.decode()
    assert asked == [(precomputed.PRECOMPUTE_TASK, (computed.pk,))]
    after = {url: client.get(url).content for url in before}
    runs = lambda page: page[page.index(b'id="runs"'):page.index(b"</table>")]  # noqa: E731  (no token, no chart id)
    ranking = f"/results/{slug}/ranking/?figure={FIGURE}"
    assert runs(after[ranking]) == runs(before[ranking]) and b'data-cluster="2"' in runs(after[ranking])
    assert after[f"/results/{slug}/significance.json"] == before[f"/results/{slug}/significance.json"]


def test_a_new_run_s_pairs_are_in_the_document_once_its_set_is_stored(three_runs, client, organiser,
                                                                        django_capture_on_commit_callbacks,
                                                                        tree_gold):
    good, bad, light = three_runs
    campaign = good.campaign
    client.force_login(organiser)
    before = json.loads(client.get(f"/results/{campaign.slug}/significance.json?figure={FIGURE}").content)
    assert len(before["pairs"]) == 3
    dave = factories.make_user("dave")
    team_d = factories.make_team(campaign, dave, name="Team D")
    fourth = upload(campaign, team_d, dave, {p.name: damaged_trees(p, "ATTACH I", seed=3, per_type=6)
                                             for p in tree_gold}, django_capture_on_commit_callbacks, name="fourth")
    computed = significance.latest_set(campaign)
    if precomputed.missing(computed) or len(computed.results) < 4:
        computed = significance.compute(campaign)
    after = json.loads(client.get(f"/results/{campaign.slug}/significance.json?figure={FIGURE}").content)
    assert len(after["pairs"]) == 6 and any(fourth.pk in (p["run_a"], p["run_b"]) for p in after["pairs"])
    assert after["computed"]["signature"] == computed.signature


def test_every_headline_formatted_from_the_packed_rows_is_the_one_the_set_gives(three_runs):
    """Every figure's pairs, every pair's figures and the document's pairs, for all the runs and for two of them:
    what sets.headline_pairs and sets.headline give one pair at a time, value for value (the headlines module
    formats a whole figure's columns at once)."""
    good, bad, light = three_runs
    computed = significance.latest_set(good.campaign)
    results = sorted(computed.results)
    summary = precomputed.of_set(computed)
    assert len(summary["figures"]) > 1 and summary["figures"] == sorted(headlines.figure_columns(computed))
    by_pair: dict[tuple[int, int], dict] = {}
    for figure in summary["figures"]:
        expected = significance.headline_pairs(computed, figure, results)
        assert headlines.figure_pairs(computed, figure) == [
            {"a": a, "b": b, "headline": head} for (a, b), head in sorted(expected.items()) if a < b]
        assert headlines.headline_pairs(computed, figure, results) == expected
        two = results[1:]
        assert headlines.headline_pairs(computed, figure, two) == significance.headline_pairs(computed, figure, two)
        assert len(headlines.headline_pairs(computed, figure, two)) == 2  # one pair, both ways
        for (a, b), head in expected.items():
            by_pair.setdefault((a, b), {})[figure] = head
    for (a, b), heads in by_pair.items():
        assert headlines.pair_headlines(computed, a, b) == heads
    assert headlines.pair_headlines(computed, results[0], 10 ** 9) == {}
    for ids in (results, results[:2]):
        for figure in (None, FIGURE):
            formatted = headlines.document_pairs(computed, ids, figure)
            assert formatted == _pairs_one_at_a_time(computed, ids, figure) and formatted
            # the same keys in the same order: the document's bytes follow them
            assert [list(p[3]) for p in formatted] == [list(p[3]) for p in _pairs_one_at_a_time(computed, ids, figure)]
    stored = dict(SignificanceSummary.objects.filter(set_id=computed.pk).values_list("figure", "data"))
    assert stored == precomputed.build(computed)
    assert set(stored) == {"", *summary["figures"]}  # the set's row and one per figure: no pair's headline


def test_values_kept_in_arrays_are_those_kept_one_at_a_time():
    """The summary rounds every pair's figures at once: to the same doubles as Python's round(v, 6) and as a
    p-value kept alone (whose power of ten is libm's, not numpy's vectorised one)."""
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.normal(0, 0.02, 20000), rng.uniform(-1, 1, 20000), (np.arange(-3000, 3000) + 0.5) / 1e6,
                             np.array([0.0, -0.0, 1e-9, -1e-9, 2.5e-7, 123456.5, 1e300, np.inf, np.nan])])
    rounded = significance._round6(values)
    expected = [round(v, 6) for v in values.tolist()]
    assert all((x == y) or (x != x and y != y) for x, y in zip(rounded.tolist(), expected))
    assert np.array_equal(np.signbit(rounded), np.signbit(np.array(expected)))
    p = np.concatenate([10.0 ** -rng.uniform(0, 300, 20000), [10.0 ** -k for k in range(300)], [1.0, 0.0, 1e-300],
                        [np.nan]])
    alone = [float(significance._significant(np.float64(v))) for v in p]
    assert np.array_equal(significance._significant(p), np.array(alone), equal_nan=True)
