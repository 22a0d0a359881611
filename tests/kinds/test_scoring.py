"""Scoring through the task (in process): stored figures are the library's on the same files."""
from __future__ import annotations

import pytest

from parseval.annotations.conllu import parse_conllu
from parseval.annotations.trees.detect import read_sentences
from campaign.models import RunStatus
from parseval.evaluation.deps import score_dependencies
from parseval.evaluation.deps.convert import trees_to_dependencies
from evaluation.models import Result, ResultCell
from parseval.evaluation.signature import extend_signature
from evaluation.results.summaries import campaign_results
from parseval.evaluation.trees import score_trees
from tests import factories

from .helpers import damaged_trees, upload


def _trees(paths):
    out = []
    for p in paths:
        out += read_sentences(p)[0]
    return out


@pytest.fixture
def team(tree_campaign, alice):
    return factories.make_team(tree_campaign, alice, name="Team A")


def test_constituency_run_scored_with_the_chosen_metrics(tree_campaign, team, alice, tree_gold, tmp_path,
                                                         django_capture_on_commit_callbacks):
    runs = {p.name: damaged_trees(p, "ATTACH I", seed=3, per_type=4) for p in tree_gold}
    run = upload(tree_campaign, team, alice, runs, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, run.status_reason or run.validation_report
    result = Result.objects.get(run=run)
    assert result.metric == "constituency"
    doc = result.document
    assert set(doc["metrics"]) == {"evalb", "leaf-ancestor", "dependency"}

    # The same library on the same files gives the same documents.
    test_paths = []
    for name, text in runs.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        test_paths.append(tmp_path / name)
    gold, test = _trees(tree_gold), _trees(sorted(test_paths))
    evalb = score_trees(gold, test, "evalb")
    la = score_trees(gold, test, "leaf-ancestor")
    # Sequoia's labels are the French Treebank's: converted by the ftb table, chosen by them (no head_rules option)
    deps = score_dependencies(trees_to_dependencies(gold, "ftb"), trees_to_dependencies(test, "ftb"), punct="penn",
                              pos="xpos")
    deps["signature"] = extend_signature(deps["signature"], head_rules="ftb")
    assert doc["metrics"]["evalb"] == evalb
    assert doc["metrics"]["leaf-ancestor"] == la
    assert doc["metrics"]["dependency"] == deps
    assert evalb["summary"]["all"]["f"] < 1.0  # the damage shows

    cell = ResultCell.objects.get(result=result, layer="evalb", genre="ALL")
    assert (cell.p, cell.r, cell.f) == (evalb["summary"]["all"]["precision"], evalb["summary"]["all"]["recall"],
                                        evalb["summary"]["all"]["f"])
    assert (cell.fc, cell.fp, cell.cr) == (evalb["summary"]["all"]["matched"], evalb["summary"]["all"]["test_brackets"],
                                           evalb["summary"]["all"]["gold_brackets"])
    assert ResultCell.objects.get(result=result, layer="leaf-ancestor", genre="ALL").f == la["summary"]["word_mean"]
    assert ResultCell.objects.get(result=result, layer="deps-las", genre="ALL").f == deps["totals"]["las"]

    # Per genre: the library on that genre's sentences alone.
    n1 = len(read_sentences(tree_gold[0])[0])
    genre_a = score_trees(gold[:n1], test[:n1], "evalb")
    assert ResultCell.objects.get(result=result, layer="evalb", genre="news").f == genre_a["summary"]["all"]["f"]
    assert ResultCell.objects.filter(result=result, genre="wiki").count() == 7  # evalb 2, leaf-ancestor 2, deps 3
    assert doc["signature"].startswith("kind:constituency|evalb:") and doc["gold_sha256"] and doc["scorer_version"]

    # The publication snapshot dict carries them.
    data = campaign_results(tree_campaign)
    [entry] = data["runs"]
    assert {c["layer"] for c in entry["cells"]} >= {"evalb", "leaf-ancestor", "la-sentence", "deps-uas"}
    assert data["campaign"]["kind"] == "constituency"


def test_gold_run_scores_perfectly(tree_campaign, team, alice, tree_gold, django_capture_on_commit_callbacks):
    run = upload(tree_campaign, team, alice, {p.name: p.read_text() for p in tree_gold},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED
    cells = {c.layer: c.f for c in ResultCell.objects.filter(result__run=run, genre="ALL")}
    assert cells["evalb"] == 1.0 and cells["leaf-ancestor"] == 1.0 and cells["deps-las"] == 1.0


@pytest.mark.parametrize("metrics, named", [({"tree_metrics": ["parseval2"]}, "parseval2"),
                                            ({"transform": "strip-function-tags"}, "strip-function-tags")])
def test_wrong_scoring_options_fail_the_run_with_a_reason(metrics, named, tree_campaign, team, alice, tree_gold,
                                                    django_capture_on_commit_callbacks):
    tree_campaign.metrics = metrics
    tree_campaign.save()
    run = upload(tree_campaign, team, alice, {p.name: p.read_text() for p in tree_gold},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.FAILED and named in run.status_reason
    assert not Result.objects.exists()


def test_head_rules_are_chosen_by_the_gold_trees_labels(tree_campaign, team, alice, tree_gold,
                                                         django_capture_on_commit_callbacks):
    """Without a head_rules option, the built-in table that fits the gold trees' labels converts them: ftb for
    Sequoia's (penn finds 2% of their heads by a rule), and the result says which, in its parameters and signature."""
    assert "head_rules" not in tree_campaign.metrics
    run = upload(tree_campaign, team, alice, {p.name: p.read_text() for p in tree_gold},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, run.status_reason
    result = Result.objects.get(run=run)
    assert result.parameters["head_rules"] == result.document["parameters"]["head_rules"] == "ftb"
    assert "|head_rules:ftb|" in result.document["metrics"]["dependency"]["signature"]
    assert "|head_rules:ftb|" in result.signature


def test_head_rules_that_do_not_fit_the_gold_fail_the_run_saying_so(tree_campaign, team, alice, tree_gold,
                                                                     django_capture_on_commit_callbacks, caplog):
    """The organisers' table is refused when it does not fit the gold trees' labels (Penn rules on French trees):
    the run fails, not caused by it, with a reason that names the table and the others; no figure of the hidden
    gold in the reason (the detail, with counts, goes to the log)."""
    tree_campaign.metrics = {**tree_campaign.metrics, "head_rules": "penn"}
    tree_campaign.save()
    run = upload(tree_campaign, team, alice, {p.name: p.read_text() for p in tree_gold},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.FAILED
    assert run.status_reason.startswith("not caused by the run: cannot score: the campaign's head rules 'penn' do not "
                                        "fit the labels of its gold trees")
    assert "ftb" in run.status_reason and not any(ch.isdigit() for ch in run.status_reason)
    assert "branching nodes" in caplog.text and not Result.objects.exists()


def test_unknown_head_rules_are_a_wrong_option():
    from campaign.admin_forms import check_metrics
    from django import forms

    with pytest.raises(forms.ValidationError, match="no-such-table"):
        check_metrics("constituency", {"dependency_via_head_rules": True, "head_rules": "no-such-table"})
    check_metrics("constituency", {"dependency_via_head_rules": True, "head_rules": "ftb"})


def test_transform_and_other_metrics(tree_campaign, team, alice, tree_gold, django_capture_on_commit_callbacks):
    tree_campaign.metrics = {"tree_metrics": ["geig1991", "conformance"], "transform": "strip-functions"}
    tree_campaign.save()
    run = upload(tree_campaign, team, alice, {p.name: damaged_trees(p, "LABEL I", seed=2) for p in tree_gold},
                 django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, run.status_reason
    doc = Result.objects.get(run=run).document
    assert set(doc["metrics"]) == {"geig1991", "conformance"}
    assert doc["parameters"]["transform"] == "strip-functions"
    assert ResultCell.objects.get(result__run=run, layer="conformance", genre="ALL").f == \
        doc["metrics"]["conformance"]["summary"]["conformance"]


def test_dependency_run_scored(dep_campaign, alice, dep_gold, tmp_path, django_capture_on_commit_callbacks):
    team = factories.make_team(dep_campaign, alice, name="Team D")
    gold_text = {p.name: p.read_text(encoding="utf-8") for p in dep_gold}
    # Attach every third word to the root word (never a cycle): a parser that gets some heads wrong.
    damaged = {}
    for name, text in gold_text.items():
        sentences = []
        for block in text.strip("\n").split("\n\n"):
            rows = [line.split("\t") for line in block.split("\n")]
            root = next(r[0] for r in rows if len(r) == 10 and r[6] == "0")
            for r in rows:
                if len(r) == 10 and r[0].isdigit() and int(r[0]) % 3 == 0 and r[6] != "0":
                    r[6] = root
            sentences.append("\n".join("\t".join(r) for r in rows))
        damaged[name] = "\n\n".join(sentences) + "\n\n"
    run = upload(dep_campaign, team, alice, damaged, django_capture_on_commit_callbacks)
    assert run.status == RunStatus.SCORED, run.status_reason or run.validation_report
    doc = Result.objects.get(run=run).document
    gold = parse_conllu(gold_text["gsd.conllu"]) + parse_conllu(gold_text["sequoia.conllu"])
    test = parse_conllu(damaged["gsd.conllu"]) + parse_conllu(damaged["sequoia.conllu"])
    expected = score_dependencies(gold, test, punct="upos", pos="upos")
    assert doc["metrics"]["dependency"] == expected
    assert 0 < expected["totals"]["las"] < 1
    assert ResultCell.objects.get(result__run=run, layer="deps-las", genre="ALL").f == expected["totals"]["las"]
    seq = score_dependencies(parse_conllu(gold_text["sequoia.conllu"]), parse_conllu(damaged["sequoia.conllu"]))
    assert ResultCell.objects.get(result__run=run, layer="deps-uas", genre="sequoia").f == seq["totals"]["uas"]
