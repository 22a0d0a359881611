"""``python -m evaluation combine --kind easy|deps|trees --run A --run B ... --out DIR``.

Combines several runs of one corpus into a consensus annotation, sentence by
sentence, by weighted vote (see docs/consensus.md): EASY groups and
relations, dependency arcs reparsed into a maximum spanning tree (Sagae and
Lavie 2006), constituents kept with more than half the weight (Henderson and
Brill 1999). Every kept item carries its agreement, the share of the weight
that voted for it. The files written are read by the scorers as they are:
``python -m evaluation easy --run DIR``, ``deps --test DIR/consensus.conllu``,
``trees --test DIR/consensus.mrg``.

With ``--tune-on DEV_GOLD`` and each run given as ``RUN_TEST:RUN_DEV`` (the
run's files to combine, then its analysis of the development sentences of
``DEV_GOLD``), the weights and thresholds are learnt as the platform learns
them (:mod:`parseval.evaluation.consensus.tuning`): the setting of the grid
that maximises the consensus's figure on the development sample, or the best
run's files when no setting beats it there. The choice and the development
figures are printed, and written to ``DIR/tuning.json``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from parseval.annotations.errors import InputError
from parseval.evaluation.consensus import easy as easy_consensus
from parseval.evaluation.consensus.files import (combine_dependency_files, combine_easy_files, combine_files,
                                                 combine_tree_files)
from parseval.evaluation.consensus.tuning import tune_files


def add_arguments(parser) -> None:
    parser.add_argument("--kind", required=True, choices=["easy", "deps", "trees"],
                        help="easy: EASY files or folders; deps: CoNLL-U files on the same tokens; "
                             "trees: bracketed files on the same words")
    parser.add_argument("--run", action="append", required=True, metavar="RUN",
                        help="a run to combine (give --run once per run, at least two); on ties the earlier run wins; "
                             "with --tune-on, RUN_TEST:RUN_DEV: the files to combine, then the run's files of the "
                             "development sentences")
    parser.add_argument("--tune-on", metavar="DEV_GOLD",
                        help="learn the weights and thresholds on this development gold (each --run as "
                             "RUN_TEST:RUN_DEV); replaces --weights and the thresholds")
    parser.add_argument("--weights", help="one weight per run, comma-separated, in --run order (default: equal)")
    parser.add_argument("--corpus", help="easy: the corpus (EASY files with forms) whose sentences the consensus covers "
                                         "(default: the sentences of the first run that has each document)")
    parser.add_argument("--group-threshold", type=float, default=easy_consensus.DEFAULT_GROUP_THRESHOLD,
                        help="easy: keep groups with more than this share of the weight "
                             f"(default {easy_consensus.DEFAULT_GROUP_THRESHOLD})")
    parser.add_argument("--relation-threshold", type=float, default=easy_consensus.DEFAULT_RELATION_THRESHOLD,
                        help="easy: keep relations with more than this share of the weight "
                             f"(default {easy_consensus.DEFAULT_RELATION_THRESHOLD})")
    parser.add_argument("--out", required=True, help="folder to write the consensus into (created if missing)")


def _weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise InputError(f"--weights takes numbers separated by commas, not {text!r}") from None


def run(args) -> int:
    if len(args.run) < 2:
        raise InputError("combining needs at least two runs (give --run once per run)")
    for threshold in (args.group_threshold, args.relation_threshold):
        if not 0 <= threshold < 1:
            raise InputError("a threshold is a share of the weight, from 0 (any vote) to below 1")
    weights, out = _weights(args.weights), Path(args.out)
    if args.tune_on:
        return _tuned(args, out)
    if args.kind == "easy":
        summary = combine_easy_files(args.run, out, weights, corpus=args.corpus,
                                     group_threshold=args.group_threshold,
                                     relation_threshold=args.relation_threshold)
    elif args.kind == "deps":
        summary = combine_dependency_files(args.run, out, weights)
    else:
        summary = combine_tree_files(args.run, out, weights)
    _report(args, summary)
    return 0


def _report(args, summary) -> None:
    mean = summary.mean_agreement
    print(f"combined {len(args.run)} runs: {summary.sentences} sentences, {summary.items} items kept"
          + (f", mean agreement {mean:.3f}" if mean is not None else ""), file=sys.stderr)
    for path in summary.files:
        print(path)


def _pairs(runs: list[str]) -> tuple[list[str], list[str]]:
    tests, devs = [], []
    for run in runs:
        test, sep, dev = run.rpartition(":")
        if not sep or not test or not dev:
            raise InputError(f"--tune-on needs each run as RUN_TEST:RUN_DEV, not {run!r}")
        tests.append(test)
        devs.append(dev)
    return tests, devs


def _percent(value) -> str:
    return "-" if value is None or value < 0 else f"{100 * value:.2f}"


def _tuned(args, out: Path) -> int:
    if args.weights:
        raise InputError("--weights and --tune-on exclude each other: tuning learns the weights")
    tests, devs = _pairs(args.run)
    tuning = tune_files(args.kind, args.tune_on, devs)
    summary = combine_files(args.kind, tests, out, tuning.chosen, corpus=args.corpus)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tuning.json").write_text(json.dumps(tuning.record(), indent=1) + "\n", encoding="utf-8")
    err = sys.stderr
    print("development figure of each run:", file=err)
    for test, figure in zip(tests, tuning.development):
        print(f"  {_percent(figure):>7}  {test}", file=err)
    print("candidates (weighting, thresholds: development figures):", file=err)
    for c in tuning.candidates:
        thresholds = " ".join(f"{k}>{v:g}" for k, v in c.setting.threshold.items())
        print(f"  {c.setting.weighting:<8} {thresholds:<28} " + " ".join(_percent(f) for f in c.figures), file=err)
    chosen = tuning.chosen
    if tuning.fallback:
        print(f"chosen: no setting beats the best run on the development sample ({_percent(tuning.figure)}): "
              f"the consensus is run {chosen.fallback + 1}'s files ({tests[chosen.fallback]})", file=err)
    else:
        print(f"chosen: {chosen.weighting} weights " + ",".join(f"{w:.3f}" for w in chosen.weights)
              + "".join(f", {k} threshold {v:g}" for k, v in chosen.threshold.items())
              + f": development figure {_percent(tuning.figure)}", file=err)
    _report(args, summary)
    print(out / "tuning.json")
    return 0
