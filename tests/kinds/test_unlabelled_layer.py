"""A constituency campaign that publishes evalb-unlabelled: stored cells, pages, paired tests, demo_figures."""
from __future__ import annotations

import re
from io import StringIO

import pytest
from django import forms
from django.urls import reverse
from django.utils.html import escape

from parseval.annotations.trees.detect import read_trees
from parseval.annotations.trees.penn import write_penn
from campaign.admin_forms import check_metrics
from campaign.management.commands.demo_figures import Command
from campaign.models import RunStatus
from parseval.evaluation import metrics
from evaluation.models import ResultCell, SignificanceSet
from evaluation.significance import sets as significance
from evaluation.results.text import percent
from tests import factories

from .helpers import upload

CHOSEN = {"tree_metrics": ["evalb", "evalb-unlabelled"]}


def relabelled(path) -> str:
    """The gold trees with every phrase labelled X: the spans are the gold's, no phrase label is."""
    trees = read_trees(path)
    for tree in trees:
        for node in tree.subtrees():
            if node.is_phrasal and node.label:
                node.label = "X"
    return write_penn(trees)


def test_the_option_check_accepts_the_layer():
    check_metrics("constituency", {"tree_metrics": ["evalb", "evalb-unlabelled", "leaf-ancestor"]})
    with pytest.raises(forms.ValidationError, match="evalb-unlabeled"):
        check_metrics("constituency", {"tree_metrics": ["evalb-unlabeled"]})


@pytest.fixture
def scored(tree_campaign, tree_gold, alice, bob, django_capture_on_commit_callbacks):
    tree_campaign.metrics = CHOSEN
    tree_campaign.save()
    team_a = factories.make_team(tree_campaign, alice, name="Team A")
    team_b = factories.make_team(tree_campaign, bob, name="Team B")
    other = upload(tree_campaign, team_a, alice, {p.name: relabelled(p) for p in tree_gold},
                   django_capture_on_commit_callbacks, name="other labels")
    gold = upload(tree_campaign, team_b, bob, {p.name: p.read_text() for p in tree_gold},
                  django_capture_on_commit_callbacks, name="gold copy")
    assert other.status == gold.status == RunStatus.SCORED
    return other, gold


def test_spans_right_labels_wrong(scored):
    other, gold = scored
    cell = {c.layer: c for c in ResultCell.objects.filter(result__run=other, genre="ALL")}
    assert sorted(cell) == ["evalb", "evalb-exact", "evalb-unl-exact", "evalb-unlabelled"]
    unl, lab = cell["evalb-unlabelled"], cell["evalb"]
    # every gold bracket is found by its span: matched = gold = test brackets, P = R = F = 1
    assert unl.fc == unl.fp == unl.cr == lab.cr == lab.fp and unl.f == unl.p == unl.r == 1.0
    assert cell["evalb-unl-exact"].f == 1.0 and cell["evalb-exact"].f == 0.0
    assert lab.f < 0.1 and unl.ci_low <= unl.f <= unl.ci_high
    # per genre too, from the rows
    assert {c.genre: c.f for c in ResultCell.objects.filter(result__run=other, layer="evalb-unlabelled")} == {
        "ALL": 1.0, "news": 1.0, "wiki": 1.0}
    document = other.results.get().document
    assert document["metrics"]["evalb-unlabelled"]["signature"].startswith("metric:evalb|labeled:no|")
    assert "|evalb-unlabelled:metric:evalb|labeled:no|" in document["signature"]


def test_results_page_shows_and_explains_the_layer(client, tree_campaign, scored, organiser):
    other, _ = scored
    client.force_login(organiser)
    html = client.get(reverse("results:campaign", kwargs={"slug": tree_campaign.slug})).content.decode()
    header = re.search(r'<table class="overview">.*?<thead>(.*?)</thead>', html, re.S).group(1)
    assert re.findall(r'data-layer="([^"]+)"', header) == ["evalb", "evalb-exact", "evalb-unlabelled",
                                                          "evalb-unl-exact"]
    assert "evalb F (unlabelled brackets) (%)" in html
    details = re.search(r'<details id="explain-layer-evalb-unlabelled">(.*?)</details>', html, re.S).group(1)
    assert escape(metrics.layers()["evalb-unlabelled"].description) in details
    run_page = client.get(reverse("portal:run", kwargs={"pk": other.pk})).content.decode()
    cell = ResultCell.objects.get(result__run=other, layer="evalb-unlabelled", genre="ALL")
    row = re.search(r'<tr data-layer="evalb-unlabelled">(.*?)</tr>', run_page, re.S)
    assert row and f">{percent(cell.f)}<" in row.group(1)


def test_paired_tests_and_demo_figures_read_the_layer(scored):
    other, gold = scored
    computed = SignificanceSet.objects.latest()
    [unl] = significance.stored_headlines(computed, figure="micro|evalb-unlabelled||")
    [lab] = significance.stored_headlines(computed, figure="micro|evalb||")
    # the same spans: no unlabelled difference; the labels: a large labelled one
    assert unl["diff"] == 0.0 and not unl["significant"]
    assert abs(lab["diff"]) > 0.9 and lab["significant"]
    out = StringIO()
    command = Command(stdout=out)
    command.constituency(other.campaign.slug)
    sentences = len(other.results.get().document["sentences"])
    assert f"  {'other labels':<60} unlabelled bracket F 100.00 (P 100.00, R 100.00; {sentences} sentences" \
        in out.getvalue()
