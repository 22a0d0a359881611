"""PASSAGE scale: EASY scoring time, memory and throughput at N times the reference, and a projection.

For each ``--copies N`` it builds (see ``benchmarks/easy_corpus.py``) a corpus
of N times the EASY reference with full gold (the real files copied under new
names) and a realistic run (perturbed, written by lxml in another shape than
the project's writer), then measures, in the same run:

* the default command in a child process (``python -m evaluation easy --gold
  G --run R --json out.json``: all 20 ways, bootstrap 1000): CPU and wall
  seconds (``wait4``), its own peak RSS (``VmHWM``: see ``easy_corpus.own_peak_mb``), throughput in run
  words per CPU second;
* lxml ``iterparse`` over the same gold and run (every element; ``tag='E'``);
* with ``--identity``: the command's JSON document against the same scoring
  done in this process with every fast path off (lxml reads every sentence,
  the detailed parser builds it): identical bytes or not.

and, with ``--workers K...`` (default 1 2 4), the same run scored SHARDED over K
worker processes as the scoring workers do it (:mod:`parseval.evaluation.easy.shards`,
:mod:`evaluation.pipeline.sharding`): the corpus cut by documents into shards of about
``--shard-sentences`` sentences (default: the corpus over 4 K, so that K busy
processes balance), each process taking the next shard when it is free and
sending back its counts as bytes, the counts merged and the bootstrap computed
once in this process. A worker's peak RSS is its own ``VmHWM``: its
``ru_maxrss`` would be at least this process's peak at the time the pool
started (see ``easy_corpus.own_peak_mb``): workers were once reported at 347
MB at 24x, which was this process's peak after the K = 1 merge, not theirs. Timed from the first shard sent to the merged document
(the processes are started and their imports done before, as long-lived
workers' are), with each process's peak RSS; the merged document must be the
command's, byte for byte (canonical JSON). Speed-up is against K = 1 (the same
path in one process) and "of ideal" is ``(T1 / TK) / K``: the target is at
least 1 / 1.3 = 0.77. A machine with fewer cores than K cannot reach it, nor
one whose cores are busy with other work: the load average is printed.

It ends with a projection to 100 million words from the largest N, with its
assumptions; memory is fitted on the two largest N (give at least 24 and 48:
the bootstrap's capped buffers fill up until a genre has 16,000 sentences,
about 16x, so a fit from a smaller N counts that filling as growth).

A figure taken once varies by 10 % or more on a shared machine; ``--repeat N``
takes the lxml passes and the command N times in turn and prints the medians,
the ratios being the median of each round's own ratio. ``--instructions``
also counts the instructions each executes under valgrind's callgrind (the
command compiled, the command as plain Python with ``PARSEVAL_PURE_PYTHON=1``,
and the lxml every-element pass, each a whole process): the same counts
whatever else the machine does, so a change is seen below the noise of
seconds (about 4 minutes at 1x for the command). Instructions are not time
(libxml2's loops and the interpreter's do different work per cycle): the
ratio of seconds is what the target is measured in.

    .venv/bin/python benchmarks/passage_scale.py [--copies 1 12 24] [--workers 1 2 4] [--repeat N] [--instructions] [--identity] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.easy_corpus import REPO, build, lxml_pass, own_peak_mb, run_command  # noqa: E402

TARGET_WORDS = 100_000_000
ROW_BYTES = 672  # a sentence's count rows with the default options: int16, 240 count and 2 x 48 size columns


def all_lxml_result(gold: Path, run: Path) -> dict:
    """What the command computes, with every fast path of the reader off (the reference reading)."""
    from parseval.annotations.easy import reader
    from parseval.annotations.easy.reader import document_key, read_document
    from parseval.evaluation.easy.files import gold_sha256, list_xml
    from parseval.evaluation.easy.scoring import score_corpus

    real = reader._fast_path
    reader._fast_path = lambda schema: None
    try:
        gold_files = list_xml(gold)
        docs = [read_document(p, gold=True) for p in gold_files]
        runs = {document_key(p.name): p for p in list_xml(run)}
        return score_corpus(docs, runs, gold_sha256=gold_sha256(gold_files))
    finally:
        reader._fast_path = real


def _warm() -> None:
    import parseval.evaluation.easy.shards  # noqa: F401  (a long-lived worker has its imports done)


def _count_shard(job: tuple[list[str], list[str]]) -> tuple[bytes, float, float, int]:
    """In a worker process: one shard's counts (bytes), its CPU seconds, the process's peak RSS (MB) and id."""
    from parseval.evaluation.easy.shards import count_shard
    gold, run = job
    cpu = time.process_time()
    counts = count_shard([Path(p) for p in gold], {Path(p).stem: Path(p) for p in run}).to_bytes()
    return counts, time.process_time() - cpu, own_peak_mb(), os.getpid()


def sharded(gold: Path, run: Path, workers: int, per_shard: int) -> dict:
    """The run scored over ``workers`` processes in shards of about ``per_shard`` sentences, merged here."""
    from parseval.evaluation.easy.files import gold_sha256, list_xml
    from parseval.evaluation.easy.shards import ShardCounts, merge, split

    gold_files = list_xml(gold)
    sizes = [(str(p), p.read_bytes().count(b"<E ")) for p in gold_files]
    if per_shard <= 0:
        per_shard = math.ceil(sum(n for _, n in sizes) / (4 * workers))
    shards = split(sizes, per_shard)
    jobs = [(docs, [str(run / Path(d).name) for d in docs if (run / Path(d).name).exists()]) for docs in shards]
    with multiprocessing.get_context("spawn").Pool(workers, initializer=_warm) as pool:
        pool.map(time.sleep, [0.2] * workers, chunksize=1)  # every process started and warm
        t = time.perf_counter()
        parts, per_process, rss = [], {}, {}
        for counts, seconds, peak, pid in pool.imap(_count_shard, jobs, chunksize=1):  # in shard order
            parts.append(counts)
            per_process[pid] = per_process.get(pid, 0.0) + seconds
            rss[pid] = peak
        counted = time.perf_counter() - t
        merge_cpu = time.process_time()
        document = merge((ShardCounts.from_bytes(b) for b in parts), gold_sha256=gold_sha256(gold_files))
        merge_cpu = time.process_time() - merge_cpu
        wall = time.perf_counter() - t
    # The time the same work takes on K free cores: the busiest process's CPU, then the merge's (serial).
    critical = max(per_process.values()) + merge_cpu
    return {"workers": workers, "shards": len(shards), "per_shard": per_shard, "wall": wall,
            "merge": wall - counted, "merge_cpu": merge_cpu, "cpu": sum(per_process.values()) + merge_cpu,
            "critical": critical, "rss_mb": max(rss.values()), "rss_all": sorted(rss.values()), "document": document}


def load() -> str:
    return "load average %.2f %.2f %.2f on %d cores" % (*os.getloadavg(), os.cpu_count() or 0)


def _callgrind(argv: list[str], env: dict | None = None) -> int:
    """Instructions executed by the process ``argv`` (and its children), counted by callgrind."""
    import re
    import subprocess
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          cwd=REPO, capture_output=True, text=True, env={**os.environ, **(env or {})})
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def instruction_counts(gold: Path, run: Path, out: Path) -> dict:
    """Instructions of the default command (compiled modules, then plain Python) and of lxml's every-element
    pass over the same gold and run (see the module docstring)."""
    command = [sys.executable, "-m", "evaluation", "easy", "--gold", str(gold), "--run", str(run), "--json", str(out)]
    one_thread = {"OPENBLAS_NUM_THREADS": "1"}  # as a scoring worker runs (config/celery.py)
    lxml = [sys.executable, "-c", "import sys; from benchmarks.easy_corpus import lxml_pass; "
            "lxml_pass(sys.argv[1:], True)", str(gold), str(run)]
    return {"compiled": _callgrind(command, one_thread),
            "python": _callgrind(command, {**one_thread, "PARSEVAL_PURE_PYTHON": "1"}),
            "lxml": _callgrind(lxml)}


def measure(folder: Path, copies: int, identity: bool, workers=(), per_shard: int = 0, repeat: int = 1,
            instructions: bool = False) -> dict:
    if not (folder / "run").is_dir():
        t = time.perf_counter()
        s = build(folder, copies)
        print(f"[{copies}x] built {s['files']} files, {s['sentences']:,} sentences, {s['words']:,} words, "
              f"gold {s['gold_bytes'] / 1e6:.0f} MB, run {s['run_bytes'] / 1e6:.0f} MB in "
              f"{time.perf_counter() - t:.0f} s", flush=True)
        (folder / "stats.json").write_text(json.dumps(s))
    s = json.loads((folder / "stats.json").read_text())
    gold, run, out = folder / "gold", folder / "run", folder / "out.json"
    # the reference passes and the command in turn, ``repeat`` times: the medians, and the median of each
    # round's ratio (a round's figures share the machine's state of the moment)
    rounds = []
    for k in range(repeat):
        every = lxml_pass([gold, run], True)[1]
        tag_e = lxml_pass([gold, run], False)[1]
        print(f"[{copies}x] single, round {k + 1} of {repeat}: {load()}", flush=True)
        ours = run_command(["easy", "--gold", str(gold), "--run", str(run), "--json", str(out)])
        rounds.append((every, tag_e, ours))
    row = {"copies": copies, "words": s["words"], "sentences": s["sentences"], "rounds": repeat,
           "cpu": median(r["cpu"] for _, _, r in rounds), "wall": median(r["wall"] for _, _, r in rounds),
           "rss_mb": max(r["rss_mb"] for _, _, r in rounds),
           "every": median(e for e, _, _ in rounds), "tag_e": median(t for _, t, _ in rounds),
           "per_every": median(r["cpu"] / e for e, _, r in rounds),
           "per_tag_e": median(r["cpu"] / t for _, t, r in rounds), "identical": None, "sharded": []}
    single = json.dumps(json.loads(out.read_text()), sort_keys=True)
    row["instructions"] = instruction_counts(gold, run, out) if instructions else None
    for k in workers:
        print(f"[{copies}x] sharded over {k}: {load()}", flush=True)
        r = sharded(gold, run, k, per_shard)
        r["identical"] = json.dumps(json.loads(json.dumps(r.pop("document"))), sort_keys=True) == single
        r["load"] = os.getloadavg()[0]
        row["sharded"].append(r)
    if identity:
        ref = all_lxml_result(gold, run)
        row["identical"] = json.loads(out.read_text()) == json.loads(json.dumps(ref))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, nargs="+", default=[1, 12, 24], help="corpus sizes (default 1 12 24)")
    ap.add_argument("--identity", action="store_true",
                    help="also score with every fast path off and compare the documents (slow, holds the gold)")
    ap.add_argument("--keep", help="build the corpora under this folder and keep them (reused when present)")
    ap.add_argument("--workers", type=int, nargs="*", default=[1, 2, 4],
                    help="score sharded over K worker processes, for each K given (default 1 2 4; none: skip)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="time the lxml passes and the command this many times in turn; medians (default 1)")
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions under valgrind's callgrind (slow: about 4 minutes at 1x)")
    ap.add_argument("--shard-sentences", type=int, default=0,
                    help="sentences per shard (default: the corpus over 4 K)")
    args = ap.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="passage-scale-"))
    rows = []
    try:
        for n in args.copies:
            folder = base / f"c{n}"
            rows.append(measure(folder, n, args.identity, args.workers, args.shard_sentences, max(1, args.repeat),
                                 args.instructions))
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print("\ncommand: python -m evaluation easy --gold G --run R --json out.json (default options, bootstrap 1000); "
          "times are CPU seconds (wall in brackets); lxml = iterparse over gold + run; with --repeat, medians of "
          "the rounds and of each round's ratio, peak = the largest")
    print(f"{'N':>4} {'words':>11} {'command s':>15} {'peak MB':>8} {'words/s':>9} {'lxml every':>10} "
          f"{'tag=E':>7} {'/every':>7} {'/tag=E':>7} {'identical':>9}")
    for r in rows:
        ident = {None: "not run", True: "yes", False: "NO"}[r["identical"]]
        print(f"{r['copies']:>3}x {r['words']:>11,} {r['cpu']:>7.2f} [{r['wall']:>5.1f}] {r['rss_mb']:>8.0f} "
              f"{r['words'] / r['cpu']:>9,.0f} {r['every']:>10.2f} {r['tag_e']:>7.2f} {r['per_every']:>7.2f} "
              f"{r['per_tag_e']:>7.2f} {ident:>9}")
    if any(r["instructions"] for r in rows):
        print("\ninstructions (callgrind, whole processes; millions): the command with its compiled modules, as plain "
              "Python (PARSEVAL_PURE_PYTHON=1), lxml's every-element pass; ratios to lxml")
        print(f"{'N':>4} {'compiled':>10} {'python':>10} {'lxml every':>10} {'/every':>7} {'python /every':>13}")
        for r in rows:
            i = r["instructions"]
            if i:
                print(f"{r['copies']:>3}x {i['compiled'] / 1e6:>10,.0f} {i['python'] / 1e6:>10,.0f} "
                      f"{i['lxml'] / 1e6:>10,.0f} {i['compiled'] / i['lxml']:>7.2f} {i['python'] / i['lxml']:>13.2f}")
    if any(r["sharded"] for r in rows):
        print("\nsharded (parseval.evaluation.easy.shards): K worker processes take shards of documents as they come free; "
              "counts merged and the bootstrap (1000) computed once here; wall seconds from the first shard sent "
              "to the merged document; peak RSS = the largest worker process's; identical = the command's JSON "
              f"document, canonical bytes; {os.cpu_count()} cores")
        print("CPU path = the busiest worker's CPU seconds + the merge's (what K free cores would take; the wall "
              "time says what this machine gave under its load); speed-ups are against K = 1, 'of ideal' = "
              "speed-up / K (target >= 0.77, i.e. within 1.3x of ideal)")
        print(f"{'N':>4} {'K':>2} {'shards':>6} {'wall s':>7} {'merge s':>7} {'CPU s':>7} {'CPU path':>8} "
              f"{'merge CPU':>9} {'peak MB/proc':>16} {'words/s':>9} {'wall up':>7} {'of ideal':>8} {'CPU up':>6} "
              f"{'of ideal':>8} {'load':>5} {'identical':>9}")
        for r in rows:
            base = next((x for x in r["sharded"] if x["workers"] == 1), None)
            for x in r["sharded"]:
                up = base["wall"] / x["wall"] if base else float("nan")
                cup = base["critical"] / x["critical"] if base else float("nan")
                peaks = "/".join(f"{m:.0f}" for m in x["rss_all"])
                print(f"{r['copies']:>3}x {x['workers']:>2} {x['shards']:>6} {x['wall']:>7.2f} {x['merge']:>7.2f} "
                      f"{x['cpu']:>7.2f} {x['critical']:>8.2f} {x['merge_cpu']:>9.2f} {peaks:>16} "
                      f"{r['words'] / x['wall']:>9,.0f} {up:>7.2f} {up / x['workers']:>8.2f} {cup:>6.2f} "
                      f"{cup / x['workers']:>8.2f} {x['load']:>5.1f} {'yes' if x['identical'] else 'NO':>9}")
    big = max(rows, key=lambda r: r["words"])
    rate = big["words"] / big["cpu"]
    hours = TARGET_WORDS / rate / 3600
    print(f"\nprojection to {TARGET_WORDS:,} words (x{TARGET_WORDS / big['words']:,.0f} the {big['copies']}x corpus):")
    print(f"  time: {hours:.1f} CPU hours for one run on one process at {rate:,.0f} words/s "
          f"(assumes: time linear in words, as measured; every sentence with gold; bootstrap 1000; "
          f"the run as realistic as this one; local disk)")
    for x in big["sharded"]:
        print(f"  sharded over {x['workers']} free cores: {TARGET_WORDS / (big['words'] / x['critical']) / 3600:.1f} "
              f"hours (the CPU path measured at {big['copies']}x, scaled linearly; the merge is serial: "
              f"{x['merge_cpu'] / x['critical']:.0%} of it there)")
    from parseval.evaluation import stats
    sentences = TARGET_WORDS / big["words"] * big["sentences"]
    if len(rows) > 1:
        # the count rows are on disk and the bootstrap's buffers are capped: past the size where the buffers
        # are full (a genre of 16,000 sentences: the largest has 1,054 at 1x, so about 16x) what grows is small;
        # fit on the two largest sizes
        small = sorted(rows, key=lambda r: r["words"])[-2]
        slope = (big["rss_mb"] - small["rss_mb"]) / max(1, big["words"] - small["words"])
        mem = big["rss_mb"] + max(0.0, slope) * (TARGET_WORDS - big["words"])
        print(f"  memory: {mem:,.0f} MB peak (linear fit of peak RSS between the two largest sizes, "
              f"{small['copies']}x and {big['copies']}x: {slope * 1e6:,.1f} MB per million words"
              + ("; below 16x the bootstrap's buffers are still filling up, so this overstates the growth: "
                 "give --copies 24 48" if small["copies"] < 16 else "") + ")")
    else:
        print("  memory: give two sizes (--copies 24 48) to fit its growth")
    weights_mb, draws_mb = stats.WEIGHT_BUDGET * 4 / 1e6, stats.RESAMPLE_BUDGET * 8 / 1e6
    print(f"  memory model: the count rows go to a temporary file ({ROW_BYTES} bytes a sentence: "
          f"{sentences * ROW_BYTES / 1e9:,.1f} GB of TMPDIR for {sentences:,.0f} sentences), read back in blocks; "
          f"the bootstrap holds at most {weights_mb:.0f} MB of resample weights and {draws_mb:.0f} MB of draws; "
          f"what still grows is a few hundred bytes a document (its entry in the result, its name; of the warnings "
          f"only the 1,000 the result shows are kept, and a count) and 16 bytes a sentence of the largest genre "
          f"(one resample's draws and counts); a shard worker holds one document's gold and run at a time, then "
          f"its shard's rows once, as the bytes it sends (672 bytes a sentence)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
