"""The stored index in parts: what goes in comes out, and a page reads only the parts it asks for."""
from __future__ import annotations

from evaluation.analysis import store


def _index(sentences: int) -> dict:
    keys = [f"doc/{k}" for k in range(sentences)]
    return {"kind": "deps", "keys": keys, "genres": ["g"] * sentences, "columns": ["gold", "correct"],
            "buckets": {"arc_length": {"1": {"s": [0, 2], "c": [3, 2, 1, 1], "e": [0]},
                                       "2": {"s": [1], "c": [4, 4], "e": []}}},
            "confusions": {"relations": {"nsubj\tobj": [0]}},
            "errors": [[keys[0], "missed", "nsubj", "1 a"], [keys[-1], "spurious", "obj", "2 b"]]}


def test_the_index_round_trip_part_by_part():
    original = _index(2500)  # errors in the first and the third block of 1,000 sentences
    index = store.unpack(store.pack(original))
    assert index["keys"] == original["keys"] and index["kind"] == "deps"
    assert not index._parts.keys() - {"meta"}  # nothing but the sentence keys read so far
    assert index.errors_of("doc/2499") == [["doc/2499", "spurious", "obj", "2 b"]]
    assert set(index._parts) == {"meta", "errors:2"}  # one block of errors read, not the others
    assert index.errors_of("doc/5") == []
    assert dict(index["buckets"]["arc_length"]["2"]) == original["buckets"]["arc_length"]["2"]
    assert "bucket:arc_length\t1" not in index._parts  # the other bucket is not read
    assert list(index["buckets"]) == ["arc_length"] and list(index["buckets"]["arc_length"]) == ["1", "2"]
    assert index["errors"] == original["errors"] and index["confusions"] == original["confusions"]
    assert sorted(index) == sorted(original)
