"""Speed of ``deps --preset conll18`` against the CoNLL 2018 shared task's own scorer.

    CONLL18_UD_EVAL=/path/to/conll18_ud_eval.py .venv/bin/python benchmarks/deps_speed.py \\
        [--sentences 20000] [--repeat 3] [--gold G --test T]

Data (unless ``--gold``/``--test`` name two files): the UD French Sequoia
train, dev and test files of data/ud-french, concatenated and
repeated until there are at least ``--sentences`` sentences. The system side
is a deterministic damage of the gold side that keeps its text: some heads
moved to the sentence's root, some relations, UPOS, features and lemmas
changed, some pairs of neighbouring tokens merged into one word and some
multiword tokens (*du* = *de le*) written as one word, so that the character
alignment and every row have real work to do.

Both programs run as separate processes on the same two files, end to end
(interpreter start, reading, alignment, table), ``--repeat`` times each; the
figure is the best CPU time (user + system of the child process, so a busy
shared machine distorts it less; wall-clock in brackets). The script's path
comes from the environment variable ``CONLL18_UD_EVAL`` (the scorer is not
part of this project); without it only our sentences per second are
reported. The two tables are also compared: the script says whether they
are identical. No figure is asserted anywhere.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data" / "ud-french"  # shipped with the repository
SOURCES = ["fr_sequoia-ud-train.conllu", "fr_sequoia-ud-dev.conllu", "fr_sequoia-ud-test.conllu"]


def sentences_of(text: str) -> list[list[str]]:
    """Blocks of lines (comments included) separated by empty lines."""
    return [block.split("\n") for block in text.strip("\n").split("\n\n") if block.strip()]


def damage(block: list[str], rng: random.Random) -> list[str]:
    """The same text with another analysis and, here and there, another tokenisation."""
    comments = [line for line in block if line.startswith("#")]
    rows = [line.split("\t") for line in block if not line.startswith("#")]
    words = [r for r in rows if r[0].isdigit()]
    root = next(r[0] for r in words if r[6] == "0")
    out_tokens: list[list[list[str]]] = []  # each token: its words' columns ([0] may be a range row)
    i = 0
    while i < len(rows):
        r = rows[i]
        if "." in r[0]:
            i += 1
            continue
        if "-" in r[0]:
            first, last = (int(x) for x in r[0].split("-"))
            group = [r] + rows[i + 1:i + 2 + last - first]
            i += 2 + last - first
            if rng.random() < 0.3:  # the contraction written as one word, analysed as its first
                word = list(group[1])
                word[1] = r[1]
                group = [word]
            out_tokens.append(group)
            continue
        out_tokens.append([list(r)])
        i += 1
    merged: list[list[list[str]]] = []
    for tok in out_tokens:
        if (merged and len(tok) == 1 and len(merged[-1]) == 1 and rng.random() < 0.04):
            merged[-1][0][1] += tok[0][1]  # two plain words become one; the second's analysis is lost
            continue
        merged.append(tok)
    # renumber: old word id -> new word id (a lost word's dependents go to the root)
    new_id: dict[str, int] = {}
    n = 0
    for tok in merged:
        for w in tok:
            if "-" not in w[0]:
                n += 1
                new_id[w[0]] = n
    lines = list(comments)
    n = 0
    new_root = new_id.get(root)
    for tok in merged:
        if "-" in tok[0][0]:
            lines.append("\t".join([f"{n + 1}-{n + len(tok) - 1}"] + tok[0][1:]))
            tok = tok[1:]
        for w in tok:
            n += 1
            w = list(w)
            old = w[0]
            w[0] = str(n)
            head = w[6]
            if old == root:
                w[6] = "0"
            elif new_root is None:
                w[6] = "0" if n == 1 else "1"
            else:
                target = new_id.get(head, new_root) if head != "0" else new_root
                if target == n or rng.random() < 0.08:
                    target = new_root
                w[6] = str(target)
            if w[6] == "0":
                w[7] = "root"
            elif rng.random() < 0.06:
                w[7] = rng.choice(["nmod", "obl", "obj", "det", "case", "advmod", "nsubj:pass"])
            if rng.random() < 0.04:
                w[3] = rng.choice(["NOUN", "VERB", "ADJ", "PROPN"])
            if rng.random() < 0.04:
                w[5] = "_"
            if rng.random() < 0.03:
                w[2] = w[1].lower()
            lines.append("\t".join(w))
    if new_root is None:  # the root was merged away: the first word becomes the root
        for k, line in enumerate(lines):
            cols = line.split("\t")
            if cols[0] == "1":
                cols[6], cols[7] = "0", "root"
                lines[k] = "\t".join(cols)
                break
    return lines


def make_files(count: int, directory: Path) -> tuple[Path, Path, int]:
    blocks: list[list[str]] = []
    for name in SOURCES:
        blocks.extend(sentences_of((DATA / name).read_text(encoding="utf-8")))
    rng = random.Random(2018)
    gold, test = [], []
    while len(gold) < count:
        for block in blocks:
            gold.append("\n".join(block))
            test.append("\n".join(damage(block, rng)))
    g, t = directory / "gold.conllu", directory / "test.conllu"
    g.write_text("\n\n".join(gold) + "\n\n", encoding="utf-8")
    t.write_text("\n\n".join(test) + "\n\n", encoding="utf-8")
    return g, t, len(gold)


def run(cmd: list[str]) -> tuple[float, float, str, int]:
    """CPU seconds (user + system) and wall seconds of one child process, its output and exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout if proc.returncode == 0 else proc.stderr, proc.returncode


def best(cmd: list[str], repeat: int) -> tuple[float, float, str, int]:
    runs = [run(cmd) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2], runs[0][3]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gold", help="time on these two files instead of the generated ones")
    parser.add_argument("--test")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.gold and args.test:
            gold, test = Path(args.gold).resolve(), Path(args.test).resolve()
            sentences = sum(1 for line in gold.read_text(encoding="utf-8").split("\n")
                            if line.startswith("1\t"))  # every sentence has a word 1
        else:
            gold, test, sentences = make_files(args.sentences, Path(tmp))
        print(f"files: {gold.name} / {test.name}, {sentences} gold sentences, best of {args.repeat}")
        ours = [sys.executable, "-m", "evaluation", "deps", "--preset", "conll18",
                "--gold", str(gold), "--test", str(test)]
        ours_cpu, ours_wall, ours_out, ours_rc = best(ours, args.repeat)
        if ours_rc:
            print(ours_out, file=sys.stderr)
            return 1
        print(f"ours   deps --preset conll18 : {ours_cpu:7.2f} s CPU ({ours_wall:.2f} s wall), "
              f"{sentences / ours_cpu:,.0f} sentences/s")
        script = os.environ.get("CONLL18_UD_EVAL")
        if not script:
            print("CONLL18_UD_EVAL not set: the shared task's scorer was not timed")
            return 0
        ref_cpu, ref_wall, ref_out, ref_rc = best([sys.executable, script, "-v", str(gold), str(test)], args.repeat)
        if ref_rc:
            print(ref_out, file=sys.stderr)
            return 1
        print(f"script conll18_ud_eval.py -v : {ref_cpu:7.2f} s CPU ({ref_wall:.2f} s wall), "
              f"{sentences / ref_cpu:,.0f} sentences/s")
        print(f"ratio script / ours (CPU): {ref_cpu / ours_cpu:.2f}  (above 1: ours is faster)")
        print("identical tables: " + ("yes" if ours_out == ref_out else "NO"))
        if ours_out != ref_out:
            print("ours:\n" + ours_out + "script:\n" + ref_out)
        print(ours_out, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
