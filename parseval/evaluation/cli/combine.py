"""``python -m evaluation combine --kind easy|deps|trees --run A --run B ... --out DIR``.

Combines several runs of one corpus into a consensus annotation, sentence by
sentence, by weighted vote (see docs/consensus.md): EASY groups and
relations, dependency arcs reparsed into a maximum spanning tree (Sagae and
Lavie 2006), constituents kept with more than half the weight (Henderson and
Brill 1999). Every kept item carries its agreement, the share of the weight
that voted for it. The files written are read by the scorers as they are:
``python -m evaluation easy --run DIR``, ``deps --test DIR/consensus.conllu``,
``trees --test DIR/consensus.mrg``.
"""
from __future__ import annotations

import sys
from pathlib import Path

from parseval.annotations.errors import InputError
from parseval.evaluation.consensus import easy as easy_consensus
from parseval.evaluation.consensus.files import combine_dependency_files, combine_easy_files, combine_tree_files


def add_arguments(parser) -> None:
    parser.add_argument("--kind", required=True, choices=["easy", "deps", "trees"],
                        help="easy: EASY files or folders; deps: CoNLL-U files on the same tokens; "
                             "trees: bracketed files on the same words")
    parser.add_argument("--run", action="append", required=True, metavar="RUN",
                        help="a run to combine (give --run once per run, at least two); on ties the earlier run wins")
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
    if args.kind == "easy":
        summary = combine_easy_files(args.run, out, weights, corpus=args.corpus,
                                     group_threshold=args.group_threshold,
                                     relation_threshold=args.relation_threshold)
    elif args.kind == "deps":
        summary = combine_dependency_files(args.run, out, weights)
    else:
        summary = combine_tree_files(args.run, out, weights)
    mean = summary.mean_agreement
    print(f"combined {len(args.run)} runs: {summary.sentences} sentences, {summary.items} items kept"
          + (f", mean agreement {mean:.3f}" if mean is not None else ""), file=sys.stderr)
    for path in summary.files:
        print(path)
    return 0
