"""A small EASY case's stored analysis (document as JSON, packed index), as the app computes and stores it: what
``test_stored_bytes`` compares with the fixture made before the analysis was computed part by part."""
from __future__ import annotations

import json
from pathlib import Path

FILES = ("general_elda-c00.xml", "litteraire_1-c00.xml", "oral_delic_1-c00.xml")
BOOTSTRAP, SEED = 50, 12345


def stored_bytes(folder: Path, compact: bool = True) -> tuple[bytes, bytes]:
    """``(document JSON, index)`` of the perturbed run of three files of the reference (benchmarks/easy_corpus.py),
    as the kinds' ``analyse`` make it (``compact``), else with every part in lists first."""
    from benchmarks.easy_corpus import build
    from evaluation.analysis.store import pack
    from evaluation.kinds.analysis import split
    from parseval.evaluation.easy import buckets as easy_buckets

    build(folder, 1)
    gold = [folder / "gold" / name for name in FILES]
    run = [folder / "run" / name for name in FILES]
    counts = easy_buckets.count(gold, run, errors=True, bootstrap=BOOTSTRAP, seed=SEED)
    document = easy_buckets.document(counts, bootstrap=BOOTSTRAP, seed=SEED, confusions=True)
    made = split(counts, document, compact=compact)
    index = pack(made.index)
    return json.dumps(made.document, sort_keys=True).encode("utf-8"), index


def fingerprint(document: bytes, index: bytes) -> dict:
    """sha256 of the document and of each of the index's compressed parts, but for the errors' parts that of
    their errors in sorted order: the fixture was first made when, within a sentence, the library listed its
    errors in the order of a set of argument ranges, whose hash depended on the process when an argument was null
    (``hash(None)``). They now follow a total order of their own (``test_deterministic_bytes`` compares the
    whole bytes of processes with different hash seeds); the errors compared sorted still say the same errors."""
    import hashlib
    import zlib

    from evaluation.analysis import store
    size = int.from_bytes(index[4:8], "big")
    header = json.loads(index[8:8 + size].decode("utf-8"))
    start, parts = 8 + size, {}
    for name, (offset, length) in header.items():
        blob = index[start + offset:start + offset + length]
        if name.startswith("errors:"):
            blob = json.dumps(sorted(json.loads(zlib.decompress(blob))), ensure_ascii=False).encode("utf-8")
        parts[name] = hashlib.sha256(blob).hexdigest()
    return {"document": hashlib.sha256(document).hexdigest(), "document_bytes": len(document),
            "magic": index[:4] == store.MAGIC, "part_names": list(header), "parts": parts}
