"""``python -m evaluation analyse --kind easy|trees|deps --gold G --run R [--against R2] [--by ATTRIBUTE]``.

A run's figures broken down by attributes of its items (one table per attribute: counts, the figures and
their bootstrap interval); with ``--against``, the difference of two runs in every bucket with the
comparison's paired test; with ``--confusions``, the confusion tables; with ``--common``, the errors the
runs share and those only one makes. ``--json OUT`` writes the document. The attributes, the arithmetic and
the JSON schema are in docs/metrics/analysis.md.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from parseval.annotations.errors import InputError
from parseval.evaluation import bucket_pairs, buckets, paired
from parseval.evaluation.stats import DEFAULT_SEED

KINDS = ("easy", "trees", "deps")


def _kind_module(kind: str):
    from importlib import import_module
    return import_module({"easy": "parseval.evaluation.easy.buckets", "trees": "parseval.evaluation.trees.buckets",
                          "deps": "parseval.evaluation.deps.buckets"}[kind])


def add_arguments(parser) -> None:
    for kind in KINDS:
        _kind_module(kind)  # registers the kind's attributes, listed in the help
    names = "; ".join(f"{kind}: " + ", ".join(a.name for a in buckets.attributes_for(kind)) for kind in KINDS)
    parser.add_argument("--kind", required=True, choices=KINDS, help="the kind of annotation")
    parser.add_argument("--gold", required=True, help="gold: EASY file or folder, tree file, CoNLL-U file")
    parser.add_argument("--run", required=True, help="the run to analyse, same format (EASY: paired by file name)")
    parser.add_argument("--against", metavar="RUN2", help="a second run on the same gold: the difference of the "
                                                          "two in every bucket, with the paired test")
    parser.add_argument("--also", action="append", metavar="RUN", default=[],
                        help="more runs for --common (repeatable)")
    parser.add_argument("--by", action="append", metavar="ATTRIBUTE",
                        help=f"an attribute to break the figures down by (repeatable; default: all of the kind's: "
                             f"{names})")
    parser.add_argument("--genres", metavar="FILE",
                        help="genres, a JSON object or lines 'name genre': EASY, document names (as the easy command; "
                             "default: the file name up to the first _) or document/sentence ids; deps, sent_ids "
                             "(or 1-based numbers); trees, 1-based sentence numbers. The intervals and the paired "
                             "tests resample within each genre")
    parser.add_argument("--confusions", action="store_true", help="print (and write) the confusion tables")
    parser.add_argument("--common", action="store_true",
                        help="the errors that most of the runs (--run, --against, --also) make, and those of one run")
    parser.add_argument("--punct", help="deps: punctuation left out, as in the deps command (default upos)")
    parser.add_argument("--labels", choices=["full", "universal"], help="deps: relations compared whole (default) "
                                                                        "or without their subtype")
    parser.add_argument("--no-cycle-check", action="store_true", help="deps: accept dependency cycles in the input")
    parser.add_argument("--param", metavar="FILE", help="trees: evalb .prm file (default: COLLINS.prm's values)")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="resamples of the sentences for the 95%% intervals (default 1000; 0: none)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="S",
                        help=f"seed of the resampling, intervals and paired tests (default {DEFAULT_SEED})")
    parser.add_argument("--method", choices=paired.METHODS, default="bootstrap",
                        help="--against: the paired test (default bootstrap, as the comparison page)")
    parser.add_argument("--resamples", type=int, default=paired.DEFAULT_RESAMPLES, metavar="N",
                        help=f"--against: resamples or shuffles of the paired test (default {paired.DEFAULT_RESAMPLES})")
    parser.add_argument("--alpha", type=float, default=paired.ALPHA, help="--against: the tests' level (default 0.05)")
    parser.add_argument("--effect", type=float, default=bucket_pairs.DEFAULT_EFFECT,
                        help="--against: a bucket whose minimum detectable effect is above this (a fraction; default "
                             "0.02) reads 'too few to tell' rather than 'no difference'")
    parser.add_argument("--json", metavar="OUT", help="write the JSON document here ('-' = standard output)")


def _genres(path) -> dict[str, str] | None:
    """A genre file: a JSON object ``{name: genre}`` or lines ``name genre`` (``#`` comments), as the ``easy``
    command reads its genre map, but with the names kept as written (a ``document/sentence id`` or a
    ``sent_id`` is not a file name); a trailing ``.xml`` of an EASY document name is left out."""
    if not path:
        return None
    text = Path(path).read_text(encoding="utf-8")
    name = Path(path).name
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"genre map is not valid JSON: {exc.msg}", file=name, line=exc.lineno) from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise InputError("genre map must be a JSON object of strings", file=name)
        pairs = list(data.items())
    else:
        pairs = []
        for n, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise InputError(f"expected 'name genre', found {line!r}", file=name, line=n)
            pairs.append((parts[0], parts[1]))
    return {(k[:-4] if k.lower().endswith(".xml") else k): v for k, v in pairs}


def _counter(args, kind: str):
    """A function from a run's path to its :class:`buckets.Counts`, with the command's options."""
    module = _kind_module(kind)
    genres = _genres(args.genres)
    errors = bool(args.common)
    if kind == "easy":
        sentence_genres = {k: v for k, v in (genres or {}).items() if "/" in k} or None
        documents = {k: v for k, v in (genres or {}).items() if "/" not in k} or None
        return lambda run: module.count(args.gold, run, by=args.by, genres=documents, sentence_genres=sentence_genres,
                                        errors=errors, bootstrap=args.bootstrap, seed=args.seed)
    if kind == "deps":
        from parseval.annotations.conllu import read_conllu
        check = not args.no_cycle_check
        gold = read_conllu(args.gold, check_cycles=check)
        if not gold:
            raise InputError("empty input: no sentence found", file=args.gold)
        keys = [s.sent_id or str(k + 1) for k, s in enumerate(gold)]
        strata = _per_sentence(genres, keys, args.genres)

        def deps(run):
            test = read_conllu(run, check_cycles=check)
            if not test:
                raise InputError("empty input: no sentence found", file=run)
            if len(gold) != len(test):
                raise InputError(f"gold has {len(gold)} sentences, the run has {len(test)}: they cannot be paired "
                                 "one to one", file=run)
            return module.count(gold, test, by=args.by, punct=args.punct or "upos",
                                labels="universal" if args.labels == "universal" else True, strata=strata, keys=keys,
                                errors=errors)
        return deps

    def trees(run):
        pair = module.read(args.gold, run)
        gold, test = pair["gold_trees"], pair["test_trees"]
        if not gold:
            raise InputError("empty input: no sentence found", file=args.gold)
        strata = _per_sentence(genres, [str(k + 1) for k in range(len(gold))], args.genres)
        return module.count(gold, test, params=args.param, by=args.by, strata=strata, errors=errors)
    return trees


def _per_sentence(genres, keys: list[str], path) -> list[str] | None:
    if genres is None:
        return None
    missing = [k for k in keys if k not in genres]
    if missing:
        raise InputError(f"no genre for {len(missing)} sentence(s): {', '.join(missing[:10])}", file=path)
    return [genres[k] for k in keys]


def run(args) -> int:
    if args.bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    if args.common and not (args.against or args.also):
        raise InputError("--common needs at least two runs (--against or --also)")
    kind = args.kind
    module = _kind_module(kind)
    if args.by:
        for name in args.by:
            buckets.get(kind, name)
    counter = _counter(args, kind)
    counts = counter(args.run)
    options = {"bootstrap": args.bootstrap, "seed": args.seed, "confusions": args.confusions}
    doc = module.document(counts, **options)
    files = {"gold": args.gold, "run": args.run}
    other = None
    if args.against:
        other = counter(args.against)
        doc["pairwise"] = bucket_pairs.compare(counts, other, by=args.by, method=args.method,
                                               resamples=args.resamples, seed=args.seed, alpha=args.alpha,
                                               effect=args.effect, names=_names(args.run, args.against))
        files["against"] = args.against
    if args.common:
        from parseval.evaluation.confusions import common_errors
        runs = [counts] + ([other] if other is not None else []) + [counter(p) for p in args.also]
        paths = [args.run] + ([args.against] if args.against else []) + list(args.also)
        doc["common_errors"] = common_errors([c.errors for c in runs], names=_names(*paths))
        files["also"] = list(args.also)
    doc["files"] = files
    if args.json:
        write_document(doc, args.json)
    if args.json != "-":
        sys.stdout.write(format_document(doc, module))
    return 0


def write_document(doc: dict, target: str) -> None:
    """The document as compact JSON (its sentence lists make an indented one several times larger), streamed
    to the file ``target`` ('-': standard output) without building the whole text in memory."""
    if target == "-":
        json.dump(doc, sys.stdout, ensure_ascii=False, separators=(",", ":"))
        sys.stdout.write("\n")
        return
    with open(target, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")


def _names(*paths) -> list[str]:
    """Short names of runs for the tables: file or folder names, made unique."""
    names = [Path(p).name or str(p) for p in paths]
    return names if len(set(names)) == len(names) else [str(p) for p in paths]


def format_document(doc: dict, module=None) -> str:
    """The tables of an analysis document: buckets, then pairwise, confusions and common errors if present."""
    module = module or _kind_module(doc["kind"])
    text = module.format_tables(doc) if hasattr(module, "format_tables") else buckets.format_span_tables(doc)
    if "pairwise" in doc:
        text += "\n" + bucket_pairs.format_pairs(doc["pairwise"])
    if "confusions" in doc:
        text += buckets.format_confusions(doc["confusions"])
    if "common_errors" in doc:
        text += _format_common(doc["common_errors"], doc.get("sentence_ids") or [])
    return text


def _format_common(section: dict, ids: list[str], shown: int = 15) -> str:
    lines = ["", f"common errors of {len(section['runs'])} runs: {section['errors']} distinct errors, "
                 f"{section['hard_for_everyone']} made by at least {section['threshold']} runs (hard for everyone); "
                 "of a single run: " + ", ".join(f"{n} {k}" for n, k in section["single_run"].items())]
    for e in section["hard"][:shown]:
        where = ids[e["sentence"]] if e["sentence"] < len(ids) else e["sentence"]
        lines.append(f"  {where}  {e['what']:<9} {e['item']}  ({len(e['runs'])} runs)")
    lines.append("per label (errors, hard for everyone, of one run):")
    for entry in section["labels"][:shown]:
        lines.append(f"  {entry['label']:<12}{entry['errors']:>7}{entry['hard']:>7}{entry['single']:>7}")
    return "\n".join(lines) + "\n"
