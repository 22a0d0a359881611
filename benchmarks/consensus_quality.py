"""Does the consensus beat the best single run? The demo's runs of each kind, combined and scored.

For each kind, the runs of the demo campaign (the synthetic ones, made by the
demo's own recipes, and spaCy ``fr_core_news_sm`` and ``_md`` on the corpus
tokens; ``--no-real`` leaves spaCy out, ``--real-only`` keeps only spaCy) are
combined with equal weights and scored by the platform's scorers on the
demo's gold, beside

* every single run,
* the per-sentence **oracle**: for each sentence the run with the best
  sentence-level figure, chosen with the gold (an upper bound no combination
  without the gold can pass).

Main figures: EASY relations HYP EQUAL micro F (the whole reference corpus),
LAS (UD French-Sequoia test and the first 120 sentences of GSD test, as the
demo), evalb bracket F (the demo's 200 Sequoia trees). For EASY it also
counts the correct relations of the relation vote itself, scored directly in
HYP's range space, and how many of them the written file loses (0 since
agreed spans are written as groups: docs/consensus.md). It also times the
combination. spaCy parses are cached under ``var/demo-parses`` (the demo's
cache), so a second run does not load spaCy.

    PARSEVAL_DEVELOPMENT=1 .venv/bin/python -m benchmarks.consensus_quality [--kind easy|deps|trees] [--no-real]
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


def _setup():
    import django

    django.setup()


def _micro_f(fc, fp, cr) -> float:
    return 2 * fc / (fp + cr) if fp + cr else 0.0


def easy_case(real: bool, synthetic: bool, tmp: Path) -> list[tuple[str, float, str]]:
    from parseval.annotations.easy.reader import read_document
    from parseval.annotations.easy.writer import write_document
    from campaign.demo import TEAMS, perturb
    from campaign.demo_parses import REAL_MODELS, default_cache, forms_parses
    from parseval.evaluation.consensus.files import combine_easy_files
    from parseval.evaluation.easy.scoring import count_sentences
    from parseval.evaluation.ud2easy.convert import convert_document

    gold_dir = Path(__file__).resolve().parent.parent / "data" / "easy-ref" / "ref"
    gold = [read_document(p) for p in sorted(gold_dir.glob("*.xml"))]
    runs: dict[str, list] = {}
    if synthetic:
        for team in TEAMS:
            for recipe in team["runs"]:
                runs[recipe.name] = [perturb(d, recipe) for d in gold]
    if real:
        cache = default_cache()
        for model in REAL_MODELS:
            runs[model] = [convert_document(d, forms_parses(cache, model, [(s.id, [f.text for f in s.forms])
                                                                           for s in d.sentences]),
                                            parse_file=f"{d.name}.conllu") for d in gold]
    folders = []
    for name, docs in runs.items():
        folder = tmp / f"easy-{len(folders)}"
        folder.mkdir()
        for d in docs:
            write_document(d, folder / Path(d.name).with_suffix(".xml").name)
        folders.append(folder)
    started = time.perf_counter()
    combine_easy_files(folders, tmp / "easy-consensus", corpus=gold_dir)
    took = time.perf_counter() - started
    runs["consensus"] = [read_document(p, gold=False) for p in sorted((tmp / "easy-consensus").glob("*.xml"))]
    voted_found = _easy_vote_found(gold, [docs for name, docs in runs.items() if name != "consensus"])

    def sentence_counts(docs):
        plan, _, counting = count_sentences(gold, docs,
                                            matches=("EQUAL",), modes=("HYP",))
        off = plan.rel_off[0][0]
        cols = slice(off, off + len(plan.rel_types))
        return np.stack([counting.rows.fc[:, cols].sum(1), counting.rows.fp[:, cols].sum(1),
                         counting.rows.cr[:, cols].sum(1)], axis=1).astype(float)

    counts = {name: sentence_counts(docs) for name, docs in runs.items()}
    rows = [(name, _micro_f(*c.sum(0)), "") for name, c in counts.items()]
    singles = [c for name, c in counts.items() if name != "consensus"]
    per_sentence = np.stack([2 * c[:, 0] / np.maximum(c[:, 1] + c[:, 2], 1) for c in singles])
    best = per_sentence.argmax(0)
    oracle = sum(singles[k][i] for i, k in enumerate(best))
    rows.append(("oracle (per sentence, with the gold)", _micro_f(*oracle), ""))
    written_found = int(counts["consensus"][:, 0].sum())
    rows.append(("relation vote, scored directly: correct", voted_found, "relations"))
    rows.append(("agreed relations lost in writing", voted_found - written_found, "relations"))
    rows.append(("combination time", took, "s"))
    return rows


def _easy_vote_found(gold, run_docs: list[list]) -> int:
    """How many relations of the consensus's relation vote (before any file is written) are in the
    gold, compared in HYP's range space: what the written consensus scores in HYP EQUAL if writing
    loses nothing. Equal weights, a run without any relation not voting on relations, the default
    relation threshold: as ``combine_easy_files`` is called above."""
    from parseval.evaluation.consensus.easy import DEFAULT_RELATION_THRESHOLD, relation_ranges
    from parseval.evaluation.consensus.votes import kept, normalised, tally

    voters = [docs for docs in run_docs if any(s.relations for d in docs for s in d.sentences)]
    weights = normalised(None, len(voters))
    by_id = [{(d.name, s.id): s for d in docs for s in d.sentences} for docs in voters]
    found = 0
    for key, s in (((d.name, s.id), s) for d in gold for s in d.sentences):
        ballots = [(w, relation_ranges(m[key]).keys()) for w, m in zip(weights, by_id) if key in m]
        found += len(set(kept(tally(ballots), DEFAULT_RELATION_THRESHOLD)) & set(relation_ranges(s)))
    return found


def _metric_case(metric_name, figure, gold_files, run_files: dict[str, list[str]], combine, read, tmp):
    from parseval.evaluation import metrics
    from parseval.evaluation import stats

    metric = metrics.get(metric_name)
    columns = {}
    started = time.perf_counter()
    for k, gold in enumerate(gold_files):
        out = tmp / f"{metric_name}-consensus-{k}"
        consensus = combine([files[k] for files in run_files.values()], out)
        gold_parsed = read(gold)
        for name, path in [*((n, f[k]) for n, f in run_files.items()), ("consensus", consensus)]:
            _, r = metric.score_with_rows(gold_parsed, read(path))
            columns.setdefault(name, []).append(r)
    took = time.perf_counter() - started
    rows_by_run = {name: np.concatenate(parts) for name, parts in columns.items()}

    def value(rows):
        return metric.figures(stats.column_sums(rows, metric.columns))[figure]

    out_rows = [(name, value(r), "") for name, r in rows_by_run.items()]
    singles = [r for name, r in rows_by_run.items() if name != "consensus"]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_sentence = np.stack([np.nan_to_num(np.asarray(
            metric.figures({c: r[:, i] for i, c in enumerate(metric.columns)})[figure], dtype=float), nan=-1.0)
            for r in singles])
    best = per_sentence.argmax(0)
    oracle = np.stack([singles[k][i] for i, k in enumerate(best)])
    out_rows.append(("oracle (per sentence, with the gold)", value(oracle), ""))
    out_rows.append(("combination and scoring time", took, "s"))
    return out_rows


def _run_files(tmp: Path, prefix, golds: list[Path], text_of) -> list[str]:
    """One run's files, one per gold file: ``text_of(gold)`` written beside the gold."""
    paths = []
    for g in golds:
        path = tmp / f"{prefix}-{g.name}"
        path.write_text(text_of(g), encoding="utf-8")
        paths.append(str(path))
    return paths


