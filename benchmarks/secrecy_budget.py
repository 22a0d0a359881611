"""The secrecy budget of every team-figures setting, measured by the adversary of evaluation/secrecy_budget.py.

For the demo's EASY campaign (the EASY reference corpus, 10 % development sample, 90 % test, four synthetic
teams and the spaCy team, 3 runs each) and for a campaign of 40,000 sentences like it (lengths and genres drawn
from the reference corpus; 2.5 % development, 10 % test, 16 teams, 3 runs each), prints setting x bits per
disclosed run x the campaign's total (teams x disclosed runs x bits, the consensus run counted as one more) and
the sentences that total allows decoding out of the non-development ones.

    .venv/bin/python benchmarks/secrecy_budget.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluation import secrecy_budget as sb  # noqa: E402

SETTINGS = ("primary", "pooled", "rates", "full")


def shapes() -> list[sb.Shape]:
    paths = sorted((ROOT / "data" / "easy-ref" / "ref").glob("*.xml"))
    demo = sb.easy_shape(paths, test_ratio=0.9, dev_ratio=0.1, teams=5, name="EASY reference demo")
    return [demo, sb.scaled_shape(demo.words, sentences=40_000, test_ratio=0.1, dev_ratio=0.025, teams=16,
                                  name="40,000 sentences, 16 teams")]


def main() -> None:
    print(f"{'campaign':<30} {'setting':<8} {'bits/run':>8} {'runs':>4} {'total':>7} {'decodable':>17}  seconds")
    for shape in shapes():
        for name in SETTINGS:
            started = time.perf_counter()
            b = sb.budget(shape, name)
            print(f"{shape.name:<30} {name:<8} {b.bits_per_run:>8} {b.runs_per_team:>4} {b.total_bits:>7} "
                  f"{b.decodable:>6,} of {b.non_dev:>6,} {100 * b.share:5.1f} %  {time.perf_counter() - started:.1f}")


if __name__ == "__main__":
    main()
