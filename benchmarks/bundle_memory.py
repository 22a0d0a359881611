"""Memory of writing a publication bundle: every member held whole in memory, against members streamed.

    .venv/bin/python benchmarks/bundle_memory.py [--runs 11] [--run-mb 20] [--rows 100000]

The members are those of a campaign with ``--runs`` runs whose files are published: per run an
uploaded file of ``--run-mb`` MB (XML-like text, compressible as parser output is) and a rows table
of ``--rows`` sentences. Each side runs in a fresh process:

* whole: each run file read into bytes, each rows table made as bytes (``rows_tsv``), the archive
  written with every member held (as the bundle was built before it was streamed);
* streamed: run files as :class:`~parseval.evaluation.bundle_format.FileMember` (hashed, then copied in chunks),
  rows written to temporary files (``spooled``), the archive written to a file (``write_archive_to``).

Printed: the traced peak (tracemalloc, in a second process) and the growth of the resident set
(``ru_maxrss``) of each side, the time (untraced), their ratios, and whether both archives have the same SHA-256 (they must). Nothing is
asserted on the figures; the tests check the bytes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SIDE = textwrap.dedent('''
    import hashlib, io, json, resource, sys, time, tracemalloc
    from pathlib import Path
    import numpy as np
    from parseval.evaluation import bundle_format as fmt

    side, folder, runs, n_rows, trace = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
    rng = np.random.default_rng(7)
    keys = [f"doc_{i // 40:05d}/E{i % 40 + 1}" for i in range(n_rows)]
    strata = [("general", "mail", "oral", "questions")[i % 4] for i in range(n_rows)]
    tables = [rng.integers(0, 60, size=(n_rows, 24)).astype(np.float64) for _ in range(runs)]
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    members = {"bundle.json": b"{}\\n", "results.json": b"{}\\n"}
    for k in range(runs):
        run_file = folder / f"run{k}.xml"
        if side == "whole":
            members[f"runs/run-{k:05d}/run.xml"] = run_file.read_bytes()
            members[f"rows/run-{k:05d}.tsv"] = fmt.rows_tsv(keys, strata, tables[k])
        else:
            members[f"runs/run-{k:05d}/run.xml"] = fmt.file_member(lambda p=run_file: open(p, "rb"))
            members[f"rows/run-{k:05d}.tsv"] = fmt.spooled(
                folder / f"{side}-rows{k}.tsv", lambda out, t=tables[k]: fmt.write_rows_tsv(out, keys, strata, t))
    if side == "whole":
        data = fmt.write_archive(members)
        checksum, size = hashlib.sha256(data).hexdigest(), len(data)
    else:
        with open(folder / "streamed.zip", "wb") as out:
            fmt.write_archive_to(out, members)
        with open(folder / "streamed.zip", "rb") as fh:
            checksum, size = fmt.digest(fh)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base
    print(json.dumps({"peak": peak, "rss_kb": grown, "seconds": seconds, "sha256": checksum, "bytes": size}))
''')


def run_files(folder: Path, runs: int, megabytes: int) -> None:
    """Parser-output-like files: tags and words, different in each run."""
    import random

    for k in range(runs):
        rnd = random.Random(k)
        words = ["<F id=\"E%dF%d\">%s</F>" % (k, i, "".join(rnd.choice("abcdeéfghij") for _ in range(rnd.randint(1, 9))))
                 for i in range(5000)]
        with open(folder / f"run{k}.xml", "w", encoding="utf-8") as out:
            written = 0
            while written < megabytes * 1024 * 1024:
                line = " ".join(rnd.choice(words) for _ in range(200)) + "\n"
                out.write(line)
                written += len(line.encode("utf-8"))


def side(name: str, folder: Path, args) -> dict:
    """One side in a fresh process, twice: timed with its resident set, then traced (tracemalloc slows it)."""
    def once(trace: str) -> dict:
        out = subprocess.run([sys.executable, "-c", SIDE, name, str(folder), str(args.runs), str(args.rows), trace],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    timed = once("0")
    return {**timed, "peak": once("1")["peak"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--run-mb", type=int, default=20)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bundle-memory-") as tmp:
        folder = Path(tmp)
        run_files(folder, args.runs, args.run_mb)
        whole, streamed = side("whole", folder, args), side("streamed", folder, args)
    mb = 1024 * 1024
    print(f"{args.runs} runs of {args.run_mb} MB, {args.rows} rows each; archive {whole['bytes'] / mb:.1f} MB")
    for label, r in (("whole", whole), ("streamed", streamed)):
        print(f"  {label:9s} traced peak {r['peak'] / mb:9.1f} MB   rss growth {r['rss_kb'] / 1024:9.1f} MB   "
              f"{r['seconds']:7.1f} s")
    print(f"  ratio whole/streamed: traced peak {whole['peak'] / max(streamed['peak'], 1):.1f}x, "
          f"rss growth {whole['rss_kb'] / max(streamed['rss_kb'], 1):.1f}x, time {whole['seconds'] / streamed['seconds']:.2f}x")
    print(f"  same archive bytes: {whole['sha256'] == streamed['sha256']} ({streamed['sha256'][:16]})")


if __name__ == "__main__":
    main()
