"""The stored analysis is byte for byte what it was before it was computed part by part (to bound its memory):
the document and the packed index of a small EASY case against their fixture, made with the code that first
held every part in memory (:func:`tests.analysis.stored_case.fingerprint`: every compressed part compared
byte for byte, the errors' parts as sorted errors)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.analysis.stored_case import fingerprint, stored_bytes

FIXTURE = Path(__file__).parent / "data" / "stored_case.json"


def test_the_stored_document_and_index_are_unchanged(tmp_path):
    made = fingerprint(*stored_bytes(tmp_path))
    expected = json.loads(FIXTURE.read_text())
    assert made["magic"] and len(expected["parts"]) > 20
    assert {k: v for k, v in made.items() if k != "parts"} == {k: v for k, v in expected.items() if k != "parts"}
    assert made["parts"] == expected["parts"]


def test_the_compact_index_is_packed_as_the_same_bytes(tmp_path):
    """In one process (the errors in one order): the compact index, written part by part, and the index of
    lists give the very same bytes."""
    compact = stored_bytes(tmp_path / "a")
    lists = stored_bytes(tmp_path / "b", compact=False)
    assert compact[0] == lists[0] and compact[1] == lists[1]
