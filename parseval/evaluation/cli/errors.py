"""``python -m evaluation errors --treebank A=FILE --treebank B=FILE [--labels FILE] [--seed N] [--json OUT]``."""
from __future__ import annotations

from parseval.annotations.errors import InputError
from parseval.evaluation.cli.common import write_result
from parseval.evaluation.deps.errorlab import ERROR_TYPES, format_report, load_lab_labels, run_error_lab
from parseval.evaluation.deps.treeio import read_tree_files
from parseval.annotations.trees.transforms import apply_transforms, parse_spec


def add_arguments(parser) -> None:
    parser.add_argument("--treebank", action="append", required=True, metavar="NAME=FILE[,FILE...]",
                        help="a treebank of correct trees; give two for a side-by-side comparison")
    parser.add_argument("--labels", action="append", default=[], metavar="[NAME=]FILE|PRESET",
                        help="label roles (JSON or TOML file, or preset penn/tiger/tueba/ftb); "
                             "NAME= applies it to one treebank only; without it, the preset is chosen from "
                             "each treebank's labels")
    parser.add_argument("--transform", action="append", default=[], metavar="NAME=SPEC",
                        help="transformations applied to one treebank's trees after reading "
                             "(e.g. B=no-np-in-pp); repeatable")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--per-type", type=int, default=100, help="insertions per error type (0 = all places)")
    parser.add_argument("--types", default=None,
                        help="comma-separated subset of: " + ", ".join(ERROR_TYPES))
    parser.add_argument("--json", metavar="OUT", help="write the JSON report here ('-' = standard output)")


def _pair(text: str, what: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise InputError(f"{what} {text!r}: expected NAME=VALUE")
    return name, value


def run(args) -> int:
    banks = {}
    for tb in args.treebank:
        name, files = _pair(tb, "--treebank")
        if name in banks:
            raise InputError(f"--treebank {name!r} given twice")
        banks[name] = files.split(",")
    transforms = {}
    for tr in args.transform:
        name, spec = _pair(tr, "--transform")
        if name not in banks:
            raise InputError(f"--transform {tr!r}: no treebank named {name!r}")
        parse_spec(spec)
        transforms[name] = spec
    labels: dict = {}
    default = None
    for lab in args.labels:
        name, sep, value = lab.partition("=")
        if sep and name in banks:
            labels[name] = load_lab_labels(value)
        else:
            default = load_lab_labels(lab)
    label_map = {name: labels.get(name, default) for name in banks}
    types = ERROR_TYPES
    if args.types:
        types = tuple(t.strip() for t in args.types.split(",") if t.strip())
    trees = {}
    for name, files in banks.items():
        t = read_tree_files(files)
        if name in transforms:
            t = apply_transforms(t, transforms[name])
        trees[name] = t
    result = run_error_lab(trees, label_map, seed=args.seed,
                           per_type=None if args.per_type == 0 else args.per_type, types=types)
    result["files"] = {name: files for name, files in banks.items()}
    if transforms:
        result["transforms"] = transforms
    return write_result(result, args.json, format_report)
