"""``python -m evaluation convert --to conllu --head-rules penn|ftb|FILE TREES...``."""
from __future__ import annotations


from parseval.annotations.conllu import write_conllu
from parseval.annotations.trees.detect import read_sentences
from parseval.annotations.trees.headrules import best_builtin, check_fit, load_head_rules
from parseval.evaluation.cli.common import write_result, write_text
from parseval.evaluation.deps.convert import trees_to_dependencies, conversion_reliability
from parseval.evaluation.deps.metrics import format_table
from parseval.annotations.trees.transforms import apply_transforms


def add_arguments(parser) -> None:
    parser.add_argument("trees", nargs="+", metavar="TREES", help="constituency tree file(s) (Penn brackets)")
    parser.add_argument("--to", choices=["conllu"], default="conllu", help="output format (CoNLL-U)")
    parser.add_argument("--head-rules",
                        help="built-in table name (penn = Collins 1999; ftb = French Treebank and Sequoia, "
                             "Candito et al. 2010) or a head-rule file; refused when it does not fit the trees' "
                             "labels. Default: the built-in table that fits them best")
    parser.add_argument("--head-function", action="append", default=[], metavar="TAG",
                        help="a child whose label carries this function tag is the head (e.g. HD for TIGER); repeatable")
    parser.add_argument("--transform", metavar="SPEC", help="treebank transformations applied first (see 'transform')")
    parser.add_argument("--reliability", action="store_true",
                        help="instead of converting: convert with and without function labels and print how far "
                             "the two agree (Lin F, UAS, LAS)")
    parser.add_argument("--json", metavar="OUT",
                        help="with --reliability: write the JSON document here ('-' = standard output)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")


def run(args) -> int:
    files = [(path, *_read(path, args.transform)) for path in args.trees]
    name = args.head_rules or best_builtin([t for _, trees, _ in files for t in trees],
                                           head_functions=args.head_function)
    rules = load_head_rules(name, head_functions=args.head_function)
    for path, trees, lines in files:
        check_fit(trees, rules, file=path, lines=lines)
    if args.reliability:
        return _reliability(args, rules, [t for _, trees, _ in files for t in trees])
    out = []
    for path, trees, _ in files:
        sents = trees_to_dependencies(trees, rules, file=path)
        offset = len(out)
        for s in sents:
            s.index += offset
            s.comments[0] = f"sent_id = {s.index}"
            s.comments.append(f"head_rules = {rules.name}")  # what made the tree (chosen by fit when not given)
        out.extend(sents)
    text = write_conllu(out)
    write_text(text, args.output)
    return 0


def _reliability(args, rules, trees) -> int:
    doc = conversion_reliability(trees, rules)
    doc["files"] = list(args.trees)
    return write_result(doc, args.json, format_table)


def _read(path, transform):
    """A file's trees, transformed, and the line where each starts."""
    trees, lines = read_sentences(path, layout="trees")
    if transform:
        trees = apply_transforms(trees, transform)
    return trees, lines
