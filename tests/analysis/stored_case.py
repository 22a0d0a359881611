"""A small EASY case's stored analysis (document as JSON, packed index), as the app computes and stores it: what
``test_stored_bytes`` compares with the fixture made before the analysis was computed part by part."""
from __future__ import annotations

import json
from pathlib import Path

FILES = ("general_elda-c00.xml", "litteraire_1-c00.xml", "oral_delic_1-c00.xml")
BOOTSTRAP, SEED = 50, 12345


def stored_bytes(folder: Path) -> tuple[bytes, bytes]:
    """``(document JSON, index)`` of the perturbed run of three files of the reference (benchmarks/easy_corpus.py)."""
    from benchmarks.easy_corpus import build
    from evaluation.analysis.store import pack
    from evaluation.kinds.analysis import split
    from parseval.evaluation.easy import buckets as easy_buckets

    build(folder, 1)
    gold = [folder / "gold" / name for name in FILES]
    run = [folder / "run" / name for name in FILES]
    counts = easy_buckets.count(gold, run, errors=True, bootstrap=BOOTSTRAP, seed=SEED)
    document = easy_buckets.document(counts, bootstrap=BOOTSTRAP, seed=SEED, confusions=True)
    made = split(counts, document)
    index = pack(made.index)
    return json.dumps(made.document, sort_keys=True).encode("utf-8"), index
