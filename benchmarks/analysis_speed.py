"""The EASY bucket analysis at scale: time and peak memory beside the scoring's, in the same run.

Builds the corpus of ``benchmarks/passage_scale.py`` (``benchmarks/easy_corpus.build``: N times the EASY
reference, full gold, a perturbed run written by another writer; 12x = 43,020 sentences by default) and
runs, each in a child process (its CPU seconds from ``wait4`` and its own peak RSS, ``VmHWM``):

* the default ``easy`` command (``python -m evaluation easy --gold G --run R --json out.json``: 20 ways,
  bootstrap 1000): the scoring, the reference;
* the analysis as a worker computes it once per run: ``python -m evaluation analyse --kind easy --gold G --run
  R --bootstrap 1000 --confusions --json out.json`` (every EASY attribute, the confusion tables, the
  document with its sentence lists written);
* with ``--pairwise``, the same with ``--against`` a second run (both runs counted, every bucket tested with
  1,000 resamples).

It prints each one's CPU and wall seconds and peak RSS, the ratio of the analysis to the scoring, the JSON
document's size, and the load average (other work on the machine slows both).

    .venv/bin/python benchmarks/analysis_speed.py [--copies 12] [--pairwise] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.easy_corpus import build, run_command  # noqa: E402


def second_run(folder: Path, copies: int) -> Path:
    """Another perturbed run of the same gold (another seed), for ``--against``."""
    other = folder / "other"
    build(other, copies, seed=11)
    shutil.rmtree(other / "gold")
    return other / "run"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=12, help="times the EASY reference (default 12)")
    parser.add_argument("--pairwise", action="store_true", help="also time the analysis with --against")
    parser.add_argument("--keep", metavar="DIR", help="build (or reuse) the corpus here and keep it")
    args = parser.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="analysis-speed-"))
    try:
        if not (folder / "gold").is_dir():
            counts = build(folder, args.copies)
            print(f"corpus: {args.copies}x the reference, {counts['sentences']:,} sentences, {counts['words']:,} words")
        gold, run = folder / "gold", folder / "run"
        out = folder / "out"
        out.mkdir(exist_ok=True)
        rows = [("easy (scoring, 20 ways, bootstrap 1000)",
                 run_command(["easy", "--gold", str(gold), "--run", str(run), "--json", str(out / "score.json")]), None)]
        analysis = out / "analysis.json"
        rows.append(("analyse (7 attributes, bootstrap 1000, confusions)",
                     run_command(["analyse", "--kind", "easy", "--gold", str(gold), "--run", str(run), "--bootstrap",
                                  "1000", "--confusions", "--json", str(analysis)]), analysis))
        if args.pairwise:
            other = second_run(folder, args.copies) if not (folder / "other" / "run").is_dir() else folder / "other" / "run"
            pairs = out / "pairs.json"
            rows.append(("analyse --against (2 runs, every bucket tested)",
                         run_command(["analyse", "--kind", "easy", "--gold", str(gold), "--run", str(run), "--against",
                                      str(other), "--bootstrap", "1000", "--json", str(pairs)]), pairs))
        scoring = rows[0][1]
        print(f"{'':<52}{'CPU s':>8}{'wall s':>8}{'peak MB':>9}{'x scoring':>11}{'JSON MB':>9}")
        for name, r, doc in rows:
            size = f"{doc.stat().st_size / 1e6:>9.1f}" if doc is not None else f"{'':>9}"
            print(f"{name:<52}{r['cpu']:>8.1f}{r['wall']:>8.1f}{r['rss_mb']:>9.0f}{r['cpu'] / scoring['cpu']:>11.2f}{size}")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
        within = all(r["rss_mb"] <= scoring["rss_mb"] for _, r, _ in rows[1:2])
        print(f"the analysis's peak memory is {'within' if within else 'ABOVE'} the scoring's")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