def deps_case(real: bool, synthetic: bool, tmp: Path):
    from django.conf import settings

    from parseval.annotations.conllu import read_conllu
    from campaign.demo_kinds import DEP_SLICES, DEP_TEAMS, conllu_head, damage_heads, real_dep_files
    from campaign.demo_parses import REAL_MODELS, default_cache
    from parseval.evaluation.consensus.files import combine_dependency_files

    data = Path(settings.DATA_DIR) / "ud-french"
    golds = []
    for genre, (filename, count) in DEP_SLICES.items():
        golds.append(tmp / f"{genre}.conllu")
        golds[-1].write_text(conllu_head(data / filename, count), encoding="utf-8")
    runs: dict[str, list[str]] = {}
    if synthetic:
        for _, _, recipes in DEP_TEAMS:
            for recipe in recipes:
                rng = random.Random(recipe.seed)
                runs[recipe.name] = _run_files(tmp, recipe.seed, golds, lambda g, recipe=recipe, rng=rng: damage_heads(
                    g.read_text(encoding="utf-8"), recipe, rng))
    if real:
        cache = default_cache()
        for model in REAL_MODELS:
            files = real_dep_files(cache, model, {g.stem: g for g in golds})
            runs[model] = _run_files(tmp, model, golds, lambda g, files=files: files[g.name])

    def combine(paths, out):
        combine_dependency_files(paths, out)
        return str(out / "consensus.conllu")

    return _metric_case("dependency", "totals.las", [str(g) for g in golds], runs, combine, read_conllu, tmp)


