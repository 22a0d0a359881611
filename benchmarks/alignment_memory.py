"""Memory of the CoNLL 2018 word alignment on a run that chains multiword regions across a document.

    .venv/bin/python benchmarks/alignment_memory.py [--tokens 2000] [--no-reference]

The run is the one of issue 19's finding 5: the gold writes every token as
*du* = *de le*, the run cuts *ud* = *le de* across every pair of them, so the
whole document is one multiword region of 2 × tokens words a side. Each
side is scored in a fresh process (``score_conll18`` on the two files, as a
worker does): our walk (``parseval.evaluation.deps.alignment``), then the reference
point, the shared task's walk over the whole gold × run table, patched in
for the same run. Printed: the run's size, the traced peak of the alignment
(tracemalloc), the growth of the resident set while scoring
(``ru_maxrss``), the time, and the ratio of the peaks. Both must give the
same aligned words. No figure is asserted here; the test
``tests/deps/test_alignment.py`` checks the ceiling.
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


def chained_regions(n_tokens: int, per_sentence: int = 20) -> tuple[str, str]:
    """Gold "du" = de le everywhere; the run cuts "ud" = le de across every pair of them.

    Each run multiword token starts inside a gold one and ends inside the next,
    so the whole document is one multiword region: the table of the shared
    task's walk has (2 n_tokens)^2 cells.
    """
    def sentence(name, tokens):
        lines, w = [f"# sent_id = {name}"], 1
        for form, parts in tokens:
            if parts:
                lines.append(f"{w}-{w + 1}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_")
            for part in parts or [form]:
                head, rel = (0, "root") if w == 1 else (1, "dep")
                lines.append(f"{w}\t{part}\t{part}\tX\t_\t_\t{head}\t{rel}\t_\t_")
                w += 1
        return "\n".join(lines) + "\n\n"

    def document(prefix, tokens):
        return "".join(sentence(f"{prefix}{k}", tokens[k:k + per_sentence])
                       for k in range(0, len(tokens), per_sentence))

    gold_tokens = [("du", ["de", "le"])] * n_tokens
    run_tokens = [("d", None)] + [("ud", ["le", "de"])] * (n_tokens - 1) + [("u", None)]
    return document("g", gold_tokens), document("r", run_tokens)


def table_walk(a: list[str], b: list[str], a0: int = 0, b0: int = 0) -> list[tuple[int, int]]:
    """The shared task's own walk over the whole table (memory: gold words × run words): the reference."""
    n, m = len(a), len(b)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for x in range(n - 1, -1, -1):
        row, below = best[x], best[x + 1]
        for y in range(m - 1, -1, -1):
            row[y] = below[y + 1] + 1 if a[x] == b[y] else max(below[y], row[y + 1])
    pairs, x, y = [], 0, 0
    while x < n and y < m:
        if a[x] == b[y]:
            pairs.append((a0 + x, b0 + y))
            x, y = x + 1, y + 1
        elif best[x][y] == best[x + 1][y]:
            x += 1
        else:
            y += 1
    return pairs


MEASURE = textwrap.dedent("""
    import json, resource, sys, time, tracemalloc
    from parseval.evaluation.deps import alignment
    from parseval.evaluation.deps.conll18 import score_conll18
    from parseval.evaluation.deps.conll18_reader import read_conll18
    if sys.argv[3] == "reference":
        from benchmarks.alignment_memory import table_walk
        alignment._lcs_pairs = table_walk
    gold, run = read_conll18(sys.argv[1]), read_conll18(sys.argv[2])
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    tracemalloc.start()
    pairs = alignment.align_words(gold.words, run.words)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rows = score_conll18(gold, run)["rows"]
    print(json.dumps({"peak": peak, "grown_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss,
                      "seconds": time.process_time() - started, "pairs": len(pairs),
                      "words": [len(gold.words), len(run.words)], "aligned": rows["Words"]["correct"]}))
""")


def measure(gold: Path, run: Path, side: str) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, str(gold), str(run), side], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=2000, help="gold multiword tokens (2 words each)")
    parser.add_argument("--no-reference", action="store_true", help="skip the table walk (quadratic memory)")
    args = parser.parse_args(argv)
    gold_text, run_text = chained_regions(args.tokens)
    with tempfile.TemporaryDirectory() as tmp:
        gold, run = Path(tmp) / "gold.conllu", Path(tmp) / "run.conllu"
        gold.write_text(gold_text, encoding="utf-8")
        run.write_text(run_text, encoding="utf-8")
        print(f"run: {len(run_text.encode()) / 1024:.0f} KB, one multiword region of {2 * args.tokens} gold "
              f"and {2 * args.tokens} run words")
        sides = ["ours"] + ([] if args.no_reference else ["reference"])
        seen = {side: measure(gold, run, side) for side in sides}
    for side, s in seen.items():
        label = "ours (bit columns, checkpoints)" if side == "ours" else "reference (whole table)"
        print(f"{label:32}: alignment peak {s['peak'] / 2**20:8.1f} MiB traced, resident set +{s['grown_kb'] / 1024:7.1f}"
              f" MiB while scoring, {s['seconds']:6.1f} s CPU, {s['aligned']} words aligned")
    if "reference" in seen:
        same = seen["ours"]["aligned"] == seen["reference"]["aligned"]
        print(f"reference / ours, traced peak: {seen['reference']['peak'] / seen['ours']['peak']:.0f}; "
              f"aligned words {'identical' if same else 'DIFFERENT'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
