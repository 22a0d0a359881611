"""``python -m evaluation easy``: score an EASY run against gold.

GOLD and RUN are files or folders of ``.xml`` files, paired by base name;
two files are paired whatever their names. A gold document without a run
file is an error that lists them (``--allow-missing`` scores them as empty
output and says so). A document's genre is its file name up to the first ``_`` unless ``--genres``
maps names to genres. Prints the per-genre x per-type F table for one way
and the table of pooled relation F for every mode and range function;
``--json OUT`` writes the full result document.

A problem names its file as the command line gave it (``gold/general_elda.xml``, not
``general_elda.xml``): a gold file and a run file share their base name, by design.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from parseval.annotations.easy.reader import document_key, read_document
from parseval.annotations.easy.schema import DEFAULT_SCHEMA, EasySchema
from parseval.annotations.errors import InputError, Problem
from parseval.evaluation.cli.common import write_json
from parseval.evaluation.easy.files import gold_sha256, list_xml, pair_files, read_genres
from parseval.evaluation.easy.ranges import MATCHES, MODES
from parseval.evaluation.easy.report import genre_type_table, intervals_table, ways_table
from parseval.evaluation.easy.scoring import DEFAULT_BOOTSTRAP, DEFAULT_SEED, score_corpus


def _names(value: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    items = tuple(v.strip().upper() for v in value.split(",") if v.strip())
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise InputError(f"unknown {what} {', '.join(bad) or value!r} (expected a comma-separated list of "
                         f"{', '.join(allowed)})")
    return tuple(dict.fromkeys(items))


def add_arguments(parser) -> None:
    parser.add_argument("--gold", required=True, help="gold EASY file or folder")
    parser.add_argument("--run", required=True,
                        help="run EASY file or folder (paired with gold by base name; two files are paired as given)")
    parser.add_argument("--allow-missing", action="store_true",
                        help="score gold documents without a run file as empty output (default: an error)")
    parser.add_argument("--match", default=",".join(MATCHES),
                        help="range functions, comma-separated (default: all five)")
    parser.add_argument("--mode", default=",".join(MODES), help="relation modes, comma-separated (default: all three)")
    parser.add_argument("--bootstrap", type=int, default=DEFAULT_BOOTSTRAP,
                        help=f"bootstrap resamples for the 95%% intervals, 0 to skip (default {DEFAULT_BOOTSTRAP})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    parser.add_argument("--genres", help="genre map: JSON object or lines 'name genre'")
    parser.add_argument("--corpus", help="corpus text (EASY files with forms only) to validate run sentences without gold")
    parser.add_argument("--schema", help="annotation schema as JSON (default: the EASY schema)")
    parser.add_argument("--json", dest="json_out", metavar="OUT",
                        help="write the result document to this file ('-' = standard output, instead of the tables)")


def _load_schema(path) -> EasySchema:
    if not path:
        return DEFAULT_SCHEMA
    try:
        return EasySchema.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise InputError(f"schema is not valid JSON: {exc.msg}", file=Path(path).name, line=exc.lineno) from None
    except ValueError as exc:
        raise InputError(str(exc), file=Path(path).name) from None


def run(args) -> int:
    matches = _names(args.match, MATCHES, "range function")
    modes = _names(args.mode, MODES, "mode")
    if args.bootstrap < 0:
        raise InputError("--bootstrap must be >= 0")
    schema = _load_schema(args.schema)
    gold_files = list_xml(args.gold)
    run_files = list_xml(args.run)
    if Path(args.gold).is_file() and Path(args.run).is_file():
        # one gold file and one run file: the user paired them, whatever their names
        pairs, unpaired = [(document_key(gold_files[0].name), gold_files[0], run_files[0])], []
    else:
        pairs, unpaired, _ = pair_files(gold_files, run_files)
    missing = [(k, g) for k, g, r in pairs if r is None]
    if missing and not args.allow_missing:
        raise InputError([Problem(f"no run file for gold document {k} (--allow-missing scores it as empty output)",
                                  file=g.name) for k, g in missing])
    genres = read_genres(args.genres) if args.genres else None
    gold_docs = gold_files  # read one at a time, when its run comes: the gold is never held whole
    run_docs = [(k, r) for k, _, r in pairs if r is not None] + [(document_key(p.name), p) for p in unpaired]
    run_docs = [(k, r if document_key(r.name) == k else read_document(r, schema=schema, gold=False, strict=False))
                for k, r in run_docs]  # read under its own name, so that messages name the file given
    corpus = None
    if args.corpus:
        corpus = {document_key(p.name): read_document(p, schema=schema, gold=True) for p in list_xml(args.corpus)}
    try:
        result = score_corpus(
            gold_docs, dict(run_docs), genres, matches=matches, modes=modes, bootstrap=args.bootstrap,
            seed=args.seed, gold_sha256=gold_sha256(gold_files), schema=schema, corpus=corpus,
        )
    except InputError as exc:
        raise InputError(named_as_given(exc.problems, gold_files, [r for _, r in run_docs if isinstance(r, Path)],
                                        schema)) from None
    if args.json_out == "-":
        write_json(result, "-", indent=1)
        return 0
    _write_tables(result, matches, modes, missing, bool(args.json_out))
    if args.json_out:
        write_json(result, args.json_out, indent=1)
    return 0


def named_as_given(problems: list[Problem], gold_files: list[Path], run_files: list[Path],
                   schema: EasySchema) -> list[Problem]:
    """``problems`` with each file named by its path as given. The scorer names a file by its base name,
    which a gold file and its run file share: where both have the name, the file is the gold one if the
    gold file is itself unreadable (the scorer stops at a bad gold file before any run problem), else the
    run's."""
    gold = {p.name: p for p in gold_files}
    run = {p.name: p for p in run_files}
    gold_is_bad: dict[str, bool] = {}

    def bad(name: str) -> bool:
        if name not in gold_is_bad:
            try:
                read_document(gold[name], schema=schema, gold=True, strict=True)
                gold_is_bad[name] = False
            except (InputError, OSError, UnicodeDecodeError):
                gold_is_bad[name] = True
        return gold_is_bad[name]

    for problem in problems:
        name = problem.file
        if name in gold and name in run and gold[name] != run[name]:
            problem.file = str(gold[name] if bad(name) else run[name])
        elif name in gold or name in run:
            problem.file = str(gold.get(name) or run[name])
    return problems


