"""Speed and memory of the constituency metrics against C evalb and the Python peers a user could install.

    .venv/bin/python benchmarks/trees_speed.py [--sentences 40000] [--evalb PATH] [--no-peers | --evalb-only]

Data: the Penn Treebank sample in ../shared/data/ptb-sample (3,914 trees),
repeated until there are at least ``--sentences`` sentence pairs (43,054 for the
default). The gold side is the treebank, one tree per line (evalb's layout),
written by this project. The test side is what a parser would return, written
the way the Berkeley parser writes it (``( (S ...) )``: an outer unlabelled pair,
a space before its closing bracket) by a writer of this script's own: a
deterministic corruption of the gold (phrasal nodes removed, relabelled or
shifted by one word, so that brackets cross; some POS tags changed; the words
kept) with one parse failure (an empty line) in 500.

Timed, each end to end from the text of the two files (reading included):

* C evalb (Sekine & Collins' evalb.c, the reference), when its binary is given
  by ``--evalb PATH`` or the ``EVALB`` environment variable: CPU seconds of the
  process (``wait4``), with COLLINS.prm (data/evalb-sample/); build it from the
  EVALB folder of any distribution (e.g. the public repository
  nikitakit/self-attentive-parser, ``EVALB/``): ``gcc -O2 -o evalb evalb.c``;
* ours, ``python -m evaluation trees --metric evalb --param COLLINS.prm`` as a
  process (interpreter start-up included, as C evalb's is), detected layout and
  ``--layout lines --format penn``; its report is compared byte for byte with C
  evalb's; then, in this process, ``parseval.evaluation.trees.evalb_files`` (the stream
  the command runs), ``score_files`` (the whole JSON document in memory) and the
  same through ``Tree`` objects;
* PYEVALB (PyPI ``PYEVALB``), ``Scorer.score_corpus`` + ``summary.summary``;
* disco-dop: its PyPI release (0.5.2, 2017) does not build on Python 3.11,
  so it cannot be installed here and is reported as not run;
* ours, leaf-ancestor (``sampson2003`` and ``strict`` costs) on the same pairs.

Memory: ``python -m evaluation trees --metric evalb`` runs as a child process on
a quarter of the pairs and on all of them; its peak resident set size is
printed for both, so that a flat figure shows the stream holds nothing per
sentence.

Times are CPU seconds (``time.process_time`` in this process, ``wait4`` for a
child), so that a busy shared machine distorts the ratios less; wall-clock
times are shown in brackets, and the load average at the start and the end.
No figures are asserted anywhere; the script prints times and ratios.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from parseval.annotations.trees.penn import parse_penn_lines, read_penn  # noqa: E402
from parseval.annotations.trees.tree import Tree  # noqa: E402
from parseval.evaluation.trees import score_files, score_trees  # noqa: E402
from parseval.evaluation.trees.evalb import COLLINS, score_evalb  # noqa: E402
from parseval.evaluation.trees.evalb_files import evalb_files  # noqa: E402

# The Penn Treebank sample is not free, so it is not in data/: it is read from the shared folder.
PTB = Path(os.environ.get("PARSEVAL_SHARED", REPO.parent / "shared")).resolve() / "data" / "ptb-sample"


def corrupt(tree: Tree, rng: random.Random, shift: bool = False) -> Tree:
    """A copy with some phrasal nodes removed or relabelled and some tags changed (same words); with
    ``shift``, some brackets also moved by one word (crossing brackets)."""

    def walk(node: Tree, root: bool) -> list[Tree]:
        if node.is_word:
            return [Tree.leaf(node.word)]
        if node.is_preterminal:
            tag = node.label
            if tag not in COLLINS.delete_labels and rng.random() < 0.05:  # keep punctuation deletable
                tag = "NN" if tag != "NN" else "JJ"
            return [Tree(tag, [Tree.leaf(node.children[0].word)])]
        kids = [k for c in node.children for k in walk(c, False)]
        if not root and rng.random() < 0.12:
            return kids
        label = node.label
        if not root and rng.random() < 0.08:
            label = "XP"
        if shift and len(kids) > 1 and rng.random() < 0.1:
            # (X a b) c -> a (X b c): the shifted bracket crosses the gold one
            k = rng.randrange(len(kids) - 1)
            first = kids[k]
            if not first.is_word and not first.is_preterminal and len(first.children) > 1:
                kids = kids[:k] + [first.children[0], Tree(first.label, first.children[1:] + [kids[k + 1]])] + kids[k + 2:]
        return [Tree(label, kids)]

    return walk(tree, True)[0]


def berkeley_line(tree: Tree) -> str:
    """A tree on one line as the Berkeley parser writes it, ``( (S ...) )``, by a writer of this script's own."""

    def write(node: Tree) -> str:
        if node.is_preterminal:
            return f"({node.label} {node.children[0].word})"
        return f"({node.label} " + " ".join(write(c) for c in node.children) + ")"

    return "( " + write(tree) + " )"


