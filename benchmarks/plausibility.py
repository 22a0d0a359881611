"""How many items real annotation puts in one sentence: the measurements behind parseval/annotations/plausibility.py.

A run crafted to read the test set from its own counts carries, in some sentences, far more items
(EASY relations or groups, brackets) than the sentence has words. The plausibility bound refuses that
at validation; it must never refuse a real parser's run. This script measures, sentence by sentence,
the gold of every corpus shipped in data/ and the runs of real parsers (spaCy's French pipelines
fr_core_news_sm and fr_core_news_md, as the demo makes them: on the EASY forms converted to EASY, on
the Sequoia tree words converted to phrase structure, on the UD raw text in their own tokens), and
prints for each measure the largest value seen, the bound, and how many sentences the bound refuses.

    .venv/bin/python benchmarks/plausibility.py [--models fr_core_news_sm fr_core_news_md]

Parses are cached under VAR_DIR/demo-parses (the demo's cache), so a second run takes seconds.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")


# Syntactic words of one multiword token: measured here (French has at most 2: du = de + le), not checked by
# parseval.annotations.plausibility (the raw-text validation bounds multiword regions).
WORDS_PER_TOKEN = 4


class Tally:
    """The worst sentence seen for each measure, and how many sentences the bound refuses."""

    def __init__(self, source: str):
        self.source = source
        self.sentences = 0
        self.worst: dict[str, tuple[float, str]] = {}
        self.refused: list[str] = []

    def add(self, sid: str, words: int, counts: dict[str, int]) -> None:
        from parseval.annotations import plausibility

        self.sentences += 1
        for key, value in counts.items():
            # how much of the bound the sentence uses: 1.0 would be refused
            used = value / (plausibility.bound(key, words) if key in plausibility.PER_WORD else WORDS_PER_TOKEN)
            if key not in self.worst or used > self.worst[key][0]:
                self.worst[key] = (used, f"{sid}: {value} {key} for {words} words")
        why = plausibility.excess(words, {k: v for k, v in counts.items() if k in plausibility.PER_WORD})
        if why:
            self.refused.append(f"{sid}: {why}")

    def report(self) -> str:
        lines = [f"{self.source}: {self.sentences} sentences, refused {len(self.refused)}"]
        for key, (ratio, where) in sorted(self.worst.items()):
            lines.append(f"    {key}: at most {ratio:.0%} of the bound ({where})")
        lines += [f"    REFUSED {r}" for r in self.refused[:10]]
        return "\n".join(lines)


def easy_counts(sentence) -> dict[str, int]:
    from parseval.annotations.plausibility import easy_counts as counts

    return counts(r.type for r in sentence.relations)


def easy_gold(data: Path) -> Tally:
    from parseval.annotations.easy import read_document

    tally = Tally("EASY gold (easy-ref, easy-guide)")
    for path in sorted((data / "easy-ref" / "ref").glob("*.xml")) + sorted((data / "easy-guide" / "ref").glob("*.xml")):
        for s in read_document(path, gold=True).sentences:
            tally.add(f"{path.name} {s.id}", len(s.forms), easy_counts(s))
    return tally


def easy_real(data: Path, cache, model: str) -> Tally:
    from parseval.annotations.easy import read_document
    from campaign.demo_parses import forms_parses
    from parseval.evaluation.ud2easy.convert import convert_document

    tally = Tally(f"EASY runs of {model} (UD parse converted to EASY)")
    for path in sorted((data / "easy-ref" / "ref").glob("*.xml")):
        corpus = read_document(path, gold=True)
        parses = forms_parses(cache, model, [(s.id, [f.text for f in s.forms]) for s in corpus.sentences])
        run = convert_document(corpus, parses, parse_file=path.name)
        for s in run.sentences:
            tally.add(f"{path.name} {s.id}", len(s.forms), easy_counts(s))
    return tally


def tree_counts(tree) -> dict[str, int]:
    from parseval.annotations.plausibility import tree_counts as counts

    return counts(tree)


def tree_files(data: Path, shared: Path | None) -> list[Path]:
    paths = [data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict", data / "evalb-sample" / "sample.gld"]
    if shared and (shared / "ptb-sample").is_dir():
        paths += sorted(p for p in (shared / "ptb-sample").rglob("*.mrg"))
    return [p for p in paths if p.is_file()]


def trees_gold(data: Path, shared: Path | None) -> Tally:
    from parseval.annotations.trees.detect import read_trees

    tally = Tally("constituency gold (Sequoia, evalb sample, Penn Treebank sample)")
    for path in tree_files(data, shared):
        for k, tree in enumerate(read_trees(path), 1):
            tally.add(f"{path.name} {k}", len(tree.words()), tree_counts(tree))
    return tally


def trees_real(data: Path, cache, model: str) -> Tally:
    from parseval.annotations.trees.detect import read_trees
    from campaign.demo_parses import forms_parses
    from parseval.evaluation.deps.ud2tree import ud_to_tree

    tally = Tally(f"constituency runs of {model} (UD parse converted to phrase structure)")
    path = data / "sequoia-const" / "sequoia-corpus+fct.mrg_strict"
    trees = read_trees(path)
    parses = forms_parses(cache, model, [(f"seq-{k}", t.words()) for k, t in enumerate(trees, 1)])
    for p in parses:
        tree = ud_to_tree(p)
        tally.add(p.sent_id, len(tree.words()), tree_counts(tree))
    return tally


def dep_counts(sentence) -> tuple[int, dict[str, int]]:
    """Surface tokens, and the syntactic words of the sentence's largest multiword token."""
    spans = [line for _, line in sentence.extra if "-" in line.split("\t", 1)[0]]
    widest = 1
    tokens = len(sentence.words)
    for line in spans:
        first, last = line.split("\t", 1)[0].split("-")
        width = int(last) - int(first) + 1
        widest = max(widest, width)
        tokens -= width - 1
    return tokens, {"words_per_token": widest}