def _write_tables(result: dict, matches, modes, missing: list, json_written: bool) -> None:
    out = sys.stdout
    out.write(f"{result['signature']}\n")
    out.write(f"gold sha256 {result['gold_sha256']}\n\n")
    if result["layers_submitted"]["constituents"]:
        out.write(genre_type_table(result, "constituents", None, matches[0]) + "\n")
    else:
        out.write("constituents: not submitted\n\n")
    if result["layers_submitted"]["relations"]:
        out.write(genre_type_table(result, "relations", modes[0], matches[0]) + "\n")
    else:
        out.write("relations: not submitted\n\n")
    out.write(ways_table(result))
    intervals = intervals_table(result)
    if intervals:
        out.write("\n" + intervals)
    if missing:
        out.write(f"\n{len(missing)} gold document(s) without a run file, scored as empty output "
                  f"(--allow-missing): {', '.join(k for k, _ in missing)}\n")
    if result["warnings"]:
        out.write(f"\n{len(result['warnings'])} warning(s)")
        out.write(" (see the JSON document)\n" if json_written else ":\n")
        if not json_written:
            for w in result["warnings"][:20]:
                out.write(f"  {_where(w)}{w['message']}\n")


def _where(warning: dict) -> str:
    """``gold mail_10.xml, line 12, sentence E3, E3R2: `` — which side, then where."""
    labels = {"line": "line ", "sentence": "sentence "}
    parts = [f"{labels.get(k, '')}{warning[k]}" for k in ("file", "line", "sentence", "element") if warning.get(k)]
    side = warning.get("side")
    where = ", ".join(parts)
    if side:
        where = f"{side} {where}" if where else side
    return f"{where}: " if where else ""
