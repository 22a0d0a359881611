"""``python -m evaluation deps --gold G --test T [--preset conll18] [--json OUT] [--bootstrap N --seed S]``.

Dependency scores. With ``--bootstrap N`` the text ends with the 95% interval of every ratio figure and
the JSON ``totals`` carry ``X_ci: [low, high]`` beside every ratio figure ``X``.
"""
from __future__ import annotations

from parseval.annotations.errors import InputError
from parseval.evaluation.cli.common import add_bootstrap_arguments, bootstrap_intervals, intervals_report, write_result
from parseval.evaluation.deps import conll18


def add_arguments(parser) -> None:
    parser.add_argument("--gold", required=True, help="gold CoNLL-U / CoNLL-X file")
    parser.add_argument("--test", required=True, help="parser output, same format")
    parser.add_argument("--preset", choices=["conll18"],
                        help="conll18: the CoNLL 2018 shared task's thirteen rows (character alignment, "
                             "any tokenisation; the other options do not apply)")
    parser.add_argument("--punct",
                        help="punctuation left out: upos (UPOS PUNCT, default), penn (evalb's Penn tags), "
                             "upos:TAG,TAG or xpos:TAG,TAG (a tag set), none")
    parser.add_argument("--pos", choices=["upos", "xpos", "none"],
                        help="POS column used in the (position, POS, head) triples and per-POS table")
    parser.add_argument("--labels", choices=["full", "universal"],
                        help="relation labels compared whole (full, default) or without their subtype "
                             "(universal: nmod:poss counts as nmod, as in CoNLL 2018)")
    parser.add_argument("--no-labels", action="store_true", help="no LAS / per-label figures")
    parser.add_argument("--no-cycle-check", action="store_true", help="accept dependency cycles in the input")
    parser.add_argument("--per-sentence", action="store_true", help="include per-sentence figures in the JSON")
    parser.add_argument("--json", metavar="OUT", help="write the JSON result here ('-' = standard output)")
    add_bootstrap_arguments(parser)


RAW_TEXT_HINT = ("a parse of the raw text (its own tokenisation and sentence segmentation) is scored with "
                 "--preset conll18, which aligns it with the gold by characters.")

# options of the project's own scorer; the CoNLL 2018 preset has fixed rules for all of them
_OWN_OPTIONS = {"punct": "--punct", "pos": "--pos", "labels": "--labels", "no_labels": "--no-labels",
                "no_cycle_check": "--no-cycle-check", "per_sentence": "--per-sentence", "bootstrap": "--bootstrap"}


def run(args) -> int:
    if args.preset == "conll18":
        given = [flag for name, flag in _OWN_OPTIONS.items() if getattr(args, name)]
        if given:
            raise InputError(f"--preset conll18 has fixed rules (all words, universal relations, cycles "
                             f"refused): {', '.join(given)} cannot be combined with it")
        return write_result(conll18.score_files(args.gold, args.test), args.json, conll18.format_table)
    # imported here: the preset above needs none of them, and the metric registry brings every metric's engine
    from parseval.annotations.conllu import read_conllu
    from parseval.evaluation import metrics
    from parseval.evaluation.deps.metrics import PunctRule

    punct = PunctRule.parse(args.punct or "upos")
    check = not args.no_cycle_check
    gold = read_conllu(args.gold, check_cycles=check)
    test = read_conllu(args.test, check_cycles=check)
    for path, sentences in ((args.gold, gold), (args.test, test)):
        if not sentences:
            raise InputError("empty input: no sentence found", file=path)
    if len(gold) != len(test):
        exc = InputError(f"gold has {len(gold)} sentences, test has {len(test)}: they cannot be paired one to one",
                         file=args.test)
        exc.hint = RAW_TEXT_HINT
        raise exc
    labels = False if args.no_labels else ("universal" if args.labels == "universal" else True)
    metric = metrics.get("dependency")
    result, rows = metric.score_with_rows(gold, test, punct=punct,
                                          pos=None if args.pos == "none" else (args.pos or "upos"),
                                          labels=labels, per_sentence=args.per_sentence)
    result["files"] = {"gold": args.gold, "test": args.test}
    if args.bootstrap:
        bootstrap_intervals(result, metric, rows, args.bootstrap, args.seed)
        return write_result(result, args.json, lambda doc: metric.report(doc) + "\n" + intervals_report(doc, metric))
    return write_result(result, args.json, metric.report)
