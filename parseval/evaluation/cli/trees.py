"""``python -m evaluation trees``: score constituency trees.

    python -m evaluation trees --gold G --test T --metric evalb|evalb-unlabelled|geig1991|conformance|leaf-ancestor
        [--format penn|square] [--param FILE] [--costs strict|sampson2003|FILE]
        [--transform SPEC] [--json OUT] [--bootstrap N --seed S]

Text report on stdout (evalb's own layout for ``evalb``; a per-sentence table
and a summary for the others, whose ratios are percentages with two decimals
as evalb prints them; the JSON keeps fractions); ``--json OUT`` also writes the
JSON document (``-`` for stdout instead of the text). Exit status: 0, 1 when
evalb stopped at MAX_ERROR (after printing the summary), 2 on unusable input.
With ``--bootstrap N`` the text ends with the 95% percentile interval (over N
resamples of the sentences, seeded by ``--seed``) of every ratio figure, and
the JSON document carries ``X_ci: [low, high]`` beside every figure ``X``.
"""
from __future__ import annotations

import shutil
import sys
import tempfile

from parseval.annotations.errors import InputError
from parseval.evaluation import metrics
from parseval.evaluation.cli.common import add_bootstrap_arguments, bootstrap_intervals, intervals_report, write_json
from parseval.evaluation.trees import read_pair, score_trees
from parseval.evaluation.trees.evalb_files import evalb_layout, evalb_files
from parseval.annotations.trees.detect import LayoutCounter


def add_arguments(parser) -> None:
    parser.add_argument("--gold", required=True, help="gold trees")
    parser.add_argument("--test", required=True, help="trees to score")
    parser.add_argument("--metric", required=True, choices=metrics.TREE_METRICS)
    parser.add_argument("--format", choices=("penn", "square"), help="bracket style (detected when omitted)")
    parser.add_argument(
        "--layout", choices=("lines", "trees"),
        help="Penn files: one sentence per line (evalb's layout) or tree by tree (detected when omitted)",
    )
    parser.add_argument(
        "--param", metavar="FILE",
        help="evalb: .prm file (default COLLINS.prm values; evalb-unlabelled: the same, with LABELED 0); geig1991: erasure table (penn, "
        "black1991-example or a JSON file); conformance: flattening rules applied to the gold trees",
    )
    parser.add_argument("--rules", metavar="FILE", help="geig1991: optional rewrite rules (flattening rule language)")
    parser.add_argument("--costs", default="sampson2003", help="leaf-ancestor: strict, sampson2003 or a cost file")
    parser.add_argument(
        "--on-error", choices=("raise", "skip"),
        help="a pair whose words differ or a malformed sentence: stop with an error (raise) or list it as an "
        "error sentence and go on (skip; evalb's behaviour and the default for evalb)",
    )
    parser.add_argument(
        "--transform", metavar="SPEC", default="",
        help="treebank transformations applied to gold and test before scoring, e.g. "
        "'strip-functions,remove-unary' (see: python -m evaluation transform --list)",
    )
    parser.add_argument("--json", metavar="OUT", help="write the JSON document to OUT ('-': stdout)")
    add_bootstrap_arguments(parser)


def run(args) -> int:
    metric = metrics.get(args.metric)
    params = metric.from_args(args)
    transform = None
    if args.transform:
        from parseval.annotations.trees.transforms import make_transform  # head rules and all: only when asked

        transform = make_transform(args.transform)
    if transform is not None:
        params["transform"] = transform
    # evalb's fast path reads text straight into its own structures: no trees to transform.
    fast = params.get("params") if metric.fast_reader and transform is None else None
    if fast is not None and not args.bootstrap:  # intervals need the per-sentence rows in memory

        if not args.layout and (evalb_layout(args.gold, args.format, head_only=True)
                                and evalb_layout(args.test, args.format, test=True, head_only=True)):
            # guessed from the first lines, confirmed while streaming; held back until confirmed
            code = _stream_evalb(args, fast, confirm=True)
            if code is not None:
                return code
        if evalb_layout(args.gold, args.format, args.layout) and evalb_layout(args.test, args.format, args.layout, test=True):
            return _stream_evalb(args, fast)
    try:
        pair = read_pair(args.gold, args.test, args.metric, fmt=args.format, layout=args.layout,
                         on_error=args.on_error, evalb_params=fast)
        doc = score_trees(pair.pop("gold_trees"), pair.pop("test_trees"), args.metric, **pair, **params)
    except InputError as exc:
        if args.on_error is None and metric.defaults.get("on_error", "raise") == "raise":
            exc.hint = ("--on-error skip lists a malformed sentence, or a pair whose words differ, as an error "
                        "sentence and scores the others, as evalb does")
        raise
    if args.bootstrap:
        bootstrap_intervals(doc, metric, metric.rows(doc), args.bootstrap, args.seed)
    if args.json != "-":
        # evalb's own report stays byte for byte evalb's; the intervals come after it
        sys.stdout.write(metric.report(doc) + ("\n" + intervals_report(doc, metric) if args.bootstrap else ""))
    if args.json:
        write_json(doc, args.json, indent=1)
    _warn(doc)
    stopped = doc["summary"].get("stopped")
    if stopped:
        print(f"error: {stopped['message']}", file=sys.stderr)
        return 1
    return 0


