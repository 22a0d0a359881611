"""Square-bracket trees and format detection."""
from __future__ import annotations

import pytest

from parseval.annotations.errors import InputError
from parseval.annotations.trees.detect import detect_format, is_line_layout, parse_trees
from parseval.annotations.trees.penn import parse_penn, write_penn
from parseval.annotations.trees.square import parse_square, write_square
from tests.conftest import sequoia_mrg, sequoia_trees


def test_bare_words_and_single_word_phrases():
    (t,) = parse_square("[S [NP the cat ] [VP sat [ADV down ] ] ]")
    assert t.words() == ["the", "cat", "sat", "down"]
    assert [s[0] for s in t.spans()] == ["S", "NP", "VP", "ADV"]  # [ADV down ] stays phrasal
    assert t.tagged_words()[0] == ("the", "")


def test_square_round_trip_and_penn_conversion():
    text = "[S [N1 two [N1 tax revision ] bills ] were passed ]\n[ [ The prospect ] [ of it ] ]\n"
    trees = parse_square(text)
    assert write_square(trees) == text
    assert parse_penn(write_penn(trees)) == trees


def test_treebank_through_square_keeps_brackets_and_words():
    for source in ("annodis", "europar", "frwiki"):
        trees = parse_penn(sequoia_trees(source, 40))
        back = parse_square(write_square(trees))
        assert [t.words() for t in back] == [t.words() for t in trees]
        assert [[s for s in t.spans()] for t in back] == [[s for s in t.spans()] for t in trees]


def test_malformed_square():
    with pytest.raises(InputError) as info:
        parse_square("[S a ]\n[S b ] ]\n", file="x.sq")
    assert (info.value.problems[0].line, info.value.problems[0].sentence) == (2, "2")
    with pytest.raises(InputError) as info:
        parse_square("[S a ]\n[S [NP b ]\n", file="x.sq")
    assert (info.value.problems[0].line, info.value.problems[0].sentence) == (2, "2")


def test_detection(shared_data):
    assert detect_format("\n  (S (A a))") == "penn"
    assert detect_format("[S a ]") == "square"
    with pytest.raises(InputError):
        detect_format("S a", file="f")
    assert parse_trees("[S a b ]")[0].label == "S"
    mrg = sequoia_mrg("annodis", 4)
    assert not is_line_layout(mrg)
    assert is_line_layout((shared_data / "evalb-sample" / "sample.gld").read_text())