def child_cpu(cmd: list[str], out_path: str) -> tuple[float, float, int]:
    """CPU seconds (user + system, ``wait4``), wall seconds and exit status of a command; stdout to a file."""
    wall = time.perf_counter()
    with open(out_path, "wb") as out, open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - wall, os.waitstatus_to_exitcode(status)


def timed(fn):
    """CPU time of the call (the figure used for ratios: the machine may be shared) and its result."""
    wall = time.perf_counter()
    start = time.process_time()
    result = fn()
    cpu = time.process_time() - start
    WALL.append(time.perf_counter() - wall)
    return cpu, result


WALL: list[float] = []


_CHILD = """
import runpy, sys
out = sys.argv.pop(1)
try:
    runpy.run_module("evaluation", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
with open("/proc/self/status") as status, open(out, "w") as handle:
    handle.write(next(line for line in status if line.startswith("VmHWM:")).split()[1])
"""


def peak_rss(gold: str, test: str) -> tuple[float, float]:
    """Peak RSS (kB) and CPU seconds of ``python -m evaluation trees --metric evalb`` on two files.

    The peak is the child's own ``VmHWM`` read at its end: ``wait4``'s ``ru_maxrss``
    would include the pages of this (large) process copied at fork time.
    """
    with tempfile.NamedTemporaryFile("r") as hwm, open(os.devnull, "wb") as null:
        cmd = [sys.executable, "-c", _CHILD, hwm.name, "trees", "--metric", "evalb", "--gold", gold, "--test", test]
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=null, stderr=null)
        _, _, usage = os.wait4(proc.pid, 0)
        return float(hwm.read() or "nan"), usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=40_000)
    ap.add_argument("--no-peers", action="store_true", help="time only our metrics")
    ap.add_argument("--evalb-only", action="store_true",
                    help="only the evalb preset against C evalb (no peers, no in-memory paths, no leaf-ancestor)")
    ap.add_argument("--evalb", default=os.environ.get("EVALB"),
                    help="C evalb's binary (default: $EVALB; see the module doc for how to build it)")
    args = ap.parse_args()
    load_start = os.getloadavg()

    paths = sorted(PTB.glob("*.mrg"))
    if not paths:
        sys.exit(f"trees_speed: needs the Penn Treebank sample (wsj_*.mrg, not shipped: LDC licence) in {PTB}; "
                 "set PARSEVAL_SHARED to the folder holding data/ptb-sample")
    base = [t for p in paths for t in read_penn(p)]
    rng = random.Random(20261122)
    copies = -(-args.sentences // len(base))
    gold = base * copies
    test = [corrupt(t, rng, shift=True) for t in gold]
    gold_text = "".join(t.to_penn() + "\n" for t in gold)
    test_text = "".join("\n" if rng.random() < 0.002 else berkeley_line(t) + "\n" for t in test)
    n = len(gold)
    print(f"data: {len(base)} PTB sample trees x {copies} = {n} sentence pairs, "
          f"{sum(len(t.words()) for t in base) * copies} words")
    print(f"python {sys.version.split()[0]}; times in CPU seconds [wall-clock seconds]")
    print()

    tmp = tempfile.TemporaryDirectory()
    gold_path, test_path = os.path.join(tmp.name, "gold"), os.path.join(tmp.name, "test")
    for path, text in ((gold_path, gold_text), (test_path, test_text)):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

    prm = str(REPO / "data" / "evalb-sample" / "COLLINS.prm")
    command = [sys.executable, "-m", "evaluation", "trees", "--metric", "evalb", "--param", prm,
               "--gold", gold_path, "--test", test_path]
    ours_out, c_out = os.path.join(tmp.name, "ours.rsl"), os.path.join(tmp.name, "c.rsl")
    c_cpu = None
    if args.evalb:
        c_cpu, c_wall, c_code = child_cpu([args.evalb, "-p", prm, gold_path, test_path], c_out)
        print(f"C evalb (evalb.c, -O2 build given), COLLINS.prm  {c_cpu:6.2f} s [{c_wall:.2f}]  "
              f"({n / c_cpu:,.0f} sentences/s)  exit {c_code}")
    else:
        print("C evalb                            not run: give its binary with --evalb PATH or EVALB=PATH")
    cmd_cpu, cmd_wall, cmd_code = child_cpu(command, ours_out)
    print(f"ours  python -m evaluation trees --metric evalb  {cmd_cpu:6.2f} s [{cmd_wall:.2f}]  "
          f"({n / cmd_cpu:,.0f} sentences/s)  exit {cmd_code}  (process: start-up, layout guess and check included)")
    lines_cpu, lines_wall, _ = child_cpu(command + ["--layout", "lines", "--format", "penn"], ours_out + ".2")
    print(f"      same with --layout lines --format penn     {lines_cpu:6.2f} s [{lines_wall:.2f}]")
    with open(ours_out, "rb") as a, open(ours_out + ".2", "rb") as b:
        ours_report = a.read()
        assert ours_report == b.read()
    if c_cpu is not None:
        with open(c_out, "rb") as handle:
            same = handle.read() == ours_report
        print(f"      report identical to C evalb's, byte for byte: {'yes' if same else 'NO'}")
        print(f"ratio ours / C evalb CPU = {cmd_cpu / c_cpu:.2f} (target: at most 2); "
              f"with --layout lines --format penn: {lines_cpu / c_cpu:.2f}")
    print()
    if args.evalb_only:
        print(f"load average at the start {load_start[0]:.2f}, at the end {os.getloadavg()[0]:.2f} "
              f"({os.cpu_count()} processors)")
        return 0

    def ours_evalb():  # what the command line does: stream both files, format every report line
        return evalb_files(gold_path, test_path, COLLINS, report=lambda text: None)

    def ours_evalb_trees():  # through Tree objects (what a caller with trees in memory pays to read them)
        g = parse_penn_lines(gold_text, file="gold")
        t = parse_penn_lines(test_text, file="test")
        return score_evalb(g, t, COLLINS)

    t_ours, summary = timed(ours_evalb)
    w_ours = WALL[-1]
    t_doc, doc = timed(lambda: score_files(gold_path, test_path, "evalb"))
    w_doc = WALL[-1]
    t_trees, doc_trees = timed(ours_evalb_trees)
    w_trees = WALL[-1]
    assert doc_trees["summary"] == doc["summary"] == summary
    a = summary["all"]
    print(f"ours  evalb preset (COLLINS.prm)   {t_ours:8.2f} s [{w_ours:.2f}]  ({n / t_ours:,.0f} sentences/s)"
          f"  F={100 * a['f']:.2f} errors={a['errors']}  (streamed, as the command line)")
    print(f"      score_files, whole document  {t_doc:8.2f} s [{w_doc:.2f}]")
    print(f"      same, reading into Tree objects {t_trees:5.2f} s [{w_trees:.2f}]")
    quarter = os.path.join(tmp.name, "q")
    os.mkdir(quarter)
    for name, text in (("gold", gold_text), ("test", test_text)):
        lines = text.splitlines(keepends=True)
        with open(os.path.join(quarter, name), "w", encoding="utf-8") as handle:
            handle.writelines(lines[: len(lines) // 4])
    for label, g, t, pairs in (("a quarter", os.path.join(quarter, "gold"), os.path.join(quarter, "test"), n // 4),
                               ("all", gold_path, test_path, n)):
        rss, cpu = peak_rss(g, t)
        print(f"      command line on {label} ({pairs} pairs): peak RSS {rss / 1024:.1f} MB, CPU {cpu:.2f} s")
    rows = [("ours evalb", t_ours)]
    if not args.no_peers:
        try:
            from PYEVALB import scorer as pyevalb_scorer
            from PYEVALB import summary as pyevalb_summary
        except ImportError:
            print("PYEVALB                            not installed (pip install PYEVALB)")
        else:
            def peer():
                with contextlib.redirect_stdout(io.StringIO()):
                    results = pyevalb_scorer.Scorer().score_corpus(gold_text.splitlines(), test_text.splitlines())
                    return pyevalb_summary.summary(results)

            t_peer, summ = timed(peer)
            rows.append(("PYEVALB", t_peer))
            print(f"PYEVALB 0.1.3 score_corpus         {t_peer:8.2f} s [{WALL[-1]:.2f}]  ({n / t_peer:,.0f} sentences/s)"
                  f"  [no DELETE_LABEL/EQ_LABEL: different figures by design]")
        try:
            import discodop  # noqa: F401
        except ImportError:
            print("disco-dop                          not run: its PyPI release (0.5.2) does not build on "
                  f"Python {sys.version_info.major}.{sys.version_info.minor}")
    print()
    test_text = "".join(t.to_penn() + "\n" for t in test)  # leaf-ancestor pairs every sentence: no failure line
    t_la, la = timed(lambda: score_trees(parse_penn_lines(gold_text), parse_penn_lines(test_text),
                                         "leaf-ancestor", costs="sampson2003"))
    t_la_strict, la_s = timed(lambda: score_trees(parse_penn_lines(gold_text), parse_penn_lines(test_text),
                                                  "leaf-ancestor", costs="strict"))
    print(f"ours  leaf-ancestor (sampson2003)  {t_la:8.2f} s [{WALL[-2]:.2f}]  ({n / t_la:,.0f} sentences/s)  "
          f"word mean={la['summary']['word_mean']:.4f}")
    print(f"ours  leaf-ancestor (strict)       {t_la_strict:8.2f} s [{WALL[-1]:.2f}]  ({n / t_la_strict:,.0f} sentences/s)  "
          f"word mean={la_s['summary']['word_mean']:.4f}")
    print()
    for name, secs in rows[1:]:
        ratio = secs / t_ours
        verdict = "faster" if ratio > 1 else "SLOWER"
        print(f"ratio {name} CPU / ours evalb CPU = {ratio:.2f}  (ours is {verdict}; target: at least 10)")
    print(f"ratio leaf-ancestor sampson2003 / ours evalb = {t_la / t_ours:.2f}")
    print(f"load average at the start {load_start[0]:.2f}, at the end {os.getloadavg()[0]:.2f} "
          f"({os.cpu_count()} processors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
