"""The stored analysis is byte for byte what it was before it was computed part by part (to bound its memory):
the document and the packed index of a small EASY case against their fixture (sha256 and sizes, made with the
code that first held every part in memory)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.analysis.stored_case import stored_bytes

FIXTURE = Path(__file__).parent / "data" / "stored_case.json"


def test_the_stored_document_and_index_are_unchanged(tmp_path):
    document, index = stored_bytes(tmp_path)
    expected = json.loads(FIXTURE.read_text())
    assert (len(document), len(index)) == (expected["document_bytes"], expected["index_bytes"])
    assert hashlib.sha256(document).hexdigest() == expected["document_sha256"]
    assert hashlib.sha256(index).hexdigest() == expected["index_sha256"]
