"""Compare the EASY reader with its canonical path on and off over many randomly damaged files.

The test suite runs a few hundred such cases (tests/easy/test_canonical.py);
this runs as many as asked, for a longer search after changing the reader:

    .venv/bin/python scripts/fuzz_easy_reader.py FIRST_SEED LAST_SEED

Each seed damages 50 copies of the first 8 sentences of a real reference file
with 1 to 3 mutations, and reads each as a run, as gold, through
``validate_run`` and as scoring reads gold (``parts=True``). It prints
every difference (and writes the file to
``fuzz-fail-N.xml``), then the totals; the exit code is 1 if any differed.
"""
from __future__ import annotations

import io
import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from parseval.annotations.easy.reader import read_document  # noqa: E402
from tests.conftest import DATA  # noqa: E402
from tests.easy import test_canonical as cases  # noqa: E402

FILES = ["general_elda.xml", "oral_delic_1.xml", "mail_10.xml", "litteraire_1.xml", "medical_6.xml"]


def main(first: int, last: int) -> int:
    patch = pytest.MonkeyPatch()
    ref = DATA / "easy-ref" / "ref"
    total = failures = whole = 0
    for seed in range(first, last):
        rnd = random.Random(seed)
        base = cases.head_of(ref / FILES[seed % len(FILES)], 8)
        reference = read_document(io.BytesIO(base), gold=True, strict=False)
        for _ in range(50):
            data = base
            for _ in range(rnd.randint(1, 3)):
                data = cases._mutate(data, rnd)
            for mode in ("run", "gold", "validate"):
                on, scanners, off = cases.both(data, patch, mode, reference)
                total += 1
                whole += bool(scanners and scanners[0].finished)
                if on != off:
                    failures += 1
                    Path(f"fuzz-fail-{failures}.xml").write_bytes(data)
                    print(f"seed {seed}, {mode}: differs (fuzz-fail-{failures}.xml)\n  on:  {on}\n  off: {off}")
            # gold as scoring reads it: reference parts against sentences
            total += 1
            light, off = cases._parts_snapshot(data, True)[0], cases._parts_snapshot(data, False)[0]
            if light != off:
                failures += 1
                Path(f"fuzz-fail-{failures}.xml").write_bytes(data)
                print(f"seed {seed}, reference: differs (fuzz-fail-{failures}.xml)\n  parts: {light}\n  off: {off}")
    print(f"{total} cases, {failures} differing, {whole} read whole by the canonical path")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
