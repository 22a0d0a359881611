"""The secrecy budget of every team-figures setting, measured by the adversary of evaluation/results/secrecy_budget.py.

For the demo campaigns as ``load_demo`` builds them (the EASY reference corpus with a 10 % development sample
and 90 % test, four synthetic teams and the spaCy team, 3 runs each; the Sequoia constituency and UD dependency
demos, every sentence a test sentence, three teams; the open practice campaign, 60 % test, 20 % development,
five teams of 5 runs), and for a campaign of 40,000 sentences like the EASY one (lengths and genres drawn from
the reference corpus; 2.5 % development, 10 % test, 16 teams, 3 runs each), prints setting x bits per
disclosed run x the campaign's total (teams x disclosed runs x bits, the consensus run counted as one more) and
the sentences that total allows decoding out of the non-development ones.

    .venv/bin/python benchmarks/secrecy_budget.py
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")

from evaluation.results import secrecy_budget as sb  # noqa: E402

SETTINGS = ("primary", "pooled", "rates", "full")


def conllu_lengths(path: Path) -> list[tuple[str, int]]:
    """``(sent_id, words)`` of each sentence of a CoNLL-U file (multiword-token lines and empty nodes left out)."""
    out, sid, words = [], "", 0
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("# sent_id"):
            sid = line.split("=", 1)[1].strip()
        elif line and line[0].isdigit() and line.split("\t", 1)[0].isdigit():
            words += 1
        elif not line and words:
            out.append((sid, words))
            sid, words = "", 0
    return out


def all_test(words: dict[str, list[int]], **fields) -> sb.Shape:
    return sb.Shape(words, {g: len(v) for g, v in words.items()}, **fields)


def shapes() -> list[sb.Shape]:
    from campaign.demo_kinds import DEP_SLICES, TREE_SOURCES, TREES_PER_DOCUMENT
    from campaign.demo_open import DEV_RATIO, SLICES, TEST_RATIO

    data = ROOT / "data"
    paths = sorted((data / "easy-ref" / "ref").glob("*.xml"))
    demo = sb.easy_shape(paths, test_ratio=0.9, dev_ratio=0.1, teams=5, name="EASY reference demo")
    trees: dict[str, list[int]] = {}
    for sid, n in conllu_lengths(data / "ud-french" / "fr_sequoia-ud-test.conllu"):
        genre = TREE_SOURCES.get(sid.split(".", 1)[0].split("_", 1)[0])
        if genre and len(trees.setdefault(genre, [])) < TREES_PER_DOCUMENT:
            trees[genre].append(n)
    deps = {genre: [n for _, n in conllu_lengths(data / "ud-french" / name)][: count or None]
            for genre, (name, count) in DEP_SLICES.items()}
    practice = {genre: [n for _, n in conllu_lengths(data / "ud-french" / name)][:count]
                for genre, (name, count) in SLICES.items()}
    return [demo,
            all_test(trees, layers=sb.CONSTITUENCY_LAYERS, teams=3, name="Sequoia constituency demo"),
            all_test(deps, layers=sb.DEPENDENCY_LAYERS, teams=3, runs_per_team=4, name="UD dependency demo"),
            replace(sb.scaled_shape(practice, sentences=sum(map(len, practice.values())), test_ratio=TEST_RATIO,
                                    dev_ratio=DEV_RATIO, teams=5, runs_per_team=5, resample=False),
                    layers=sb.DEPENDENCY_LAYERS, name="UD practice (open)"),
            sb.scaled_shape(demo.words, sentences=40_000, test_ratio=0.1, dev_ratio=0.025, teams=16,
                            name="40,000 sentences, 16 teams")]


def main() -> None:
    import django

    django.setup()  # the demo builders' constants live in modules that import the models
    print(f"{'campaign':<30} {'setting':<8} {'bits/run':>8} {'runs':>4} {'total':>7} {'decodable':>17}  seconds")
    for shape in shapes():
        for name in SETTINGS:
            started = time.perf_counter()
            b = sb.budget(shape, name)
            held = (f"  withheld: would be {b.withheld.bits_per_run} bits per run, {b.withheld.decodable:,} sentences"
                    if b.withheld else "")
            print(f"{shape.name:<30} {name:<8} {b.bits_per_run:>8} {b.runs_per_team:>4} {b.total_bits:>7} "
                  f"{b.decodable:>6,} of {b.non_dev:>6,} {100 * b.share:5.1f} %  {time.perf_counter() - started:.1f}"
                  f"{held}")


if __name__ == "__main__":
    main()
