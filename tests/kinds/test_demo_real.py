"""The demo's real parser runs (spaCy fr_core_news_sm only, on tiny slices): real, named, scored, cached.

The EASY demo's real run is checked in tests/console/test_load_demo.py."""
from __future__ import annotations

from io import StringIO

import pytest
from campaign import demo_kinds, demo_parses
from campaign.demo_parses import ParseCache
from campaign.models import Campaign, RunStatus
from evaluation.models import ResultCell
from tests import factories

SM = "fr_core_news_sm"


@pytest.fixture
def sm_only(monkeypatch):
    monkeypatch.setattr(demo_parses, "REAL_MODELS", (SM,))
    monkeypatch.setattr(demo_kinds, "TREES_PER_DOCUMENT", 4)
    monkeypatch.setattr(demo_kinds, "DEP_SLICES", {"sequoia": ("fr_sequoia-ud-test.conllu", 6),
                                                   "gsd": ("fr_gsd-ud-test.conllu", 6)})


@pytest.mark.django_db(transaction=True)
def test_kind_demos_have_real_runs_named_by_model_and_version(storage, shared_data, sm_only, tmp_path):
    organiser = factories.make_user("organiser")
    users = {name: factories.make_user(name) for name in ("alpha", "beta", "spacy")}
    cache = ParseCache(tmp_path / "parses")
    demo_kinds.load_kind_demos(organiser, users, StringIO().write, cache=cache)
    # constituency (converted), dependency on gold tokens and on the raw text, both slices
    assert len(cache.parsed) == 1 + 2 + 2

    trees = Campaign.objects.get(slug=demo_kinds.TREE_SLUG)
    (run,) = trees.runs.filter(synthetic=False, team__system=False)
    assert run.name == "spaCy fr_core_news_sm 3.8.0 (converted from UD, ud2tree-1)"
    assert run.status == RunStatus.SCORED and run.team.name == "spaCy baseline"
    assert "not synthetic" in run.system_description and "ud2tree-1" in run.system_description
    la = ResultCell.objects.get(result__run=run, layer="leaf-ancestor", genre="ALL").f
    assert 0.5 < la < 1.0  # a real parse, converted: far from nothing, not the gold
    # another labelling scheme: the spans count for more than the labels
    labelled = ResultCell.objects.get(result__run=run, layer="evalb", genre="ALL").f
    unlabelled = ResultCell.objects.get(result__run=run, layer="evalb-unlabelled", genre="ALL").f
    assert labelled < unlabelled < 1.0

    deps = Campaign.objects.get(slug=demo_kinds.DEP_SLUG)
    run = deps.runs.get(synthetic=False, track="gold-tokens", team__system=False)
    assert run.name == "spaCy fr_core_news_sm 3.8.0" and "gold tokens" in run.system_description
    las = ResultCell.objects.get(result__run=run, layer="deps-las", genre="ALL").f
    assert 0.6 < las < 1.0
    # the same parser in its own tokenisation, aligned by characters and scored as CoNLL 2018 does
    raw = deps.runs.get(synthetic=False, track="raw-text")
    assert raw.name == "spaCy fr_core_news_sm 3.8.0 (raw text)" and raw.status == RunStatus.SCORED
    raw_las = ResultCell.objects.get(result__run=raw, layer="conll18-las", genre="ALL").f
    gold_tokens_las = ResultCell.objects.get(result__run=run, layer="conll18-las", genre="ALL").f
    assert 0.4 < raw_las < gold_tokens_las  # its own tokens and sentences cost it something
    assert trees.runs.filter(synthetic=True).count() == 3 and deps.runs.filter(synthetic=True).count() == 2

    # A second call (the next demo load) finds the runs and reads the parses back: nothing parsed.
    again = ParseCache(tmp_path / "parses", loader=lambda model: pytest.fail("a model was loaded"))
    demo_kinds.load_kind_demos(organiser, users, StringIO().write, cache=again)
    # (and each campaign's consensus, unchanged: built once)
    assert again.parsed == [] and trees.runs.count() == 4 + 1 and deps.runs.count() == 4 + 1


def test_converted_tree_runs_give_spacy_the_brackets_and_write_the_escapes_back(shared_data, tmp_path):
    """A Sequoia tree writes its brackets -LRB-/-RRB-: spaCy gets "(" and ")" (the cached parse's forms),
    tags them as punctuation (so the converted tree's tag is PONCT, as in the gold), and the converted
    tree writes -LRB-/-RRB- again, so that its words are the gold's word for word."""
    from parseval.annotations.trees.detect import read_trees
    from parseval.annotations.trees.penn import parse_penn

    line = next(t for t in (shared_data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict").read_text(
        encoding="utf-8").splitlines() if "-LRB-" in t)
    gold = tmp_path / "news.mrg"
    gold.write_text(line + "\n", encoding="utf-8")
    cache = ParseCache(tmp_path / "parses")
    (text,) = demo_kinds.real_tree_files(cache, SM, [gold]).values()
    (parsed,) = (tmp_path / "parses").glob("*.conllu")
    forms = [row.split("\t")[1] for row in parsed.read_text(encoding="utf-8").splitlines() if row[:1].isdigit()]
    assert forms.count("(") == 2 and "-LRB-" not in forms
    (converted,) = parse_penn(text)
    (tree,) = read_trees(gold)
    assert converted.words() == tree.words()
    assert [tag for word, tag in converted.tagged_words() if word in ("-LRB-", "-RRB-")] == ["PONCT"] * 4