def _warn(doc: dict) -> None:
    for problem in doc["summary"].get("problems", []):
        print(f"warning: {_where(problem)}{problem['message']}", file=sys.stderr)
    for row in doc["sentences"]:
        if row.get("status") == "error" and row.get("message"):
            print(f"{row['index']} : {row['message']}", file=sys.stderr)


def _stream_evalb(args, params, confirm: bool = False) -> int | None:
    """evalb on two line-layout files, streamed (flat memory), bytes in and out as evalb does.

    With ``confirm``, the line layout is only a guess from the files' first
    lines: every line is counted as it is read (see ``LayoutCounter``), and the
    output (report, messages, JSON) is held in temporary files (memory up to a
    few MB, then disk) until the end. When both files are in line layout it is
    written out and the exit code returned; otherwise nothing is written and
    the answer is None (the caller then decides as if it had not guessed).
    """
    if confirm:
        out, err = tempfile.SpooledTemporaryFile(max_size=SPOOL), tempfile.SpooledTemporaryFile(max_size=SPOOL)
        layouts = (LayoutCounter(), LayoutCounter())
    else:
        out, err = sys.stdout.buffer, sys.stderr.buffer
        layouts = None

    def report(text: str) -> None:
        out.write(text.encode("utf-8", "surrogateescape"))

    def message(text: str) -> None:  # words as read: Latin-1 bytes come back unchanged, like evalb's stderr
        err.write((text + "\n").encode("utf-8", "surrogateescape"))
        err.flush()

    def warn(text: str) -> None:
        err.write(f"{text}\n".encode("utf-8", "backslashreplace"))

    if not confirm:
        sys.stderr.flush()
    for problem in params.warnings:
        warn(f"warning: {_where(problem.as_dict())}{problem.message}")
    handle = None
    json_write = None
    if args.json == "-":
        json_write = lambda text: out.write(text.encode("utf-8", "backslashreplace"))  # noqa: E731
    elif args.json:
        # a byte that is not UTF-8 is written as the JSON escape \udcXX: valid JSON, and lossless
        handle = tempfile.SpooledTemporaryFile(max_size=SPOOL) if confirm else open(args.json, "wb")
        json_write = lambda text: handle.write(text.encode("utf-8", "backslashreplace"))  # noqa: E731
    try:
        summary = evalb_files(
            args.gold, args.test, params, on_error=args.on_error or "skip",
            report=None if args.json == "-" else report, json_write=json_write, message=message,
            metric=args.metric, layouts=layouts,
        )
        for problem in summary.get("problems", [])[len(params.warnings):]:
            warn(f"warning: {_where(problem)}{problem['message']}")
        stopped = summary.get("stopped")
        if stopped:
            warn(f"error: {stopped['message']}")
        if confirm:
            try:
                confirmed = all(c.layout() == "lines" for c in layouts)
            except InputError:
                confirmed = False  # the whole file is ambiguous: the caller says so
            if not confirmed:
                return None
            if handle is not None:
                with open(args.json, "wb") as target:
                    _copy(handle, target)
            _copy(out, sys.stdout.buffer)
            sys.stdout.flush()
            _copy(err, sys.stderr.buffer)
    finally:
        if handle:
            handle.close()
        out.flush()
        err.flush()
        if confirm:
            out.close()
            err.close()
    return 1 if stopped else 0


SPOOL = 8 << 20


def _copy(spool, target) -> None:
    spool.seek(0)
    shutil.copyfileobj(spool, target)
    target.flush()


def _where(problem: dict) -> str:
    parts = [problem.get("file"), f"line {problem['line']}" if problem.get("line") else None]
    text = ", ".join(p for p in parts if p)
    return f"{text}: " if text else ""


def format_report(doc: dict) -> str:
    """The text report of a tree metric's document (the metric's own layout)."""
    return metrics.get(doc["metric"]).report(doc)
