"""``python -m evaluation convert --to conllu --head-rules penn|FILE TREES...``."""
from __future__ import annotations

import sys

from annotations.conllu import write_conllu
from annotations.trees.headrules import load_head_rules
from evaluation.deps.convert import trees_to_dependencies
from evaluation.deps.treeio import read_trees


def add_arguments(parser) -> None:
    parser.add_argument("trees", nargs="+", metavar="TREES", help="constituency tree file(s) (Penn brackets)")
    parser.add_argument("--to", choices=["conllu"], default="conllu", help="output format (CoNLL-U)")
    parser.add_argument("--head-rules", default="penn",
                        help="built-in table name (penn = Collins 1999) or a head-rule file")
    parser.add_argument("--head-function", action="append", default=[], metavar="TAG",
                        help="a child whose label carries this function tag is the head (e.g. HD for TIGER); repeatable")
    parser.add_argument("--transform", metavar="SPEC", help="treebank transformations applied first (see 'transform')")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")


def run(args) -> int:
    rules = load_head_rules(args.head_rules, head_functions=args.head_function)
    out = []
    for path in args.trees:
        trees = read_trees(path)
        if args.transform:
            from annotations.trees.transforms import apply_transforms

            trees = apply_transforms(trees, args.transform)
        sents = trees_to_dependencies(trees, rules, file=path)
        offset = len(out)
        for s in sents:
            s.index += offset
            s.comments[0] = f"sent_id = {s.index}"
        out.extend(sents)
    text = write_conllu(out)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0
