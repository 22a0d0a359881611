"""Kind results come from one scoring pass: per-genre figures from the rows, intervals for every ratio layer."""
from __future__ import annotations

from parseval.annotations.trees.detect import read_sentences
from campaign.models import RunStatus
from parseval.evaluation.metrics.common import TreeMetric
from evaluation.models import Result, ResultCell
from parseval.evaluation.trees import score_trees
from tests import factories

from .helpers import damaged_trees, upload


def test_constituency_scored_once_with_intervals(tree_campaign, alice, tree_gold, monkeypatch,
                                                  django_capture_on_commit_callbacks):
    calls = []
    original = TreeMetric.score_with_rows

    def counting(self, gold, test, **options):
        calls.append((self.name, len(gold)))
        return original(self, gold, test, **options)

    monkeypatch.setattr(TreeMetric, "score_with_rows", counting)
    team = factories.make_team(tree_campaign, alice, name="Team S")
    runs = {p.name: damaged_trees(p, "ATTACH I", seed=5, per_type=6) for p in tree_gold}
    run = upload(tree_campaign, team, alice, runs, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, run.status_reason or run.validation_report
    gold = [t for p in tree_gold for t in read_sentences(p)[0]]
    # evalb and leaf-ancestor, each once over every sentence: no genre is scored again
    assert calls == [("evalb", len(gold)), ("leaf-ancestor", len(gold))]

    result = Result.objects.get(run=run)
    assert result.document["bootstrap"] == {"resamples": 1000, "seed": 12345, "strata": "genre", "ci_level": 0.95}
    for cell in ResultCell.objects.filter(result=result):
        assert cell.ci_low is not None and cell.ci_low <= cell.f <= cell.ci_high, (cell.layer, cell.genre)
    # Per genre, the means are the library's on that genre alone, to the last digit.
    n1 = len(read_sentences(tree_gold[0])[0])
    test = []
    for p in tree_gold:
        test += read_sentences(_write(p, runs[p.name]))[0]
    alone = score_trees(gold[:n1], test[:n1], "leaf-ancestor")
    cell = ResultCell.objects.get(result=result, layer="la-sentence", genre="news")
    assert cell.f == alone["summary"]["sentence_mean"]
    word_mean = ResultCell.objects.get(result=result, layer="leaf-ancestor", genre="news").f
    assert word_mean == alone["summary"]["word_mean"]
    assert any(c.f < 1.0 for c in ResultCell.objects.filter(result=result, layer="leaf-ancestor"))  # damage shows
    assert result.document["genres"]["news"]["leaf-ancestor"]["summary"]["sentence_mean"] == cell.f


def _write(path, text):
    out = path.parent / f"damaged-{path.name}"
    out.write_text(text, encoding="utf-8")
    return out
