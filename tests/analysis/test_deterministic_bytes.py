"""Two processes compute the same stored analysis as the same bytes.

Within a sentence the errors once followed the order of a set of argument ranges; a null argument's hash
(``hash(None)``) differs from one process to the next, so the order, the errors' compressed parts and the
index's offsets could too. Each computation here runs in a process of its own, with its own hash seed."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
import hashlib, sys
from pathlib import Path
import django
django.setup()
from tests.analysis.stored_case import stored_bytes
document, index = stored_bytes(Path(sys.argv[1]))
print(hashlib.sha256(document).hexdigest(), hashlib.sha256(index).hexdigest())
"""


SEEDS = ("0", "1", "2", "3", "4", "5")  # before the fix, six processes gave two different indexes


def test_processes_with_different_hash_seeds_store_the_same_analysis_bytes(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(REPO)}
    running = {seed: subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path / seed)], cwd=REPO,
                                      env={**env, "PYTHONHASHSEED": seed}, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True) for seed in SEEDS}
    made = {}
    for seed, process in running.items():
        out, err = process.communicate()
        assert process.returncode == 0, err
        made[seed] = out.strip()
    assert all(len(d.split()) == 2 for d in made.values())
    assert hashlib.sha256(b"").hexdigest() not in made["0"]
    assert len(set(made.values())) == 1, made


def _ranges(text: str) -> tuple:
    """An error's argument ranges read back from its text (``SUJ-V(1-2, ∅)``), as the order compares them."""
    inside = text[text.index("(") + 1:-1]
    out = []
    for arg in inside.split(", "):
        if arg == "∅":
            out.append((-1, -1))
        elif "-" in arg:
            start, end = arg.split("-")
            out.append((int(start) - 1, int(end)))
        else:
            out.append((int(arg) - 1, int(arg)))
    return tuple(out)


def test_within_a_sentence_each_types_errors_follow_their_argument_ranges(tmp_path):
    """In this process alone: the order the bytes above depend on, checked error by error. A set's order fails
    it in any process (its ranges' hashes put them out of order), not only where a null argument's hash
    moves."""
    from benchmarks.easy_corpus import build
    from parseval.evaluation.easy import buckets as easy_buckets
    from tests.analysis.stored_case import FILES

    build(tmp_path, 1)
    counts = easy_buckets.count([tmp_path / "gold" / n for n in FILES], [tmp_path / "run" / n for n in FILES],
                                errors=True)
    errors = list(counts.errors)
    nulls = sum("∅" in item for _, _, _, item in errors)
    assert len(errors) > 1000 and nulls >= 5
    for before, after in zip(errors, errors[1:]):
        if before[:3] == after[:3]:  # one sentence, one side, one type
            assert _ranges(before[3]) <= _ranges(after[3]), (before, after)
