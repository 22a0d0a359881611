"""``python -m evaluation transform --apply SPEC TREES...``: rewrite trees, print Penn brackets."""
from __future__ import annotations

import sys

from parseval.annotations.trees.transforms import apply_transforms, describe, parse_spec
from parseval.evaluation.cli.common import write_text
from parseval.evaluation.deps.treeio import read_trees, write_trees


def add_arguments(parser) -> None:
    parser.add_argument("trees", nargs="*", metavar="TREES", help="tree file(s) (Penn brackets)")
    parser.add_argument("--apply", metavar="SPEC",
                        help="comma-separated transformations, e.g. strip-functions,remove-unary,remove-labels:VF+MF+NF")
    parser.add_argument("--list", action="store_true", help="list the known transformations and exit")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")


def run(args) -> int:
    if args.list:
        for t in describe():
            sys.stdout.write(f"{t['name'] + (':ARG' if t['needs_arg'] else ''):<20} {t['help']}\n")
        return 0
    if not args.apply or not args.trees:
        sys.stderr.write("error: --apply SPEC and at least one tree file are required (or --list)\n")
        return 2
    parse_spec(args.apply)  # report a bad spec before reading anything
    trees = []
    for path in args.trees:
        trees.extend(read_trees(path))
    text = write_trees(apply_transforms(trees, args.apply))
    write_text(text, args.output)
    return 0
