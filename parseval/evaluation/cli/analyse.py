"""``python -m evaluation analyse --kind deps --gold G --run R [--by ATTRIBUTE] [--json OUT]``.

A run's scores broken down by attributes of its items (one table per attribute: counts, UAS, LAS, precision,
F, and the LAS's bootstrap interval). Dependencies only for now; the attributes, the arithmetic and the JSON
schema are in docs/metrics/analysis.md.
"""
from __future__ import annotations

from parseval.annotations.conllu import read_conllu
from parseval.annotations.errors import InputError
from parseval.evaluation import buckets
from parseval.evaluation.cli.common import write_result
from parseval.evaluation.deps import buckets as deps_buckets
from parseval.evaluation.stats import DEFAULT_SEED

KINDS = ("deps",)


def add_arguments(parser) -> None:
    parser.add_argument("--kind", required=True, choices=KINDS, help="the kind of annotation")
    parser.add_argument("--gold", required=True, help="gold file (CoNLL-U / CoNLL-X for deps)")
    parser.add_argument("--run", required=True, help="the run to analyse, same format")
    parser.add_argument("--by", action="append", metavar="ATTRIBUTE",
                        help="an attribute to break the figures down by (repeatable; default: all of the kind's: "
                             + ", ".join(a.name for a in buckets.attributes_for("deps")) + ")")
    parser.add_argument("--punct", help="punctuation left out, as in the deps command (default upos)")
    parser.add_argument("--labels", choices=["full", "universal"], help="relations compared whole (default) or "
                                                                        "without their subtype")
    parser.add_argument("--no-cycle-check", action="store_true", help="accept dependency cycles in the input")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="resamples of the sentences for the 95%% intervals (default 1000; 0: none)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="S",
                        help=f"seed of the resampling (default {DEFAULT_SEED})")
    parser.add_argument("--json", metavar="OUT", help="write the JSON document here ('-' = standard output)")


def run(args) -> int:
    check = not args.no_cycle_check
    gold = read_conllu(args.gold, check_cycles=check)
    test = read_conllu(args.run, check_cycles=check)
    for path, sentences in ((args.gold, gold), (args.run, test)):
        if not sentences:
            raise InputError("empty input: no sentence found", file=path)
    if len(gold) != len(test):
        raise InputError(f"gold has {len(gold)} sentences, the run has {len(test)}: they cannot be paired one "
                         "to one", file=args.run)
    doc = deps_buckets.analyse(gold, test, by=args.by, punct=args.punct or "upos",
                               labels="universal" if args.labels == "universal" else True,
                               bootstrap=args.bootstrap, seed=args.seed)
    doc["files"] = {"gold": args.gold, "run": args.run}
    return write_result(doc, args.json, deps_buckets.format_tables)
