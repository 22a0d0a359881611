"""``python -m evaluation flatten --rules FILE TREES``: print the flat keys of TREES.

Trees are read in either bracket style (detected, or ``--format``) and written
one per line in Penn notation (``--output-format square`` for square brackets).
"""
from __future__ import annotations

import sys

from parseval.annotations.trees.detect import read_trees
from parseval.annotations.trees.penn import write_penn
from parseval.annotations.trees.square import write_square
from parseval.evaluation.trees.flatten import flatten, load_rules


def add_arguments(parser) -> None:
    parser.add_argument("--rules", required=True, metavar="FILE", help="flattening rules, one per line")
    parser.add_argument("--format", choices=("penn", "square"), help="input bracket style (detected when omitted)")
    parser.add_argument("--output-format", choices=("penn", "square"), default="penn")
    parser.add_argument("trees", metavar="TREES", help="file of trees to flatten")


def run(args) -> int:
    rules = load_rules(args.rules)
    trees = read_trees(args.trees, fmt=args.format)
    flat = [flatten(t, rules) for t in trees]
    sys.stdout.write(write_square(flat) if args.output_format == "square" else write_penn(flat))
    return 0