def deps(data: Path, cache, models) -> list[Tally]:
    from parseval.annotations.conllu import parse_conllu
    from campaign.demo_parses import raw_text_parses

    files = [data / "ud-french" / name for name in
             ("fr_sequoia-ud-dev.conllu", "fr_sequoia-ud-test.conllu", "fr_sequoia-ud-train.conllu",
              "fr_gsd-ud-test.conllu")]
    gold = Tally("UD gold (Sequoia dev, test, train; GSD test)")
    out = [gold]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for s in parse_conllu(text, check_cycles=False):
            tokens, counts = dep_counts(s)
            gold.add(f"{path.name} {s.name}", tokens, counts)
    for model in models:
        real = Tally(f"UD raw-text runs of {model} (own tokens and sentences)")
        for path in files[:2] + files[3:]:
            for s in parse_conllu(raw_text_parses(cache, model, path.read_text(encoding="utf-8")), check_cycles=False):
                tokens, counts = dep_counts(s)
                real.add(f"{path.name} {s.name}", tokens, counts)
        out.append(real)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=["fr_core_news_sm", "fr_core_news_md"])
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    from parseval.annotations import plausibility
    from campaign.demo_parses import default_cache

    data = Path(settings.DATA_DIR)
    shared = ROOT.parent / "shared" / "data"
    cache = default_cache()
    print(f"bound: {plausibility.describe()}")
    tallies = [easy_gold(data), trees_gold(data, shared if shared.is_dir() else None)]
    for model in args.models:
        tallies += [easy_real(data, cache, model), trees_real(data, cache, model)]
    tallies += deps(data, cache, args.models)
    for tally in tallies:
        print(tally.report())
    gold = sum(t.sentences for t in tallies if "gold" in t.source)
    real = sum(t.sentences for t in tallies if "gold" not in t.source)
    refused = sum(len(t.refused) for t in tallies)
    print(f"TOTAL: {gold} gold sentences, {real} real-run sentences, refused {refused}")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
