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