def trees_case(real: bool, synthetic: bool, tmp: Path):
    from django.conf import settings

    from parseval.annotations.trees.penn import read_penn
    from campaign.demo_kinds import TREE_TEAMS, damage_trees, real_tree_files, sequoia_documents
    from campaign.demo_parses import REAL_MODELS, default_cache
    from parseval.evaluation.consensus.files import combine_tree_files

    folder = tmp / "trees-gold"
    folder.mkdir()
    golds = sequoia_documents(Path(settings.DATA_DIR) / "sequoia-const", folder)
    runs: dict[str, list[str]] = {}
    if synthetic:
        for _, _, recipes in TREE_TEAMS:
            for recipe in recipes:
                runs[recipe.name] = _run_files(tmp, recipe.seed, golds,
                                               lambda g, recipe=recipe: damage_trees(g, recipe))
    if real:
        cache = default_cache()
        for model in REAL_MODELS:
            files = real_tree_files(cache, model, golds)
            runs[model] = _run_files(tmp, model, golds, lambda g, files=files: files[g.name])

    def combine(paths, out):
        combine_tree_files(paths, out)
        return str(out / "consensus.mrg")

    return _metric_case("evalb", "summary.all.f", [str(g) for g in golds], runs, combine, read_penn, tmp)


CASES = {"easy": ("EASY relations HYP EQUAL micro F", easy_case),
         "deps": ("LAS", deps_case),
         "trees": ("evalb bracket F", trees_case)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=sorted(CASES), action="append")
    parser.add_argument("--no-real", action="store_true", help="leave the spaCy runs out")
    parser.add_argument("--real-only", action="store_true", help="only the spaCy runs")
    args = parser.parse_args(argv)
    _setup()
    for kind in args.kind or list(CASES):
        label, case = CASES[kind]
        with tempfile.TemporaryDirectory() as tmp:
            rows = case(not args.no_real, not args.real_only, Path(tmp))
        print(f"\n{kind}: {label}")
        singles = [v for name, v, unit in rows if not unit and name not in ("consensus",) and not name.startswith("oracle")]
        for name, value, unit in rows:
            mark = "  <- best single run" if not unit and singles and value == max(singles) and name != "consensus" \
                and not name.startswith("oracle") else ""
            print(f"  {name:<45} {value:8d} {unit}" if isinstance(value, int) else
                  f"  {name:<45} {value:8.2f} {unit}" if unit else f"  {name:<45} {100 * value:8.2f}{mark}")
        print(f"  {'peak RSS of this process so far':<45} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:8.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
