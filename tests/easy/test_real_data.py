"""Every real gold file loads; the totals match the data README."""
from __future__ import annotations

from collections import Counter

from parseval.annotations.easy import read_document
from parseval.evaluation.easy import score_corpus
from parseval.evaluation.easy.ranges import ReferenceView
from parseval.annotations.easy.schema import DEFAULT_SCHEMA


def test_every_reference_file_loads_and_totals_match_readme(gold_docs):
    assert len(gold_docs) == 22
    sentences = sum(len(d.sentences) for d in gold_docs)
    forms = sum(len(s.forms) for d in gold_docs for s in d.sentences)
    groups = sum(len(s.groups) for d in gold_docs for s in d.sentences)
    relations = sum(len(s.relations) for d in gold_docs for s in d.sentences)
    # The README totals are counts of elements as written in the files, BEFORE dedup.
    assert (sentences, forms, groups, relations) == (3585, 75490, 34785, 39219)
    # After dedup in range space (section 1 of the spec): groups never collapse (they cannot overlap),
    # relations do: exact repeats and relations written once with a form and once with its group.
    views = [ReferenceView(s, DEFAULT_SCHEMA.relation_roles) for d in gold_docs for s in d.sentences]
    assert sum(len(v) for r in views for v in r.cons.values()) == 34785
    deduped = sum(len(v) for r in views for v in r.rels.values())
    assert 39219 - 200 < deduped < 39219
    genres = Counter(d.name.split("_")[0] for d in gold_docs)
    assert set(genres) == {"general", "litteraire", "mail", "medical", "oral", "questions"}


def test_gold_warnings_are_the_known_ones(gold_docs):
    messages = [w.message for d in gold_docs for w in d.warnings]
    dangling = [m for m in messages if "not in the sentence" in m]
    repeats = [m for m in messages if "repeats relation" in m]
    assert len(dangling) == 3  # general_lemonde E57, E83; oral_delic_4 E47
    assert len(repeats) == 32
    assert any("duplicate relation id" in m for m in messages)  # oral_delic_1 E96
    # F0 null arguments are legitimate: no warning for them
    assert not any("F0" in m for m in dangling)


def test_every_guide_file_loads(easy_guide):
    docs = [read_document(p, gold=True) for p in sorted(easy_guide.glob("*.xml"))]
    assert len(docs) == 15
    assert sum(len(d.sentences) for d in docs) == 150
    assert all(d.has_constituents and d.has_relations for d in docs)
    assert not [w for d in docs for w in d.warnings]


def test_gold_against_itself_is_perfect_in_all_20_ways(gold_docs):
    result = score_corpus(gold_docs, gold_docs, bootstrap=20, seed=1)
    ways = {(c["layer"], c["mode"], c["match"]) for c in result["cells"]}
    assert len(ways) == 20
    with_items = [c for c in result["cells"] if c["fp"] or c["cr"]]
    assert len(with_items) > 1000
    for c in with_items:
        assert (c["p"], c["r"], c["f"]) == (1.0, 1.0, 1.0), c
        assert c["fc"] == c["fp"] == c["cr"]
    for m in result["macro"]:
        assert m["f"] == 1.0
    # counts are after dedup: 34,785 groups, fewer relations than the 39,219 written
    all_cons = [c for c in result["cells"] if c["layer"] == "constituents" and c["genre"] == "ALL"
                and c["type"] == "ALL"]
    assert {c["cr"] for c in all_cons} == {34785}


def test_fast_and_detailed_readers_build_the_same_sentences(easy_ref, easy_guide, gold_docs):
    from parseval.annotations.easy import iter_sentences

    paths = sorted(easy_ref.glob("*.xml"))[:6] + sorted(easy_guide.glob("*.xml"))[:3]
    for path in paths:
        warnings_fast, warnings_slow = [], []
        fast = list(iter_sentences(path, gold=True, warnings=warnings_fast))
        slow = list(iter_sentences(path, gold=True, warnings=warnings_slow, fast=False))
        assert fast == slow, path.name
        assert [w.message for w in warnings_fast] == [w.message for w in warnings_slow]
