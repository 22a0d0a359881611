"""``python -m evaluation deps --gold G --test T [--json OUT]``: dependency scores."""
from __future__ import annotations

from annotations.conllu import read_conllu
from evaluation.cli.common import write_result
from evaluation.deps.metrics import PunctRule, format_table, score_dependencies


def add_arguments(parser) -> None:
    parser.add_argument("--gold", required=True, help="gold CoNLL-U / CoNLL-X file")
    parser.add_argument("--test", required=True, help="parser output, same format")
    parser.add_argument("--punct", default="upos",
                        help="punctuation left out: upos (UPOS PUNCT, default), penn (evalb's Penn tags), "
                             "upos:TAG,TAG or xpos:TAG,TAG (a tag set), none")
    parser.add_argument("--pos", choices=["upos", "xpos", "none"], default="upos",
                        help="POS column used in the (position, POS, head) triples and per-POS table")
    parser.add_argument("--no-labels", action="store_true", help="no LAS / per-label figures")
    parser.add_argument("--no-cycle-check", action="store_true", help="accept dependency cycles in the input")
    parser.add_argument("--per-sentence", action="store_true", help="include per-sentence figures in the JSON")
    parser.add_argument("--json", metavar="OUT", help="write the JSON result here ('-' = standard output)")


def run(args) -> int:
    punct = PunctRule.parse(args.punct)
    check = not args.no_cycle_check
    gold = read_conllu(args.gold, check_cycles=check)
    test = read_conllu(args.test, check_cycles=check)
    result = score_dependencies(gold, test, punct=punct, pos=None if args.pos == "none" else args.pos,
                                labels=not args.no_labels, per_sentence=args.per_sentence)
    result["files"] = {"gold": args.gold, "test": args.test}
    return write_result(result, args.json, format_table)
