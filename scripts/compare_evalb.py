"""Run evalb (the C program, built by you) and our evalb preset side by side on perturbed trees.

    EVALB=/path/to/evalb .venv/bin/python scripts/compare_evalb.py FIRST_SEED LAST_SEED

evalb is not part of this project: build it from its public source (Sekine &
Collins, e.g. nikitakit/self-attentive-parser EVALB/evalb.c) and point EVALB
at the binary. Each seed writes one gold file (every Sequoia tree of data/ and,
when it is there, every tree of the Penn Treebank sample in
$PARSEVAL_SHARED/data/ptb-sample, that fits evalb's fixed sizes, one per line) and one
test file (a corrupted copy: phrasal nodes removed, relabelled or regrouped
into crossing brackets, tags changed, quote tags swapped, words dropped; 7%
damaged lines: empty, "( )", an extra or a missing ")", indented, tabs; a few
no-break spaces inside words), then runs ``evalb -p PRM`` and ``python -m
evaluation trees --metric evalb --param PRM`` with COLLINS.prm, new.prm and
sample.prm (MAX_ERROR raised), on the UTF-8 files and on their Latin-1
encoding, and compares the standard outputs byte for byte. It prints each
run and the totals; the exit code is 1 if any output differed.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from parseval.annotations.trees.penn import parse_penn, read_penn  # noqa: E402
from parseval.annotations.trees.tree import Tree  # noqa: E402
from benchmarks.trees_speed import PTB, corrupt as benchmark_corrupt  # noqa: E402
from tests.conftest import DATA  # noqa: E402

PRMS = ("COLLINS.prm", "new.prm", "sample.prm")


def corrupt(tree: Tree, rng: random.Random) -> Tree:
    """The benchmark's corruption (nodes removed or relabelled, tags changed), then more: words
    lost, quote tags swapped, labels evalb treats specially, siblings regrouped (crossing)."""

    def walk(node: Tree, root: bool) -> list[Tree]:
        if node.is_word:
            return [node]
        if node.is_preterminal:
            if rng.random() < 0.01:
                return []  # a word lost: length mismatch
            if node.label in SWAP and rng.random() < 0.3:
                return [Tree(SWAP[node.label], node.children)]
            return [node]
        kids = [k for c in node.children for k in walk(c, False)]
        if not kids:
            return []
        label = node.label
        if not root and rng.random() < 0.05:
            label = rng.choice(["NP-SBJ", "PRT", "ADVP", "-NONE-", "S=2"])
        if not root and len(kids) > 2 and rng.random() < 0.1:
            i = rng.randrange(1, len(kids) - 1)
            kids = [Tree("XP", kids[: i + 1])] + kids[i + 1:] if rng.random() < 0.5 else kids[:i] + [Tree("YP", kids[i:])]
        return [Tree(label, kids)]

    out = walk(benchmark_corrupt(tree, rng), True)
    return out[0] if out else Tree("S", [])


SWAP = {"''": "POS", "POS": "''", "``": "''"}


def damaged(line: str, rng: random.Random) -> str | None:
    r = rng.random()
    if r < 0.02:
        return ""
    if r < 0.03:
        return "( )"
    if r < 0.04:
        return line + ")"
    if r < 0.05:
        return line[:-1]
    if r < 0.06:
        return "  " + line
    if r < 0.07:
        return line.replace(" ", "\t", 3)
    return None


def fits(line: str) -> bool:  # evalb's fixed sizes: 5,000-byte lines, 200 brackets
    return len(line.encode("utf-8")) < 4990 and line.count("(") < 199


def pairs(rng: random.Random) -> tuple[list[str], list[str]]:
    trees = [t for p in sorted((PTB).glob("*.mrg")) for t in read_penn(p, strip_outer=False)]
    if not trees:  # not shipped (LDC licence): say so, and compare on the shipped Sequoia trees alone
        print(f"note: no Penn Treebank sample in {PTB} (set PARSEVAL_SHARED to the folder holding "
              "data/ptb-sample): comparing on the Sequoia trees only", file=sys.stderr)
    text = (DATA / "sequoia-const" / "sequoia-corpus+fct.mrg_strict").read_text(encoding="utf-8")
    for line in text.split("\n"):
        if line.strip():
            trees.extend(parse_penn(line, strip_outer=False))
    gold, test = [], []
    for tree in trees:
        g = tree.to_penn()
        if not fits(g):
            continue
        t = damaged(g, rng)
        if t is None:
            t = corrupt(tree, rng).to_penn()
            if "_" in g and rng.random() < 0.05:  # a no-break space inside a word, on both sides
                g, t = g.replace("_", "\u00a0", 1), t.replace("_", "\u00a0", 1)
        gold.append(g)
        test.append(t)
    return gold, test


def main() -> int:
    evalb = os.environ.get("EVALB")
    if not evalb or not os.access(evalb, os.X_OK):
        print("set EVALB to an evalb binary built from evalb.c", file=sys.stderr)
        return 2
    first, last = (int(a) for a in (sys.argv[1:3] if len(sys.argv) > 2 else ("1", "1")))
    compared = differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for seed in range(first, last + 1):
            gold, test = pairs(random.Random(seed))
            for encoding in ("utf-8", "latin-1"):
                for name, lines in (("gold", gold), ("test", test)):
                    (tmp / name).write_bytes("".join(x + "\n" for x in lines).encode(encoding, "replace"))
                for prm in PRMS:
                    (tmp / "p.prm").write_text((DATA / "evalb-sample" / prm).read_text() + "\nMAX_ERROR 1000000\n")
                    files = [str(tmp / "gold"), str(tmp / "test")]
                    ref = subprocess.run([evalb, "-p", str(tmp / "p.prm"), *files], capture_output=True)
                    ours = subprocess.run(
                        [sys.executable, "-m", "evaluation", "trees", "--metric", "evalb", "--param", str(tmp / "p.prm"),
                         "--gold", files[0], "--test", files[1]], capture_output=True, cwd=REPO)
                    same = ref.stdout == ours.stdout
                    compared += len(gold)
                    differing += not same
                    print(f"seed {seed} {encoding:7} {prm:11} {len(gold)} pairs: {'same' if same else 'DIFFERENT'}")
                    if not same:
                        for a, b in zip(ref.stdout.splitlines(), ours.stdout.splitlines()):
                            if a != b:
                                print(f"  evalb: {a!r}\n  ours:  {b!r}")
                                break
    print(f"{compared} sentence pairs compared in {differing} runs with a different output")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
