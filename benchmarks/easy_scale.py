"""EASY scoring at campaign scale: the default command against a bare lxml pass, on a realistic run.

Builds, in a temporary folder, ``--copies`` times the reference corpus with
full gold and a run written by a third-party writer (lxml, another attribute
order, another XLink prefix, single quotes in every other file; see
``benchmarks/easy_corpus.py``). Then, interleaved and repeated, it times

* the default command, exactly as a user types it, in a child process:
  ``python -m evaluation easy --gold G --run R --json out.json`` (default
  options: all 20 ways, bootstrap 1000), with its peak RSS (``wait4``);
* a bare ``lxml.etree.iterparse`` over the same gold and run, each sentence
  cleared: with iterparse's default events (every element reaches Python)
  and with a ``tag='E'`` filter (the cheapest possible walk);

and prints the times (CPU, robust to load on the shared machine, and wall),
the ratios and the peak RSS. Nothing is asserted.

    .venv/bin/python benchmarks/easy_scale.py [--copies 12] [--repeat 1] [--keep DIR]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.easy_corpus import build, lxml_pass, run_command  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=12, help="copies of the reference corpus (default 12)")
    ap.add_argument("--repeat", type=int, default=1, help="time each side this many times, keep the best")
    ap.add_argument("--keep", help="build the corpus in this folder and keep it (reused when present)")
    args = ap.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="easy-scale-"))
    try:
        if not (folder / "run").is_dir():
            t = time.perf_counter()
            s = build(folder, args.copies)
            print(f"built {s['files']} files, {s['sentences']:,} sentences (all with gold), {s['words']:,} words; "
                  f"gold {s['gold_bytes'] / 1e6:.1f} MB, run {s['run_bytes'] / 1e6:.1f} MB "
                  f"in {time.perf_counter() - t:.1f} s")
        gold, run, out = folder / "gold", folder / "run", folder / "out.json"
        command = ["easy", "--gold", str(gold), "--run", str(run), "--json", str(out)]
        every, tag_e, ours = [], [], []
        for _ in range(args.repeat):  # interleaved, so that a change in load hits every side alike
            every.append(lxml_pass([gold, run], True))
            tag_e.append(lxml_pass([gold, run], False))
            ours.append(run_command(command))
        print("command: python -m evaluation " + " ".join(command).replace(str(folder), "DIR"))
        for label, k in (("CPU", 1), ("wall", 0)):
            pa = min(x[k] for x in every)
            pe = min(x[k] for x in tag_e)
            sc = min(x["cpu" if k else "wall"] for x in ours)
            print(f"[{label} s, best of {args.repeat}] default command {sc:.2f}; lxml iterparse over gold + run: "
                  f"every element {pa:.2f}, tag='E' {pe:.2f}; ratio {sc / pa:.2f} (vs every element), "
                  f"{sc / pe:.2f} (vs tag='E')")
        print(f"peak RSS of the command: {max(x['rss_mb'] for x in ours):.0f} MB")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
