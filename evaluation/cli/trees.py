"""``python -m evaluation trees``: score constituency trees.

    python -m evaluation trees --gold G --test T --metric evalb|geig1991|conformance|leaf-ancestor
        [--format penn|square] [--param FILE] [--costs strict|sampson2003|FILE]
        [--transform SPEC] [--json OUT]

Text report on stdout (evalb's own layout for ``evalb``; a per-sentence table
and a summary for the others); ``--json OUT`` also writes the JSON document
(``-`` for stdout instead of the text). Exit status: 0, 1 when evalb stopped
at MAX_ERROR (after printing the summary), 2 on unusable input.
"""
from __future__ import annotations

import json
import sys

from annotations.trees.transforms import make_transform
from evaluation.trees import METRICS, evalb_params, read_pair, score_trees


def add_arguments(parser) -> None:
    parser.add_argument("--gold", required=True, help="gold trees")
    parser.add_argument("--test", required=True, help="trees to score")
    parser.add_argument("--metric", required=True, choices=METRICS)
    parser.add_argument("--format", choices=("penn", "square"), help="bracket style (detected when omitted)")
    parser.add_argument(
        "--layout", choices=("lines", "trees"),
        help="Penn files: one sentence per line (evalb's layout) or tree by tree (detected when omitted)",
    )
    parser.add_argument(
        "--param", metavar="FILE",
        help="evalb: .prm file (default COLLINS.prm values); geig1991: erasure table (penn, "
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


def run(args) -> int:
    params: dict = {}
    fast = None
    transform = make_transform(args.transform) if args.transform else None
    if transform is not None:
        params["transform"] = transform
    if args.metric == "evalb":
        params["params"] = evalb_params(args.param)
        # evalb's fast path reads text straight into its own structures: no trees to transform.
        fast = params["params"] if transform is None else None
    pair = read_pair(args.gold, args.test, args.metric, fmt=args.format, layout=args.layout, on_error=args.on_error,
                     evalb_params=fast)
    if args.metric == "geig1991":
        if args.param:
            params["table"] = args.param
        if args.rules:
            params["rules"] = args.rules
    elif args.metric == "conformance":
        if args.param or args.rules:
            params["rules"] = args.param or args.rules
    elif args.metric == "leaf-ancestor":
        params["costs"] = args.costs
    doc = score_trees(pair.pop("gold_trees"), pair.pop("test_trees"), args.metric, **pair, **params)
    if args.json != "-":
        sys.stdout.write(format_report(doc))
    if args.json:
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            with open(args.json, "w", encoding="utf-8") as handle:
                handle.write(text)
    for problem in doc["summary"].get("problems", []):
        print(f"warning: {_where(problem)}{problem['message']}", file=sys.stderr)
    for row in doc["sentences"]:
        if row.get("status") == "error" and row.get("message"):
            print(f"{row['index']} : {row['message']}", file=sys.stderr)
    stopped = doc["summary"].get("stopped")
    if stopped:
        print(f"error: {stopped['message']}", file=sys.stderr)
        return 1
    return 0


def _where(problem: dict) -> str:
    parts = [problem.get("file"), f"line {problem['line']}" if problem.get("line") else None]
    text = ", ".join(p for p in parts if p)
    return f"{text}: " if text else ""


def format_report(doc: dict) -> str:
    metric = doc["metric"]
    if metric == "evalb":
        from evaluation.trees.evalb import format_evalb

        return format_evalb(doc)
    lines = [f"# {doc['signature']}\n"]
    s = doc["summary"]
    if metric == "geig1991":
        lines.append("  Sent.  Status  Std  Cand  Match  Recall  Prec.  Cross\n")
        for r in doc["sentences"]:
            if r["status"] != "ok":
                lines.append("%7d  %-6s  %s\n" % (r["index"], r["status"], r.get("message", "")))
                continue
            lines.append(
                "%7d  %-6s %4d  %4d  %5d  %6.3f %6.3f  %5d\n"
                % (r["index"], r["status"], r["standard"], r["candidate"], r["matched"], r["recall"],
                   r["precision"], r["crossing"])
            )
        lines.append("=== Summary ===\n")
        lines.append("Sentences                 = %6d\n" % s["sentences"])
        lines.append("Error sentences           = %6d\n" % s["errors"])
        lines.append("Mean recall               = %6.3f\n" % s["mean_recall"])
        lines.append("Mean precision            = %6.3f\n" % s["mean_precision"])
        lines.append("Mean crossing             = %6.3f\n" % s["mean_crossing"])
        lines.append("Crossing distribution     = %s\n" % ", ".join(
            f"{k}: {v}" for k, v in s["crossing_distribution"].items()))
    elif metric == "conformance":
        lines.append("  Sent.  Status  KeyCons  RespCons  Matched  KCV  Recall  Prec.  Conf.\n")
        for r in doc["sentences"]:
            if r["status"] != "ok":
                lines.append("%7d  %-6s  %s\n" % (r["index"], r["status"], r.get("message", "")))
                continue
            lines.append(
                "%7d  %-6s  %7d  %8d  %7d  %3d  %6.3f %6.3f %6.3f\n"
                % (r["index"], r["status"], r["key"], r["response"], r["matched"], r["violated"], r["recall"],
                   r["precision"], r["conformance"])
            )
        lines.append("=== Summary (pooled) ===\n")
        for key in ("sentences", "errors", "key", "response", "matched", "violated"):
            lines.append("%-25s = %6d\n" % (key.capitalize(), s[key]))
        for key in ("recall", "precision", "conformance"):
            lines.append("%-25s = %6.3f\n" % (key.capitalize(), s[key]))
    else:
        lines.append("  Sent.  Status  Words   LA     GEIG-U  GEIG-L\n")
        for r in doc["sentences"]:
            if r["status"] != "ok":
                lines.append("%7d  %-6s  %s\n" % (r["index"], r["status"], r.get("message", "")))
                continue
            lines.append(
                "%7d  %-6s %5d  %6.3f  %6.3f  %6.3f\n"
                % (r["index"], r["status"], len(r["words"]), r["score"], r["geig_unlabelled_f"], r["geig_labelled_f"])
            )
            for w in r["words"]:
                if w["score"] < 1.0:
                    lines.append("         %-16s %6.3f  gold: %s | test: %s\n" % (w["word"], w["score"], w["gold"], w["test"]))
        lines.append("=== Summary ===\n")
        lines.append("Sentences                 = %6d\n" % s["sentences"])
        lines.append("Error sentences           = %6d\n" % s["errors"])
        lines.append("Words                     = %6d\n" % s["words"])
        lines.append("LA, mean over words       = %6.3f\n" % s["word_mean"])
        lines.append("LA, mean over sentences   = %6.3f\n" % s["sentence_mean"])
        lines.append("GEIG unlabelled F (mean)  = %6.3f\n" % s["geig_unlabelled_f_mean"])
        lines.append("GEIG labelled F (mean)    = %6.3f\n" % s["geig_labelled_f_mean"])
    return "".join(lines)
