"""Incremental significance (issue 39): a new run adds its pairs, a withdrawn run removes its own, the corrections
are recomputed over the stored raw values, and the set so built is the one computed at once, byte for byte.

A pair's draws depend on the campaign's seed and the sentences only (the same genre-stratified resamples for
every pair), and its standard error is summed in exact integers (paired._pair_variances): its stored values
do not depend on which runs were there when it was computed.
"""
from __future__ import annotations

import io

import numpy as np
import pytest
from django.utils import timezone

from campaign.models import Run, RunStatus
from evaluation.models import Result, SentenceRows, SignificanceFigure, SignificanceSet, SignificanceTable
from evaluation.results.sentence_rows import rows_of
from evaluation.significance import packing, sets as significance
from parseval.evaluation import paired

from .helpers import gold_and_damaged


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    return gold_and_damaged(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks)


class Arrivals:
    """Scored runs made of the two real ones: each sentence's row taken from the gold copy or the damaged run
    (with a probability of its own per run), as a scored result with its kept rows."""

    def __init__(self, good, bad):
        self.bad, self.count = bad, 0
        self.base = bad.results.get()
        good_rows, bad_rows = rows_of(good.results.get()), rows_of(self.base)
        self.keys, self.strata = good_rows.keys, good_rows.strata
        self.good_rows, self.bad_rows = good_rows.rows, bad_rows.rows

    def add(self) -> Run:
        self.count += 1
        rng = np.random.default_rng(self.count)
        take_good = rng.random(len(self.keys)) < rng.uniform(0.1, 0.9)
        rows = np.where(take_good[:, None], self.good_rows, self.bad_rows)
        bad = self.bad
        run = Run.objects.create(campaign=bad.campaign, team=bad.team, uploaded_by=bad.uploaded_by,
                                 name=f"mixed {self.count}", synthetic=True, file=bad.file.name,
                                 original_filename=bad.original_filename, sha256=f"{self.count:064x}", size=1,
                                 status=RunStatus.SCORED)
        result = Result.objects.create(run=run, metric=self.base.metric, signature=self.base.signature,
                                       scorer_version=self.base.scorer_version, gold_sha256=self.base.gold_sha256,
                                       document=self.base.document)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, keys=self.keys, strata=self.strata, rows=rows)
        SentenceRows.objects.create(result=result, data=buffer.getvalue())
        return run


def _watch_pairs(monkeypatch) -> list[list[tuple]]:
    """The pairs each computation asks the tests for."""
    asked: list[list[tuple]] = []
    compare_parts = paired.compare_parts

    def watched(*args, pairs=None, **kwargs):
        asked.append(sorted(pairs))
        return compare_parts(*args, pairs=pairs, **kwargs)

    monkeypatch.setattr(paired, "compare_parts", watched)
    return asked


def _withdraw(run: Run) -> None:
    run.withdrawn_at = timezone.now()
    run.save(update_fields=["withdrawn_at"])


def test_thirty_arrivals_and_a_withdrawal_give_the_set_computed_at_once_byte_for_byte(scored, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    arrivals = Arrivals(good, bad)
    asked = _watch_pairs(monkeypatch)
    withdrawn = None
    for k in range(28):  # 2 real runs, then 28 arrivals: 30 runs, one of them withdrawn on the way
        run = arrivals.add()
        new = run.results.get().pk
        before = significance.latest_set(campaign).results
        asked.clear()
        significance.compute(campaign)
        # only the new run's pairs were computed: one against each run already there
        assert asked == [sorted((a, new) for a in before)]
        if k == 10:
            withdrawn = run
            _withdraw(run)
            asked.clear()
            significance.compute(campaign)
            assert asked == []  # nothing to compute: its pairs are only left out
    incremental = significance.latest_set(campaign)
    assert len(incremental.results) == 29 and withdrawn.results.get().pk not in incremental.results
    step_by_step = significance.set_bytes(incremental)

    SignificanceTable.objects.filter(campaign=campaign).delete()  # nothing reused: every pair computed again
    asked.clear()
    at_once = significance.compute(campaign)
    assert len(asked[0]) == 29 * 28 // 2
    assert at_once.pk != incremental.pk
    assert significance.set_bytes(at_once) == step_by_step
    # the audit's checksum says the same (the runs, seed, headlines and corrections)
    assert significance.set_checksum(at_once) == significance.set_checksum(incremental)


def test_a_withdrawn_run_removes_its_pairs(scored, monkeypatch):
    good, bad = scored
    campaign = good.campaign
    arrivals = Arrivals(good, bad)
    third = arrivals.add()
    significance.compute(campaign)
    gone = third.results.get().pk
    assert any(gone in (r["result_a_id"], r["result_b_id"])
               for r in significance.stored_headlines(significance.latest_set(campaign)))
    asked = _watch_pairs(monkeypatch)

    _withdraw(third)
    computed = significance.compute(campaign)
    assert asked == []  # no test computed: the other pairs are kept as they were
    assert gone not in computed.results
    heads = significance.stored_headlines(computed)
    assert heads and all(gone not in (r["result_a_id"], r["result_b_id"]) for r in heads)
    # three runs had three pairs per figure; two runs have one, with a family of one pair
    assert {r["family"] for r in heads} == {1}
    assert significance.pair_tables(computed, gone, good.results.get().pk) == {}
    # its tables stay while the replaced set (which compared it) may still be read, then go
    assert SignificanceTable.objects.filter(result_b=gone).exists()
    significance.compute(campaign)
    assert not SignificanceTable.objects.filter(result_b=gone).exists()


def _holm_by_hand(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - step) * p[i]))
        out[i] = running
    return out


def test_the_holm_correction_is_recomputed_over_the_stored_raw_p_values(scored):
    good, bad = scored
    campaign = good.campaign
    arrivals = Arrivals(good, bad)
    arrivals.add()
    computed = significance.compute(campaign)
    row = SignificanceFigure.objects.get(set=computed, figure="micro|evalb||")
    ids = row.results
    raw = {}
    for table in SignificanceTable.objects.filter(context=row.context, figure=row.figure, result_b__in=ids):
        heads = packing.unpack(table.heads)["heads"]
        for k, a in enumerate(table.others):
            raw[(a, table.result_b_id)] = float(heads[k, 2])
    pairs = [(ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2])]  # the order of the figure row's pairs
    assert sorted(raw) == pairs
    stored = packing.unpack(row.heads)
    assert stored["heads"][:, 2].tolist() == [raw[pair] for pair in pairs]  # the raw values, as computed
    assert stored["p_holm"].tolist() == _holm_by_hand([raw[pair] for pair in pairs])
    assert row.family == 3


def test_the_tables_stay_bounded_over_many_requests(scored):
    good, bad = scored
    campaign = good.campaign
    arrivals = Arrivals(good, bad)
    for _ in range(3):
        arrivals.add()
    sizes = []
    for _ in range(6):  # requests with nothing new: each replaces the set, none adds a table
        computed = significance.compute(campaign)
        sizes.append((SignificanceSet.objects.filter(campaign=campaign).count(),
                      SignificanceFigure.objects.filter(set__campaign=campaign).count(),
                      SignificanceTable.objects.filter(campaign=campaign).count()))
    figures = computed.figures.count()
    # the current set and the one it replaced (headlines only); the tables once: a row per figure and run b
    assert sizes[-1] == (2, 2 * figures, figures * (len(computed.results) - 1))
    assert len(set(sizes[1:])) == 1
