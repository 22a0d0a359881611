"""English Penn Treebank trees through the readers, GEIG and the head rules (see conftest.py)."""
from __future__ import annotations

from parseval.annotations.trees.penn import parse_penn, read_penn, write_penn
from parseval.annotations.trees.transforms import apply_transforms
from parseval.evaluation.deps.convert import trees_to_dependencies
from parseval.evaluation.deps.metrics import score_dependencies
from parseval.evaluation.trees.geig import PENN, erasures, reduced, to_unlabelled


def test_round_trip_whole_ptb_sample(ptb_sample):
    files = sorted(ptb_sample.glob("*.mrg"))
    assert len(files) == 199
    total = 0
    for path in files:
        trees = read_penn(path)
        total += len(trees)
        assert parse_penn(write_penn(trees)) == trees, path.name
    assert total == 3914


def test_stranded_adverb_before_negation_in_the_ptb_sample(ptb_sample):
    """wsj_0112.mrg, tree 23: "The president could probably not avoid this restriction ..." has the
    construction of tests/trees/test_geig.py's GEIG_PROBABLY_NOT: "could" and "not" go, "probably"
    stays and opens the verb phrase."""
    tree = read_penn(ptb_sample / "wsj_0112.mrg")[22]
    words = tree.words()
    assert words[:5] == ["The", "president", "could", "probably", "not"]
    erase, moves = erasures(tree, PENN)
    assert 2 in erase and 4 in erase and 3 not in erase
    text = to_unlabelled(reduced(tree, erase, moves)[0])
    assert text.startswith("((The president) (probably avoid (this restriction) (by ")
    assert " not " not in f" {text} " and "could" not in text.split()


def test_penn_head_rules_ignore_function_tags_on_ptb(ptb_sample):
    trees = [t for i in range(1, 21) for t in read_penn(ptb_sample / f"wsj_{i:04d}.mrg")]
    a = trees_to_dependencies(trees)
    b = trees_to_dependencies(apply_transforms(trees, "strip-functions"))
    r = score_dependencies(a, b, punct="penn", pos="xpos")["totals"]
    assert r["words"] > 5000 and r["f"] == 1.0 and r["las"] == 1.0
