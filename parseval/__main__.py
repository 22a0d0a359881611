"""Command-line entry point: ``parseval <command> ...`` (or ``python -m parseval``; in the platform's checkout
also ``python -m evaluation``, the same commands under their first name).

Each command lives in its own module under ``parseval.evaluation.cli`` exposing
``add_arguments(parser)`` and ``run(args) -> int``; they are imported lazily so
that ``parseval easy`` never pays for the tree code and vice versa.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from parseval.evaluation.threads import one_blas_thread
from parseval.annotations.errors import InputError

SHOWN_PROBLEMS = 20  # a wrong file type gives thousands of problems: the first few say what is wrong

COMMANDS = {
    "easy": ("parseval.evaluation.cli.easy", "score an EASY run against gold"),
    "trees": ("parseval.evaluation.cli.trees", "score constituency trees (evalb, evalb-unlabelled, geig1991, conformance, leaf-ancestor)"),
    "flatten": ("parseval.evaluation.cli.flatten", "flatten trees with flat-key rules"),
    "deps": ("parseval.evaluation.cli.deps", "score dependency parses (CoNLL-U / CoNLL-X)"),
    "convert": ("parseval.evaluation.cli.convert", "convert constituency trees to dependencies with head rules"),
    "transform": ("parseval.evaluation.cli.transform", "apply named treebank transformations"),
    "errors": ("parseval.evaluation.cli.errors", "the error-insertion lab"),
    "ud2easy": ("parseval.evaluation.cli.ud2easy", "convert UD parses (CoNLL-U) into EASY run documents"),
    "combine": ("parseval.evaluation.cli.combine", "combine several runs into a consensus annotation, by weighted vote"),
    "analyse": ("parseval.evaluation.cli.analyse", "break a run's figures down by attributes of its items (buckets)"),
    "reproduce": ("parseval.evaluation.cli.reproduce", "recompute a publication bundle's figures and report any difference"),
}

# Commands whose scoring makes no matrix product unless asked for intervals (--bootstrap): for them numpy's
# BLAS would start a thread per core at import for nothing (0.03 s of CPU, a third of numpy's import and 4 %
# of the evalb preset's time on its 43,054-pair benchmark). Set only where the caller has not set them.
ONE_THREAD = ("trees", "deps")


def plain(text: str) -> str:
    """A docstring as help text: without the reStructuredText literal marks."""
    return text.replace("``", "")


def report(exc: InputError, all_problems: bool) -> str:
    """The error message: every problem, or the first ones and how many more."""
    problems = exc.problems
    shown = problems if all_problems else problems[:SHOWN_PROBLEMS]
    lines = [str(p) for p in shown]
    if len(problems) > len(shown):
        lines.append(f"... and {len(problems) - len(shown)} more problems (--all-problems lists them all)")
    hint = getattr(exc, "hint", None)  # what the command could do instead, set where the command knows
    return "error: " + "\n".join(lines) + (f"\nhint: {hint}" if hint else "")


def main(argv: list[str] | None = None, prog: str = "parseval") -> int:
    """Run one command; ``prog`` is how the help names the command line."""
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog=prog,
                                     description="Score parser output against gold: EASY, constituency trees, "
                                                 f"dependencies. '{prog} COMMAND --help' for each.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    if not argv or argv[0] not in COMMANDS:
        parser.parse_args(argv or ["--help"])
        return 2
    module_name, help_text = COMMANDS[argv[0]]
    if argv[0] in ONE_THREAD and not any(a.split("=", 1)[0] == "--bootstrap" for a in argv):
        one_blas_thread()  # before the command's module imports numpy
    module = importlib.import_module(module_name)
    cmd_parser = argparse.ArgumentParser(prog=f"{prog} {argv[0]}", description=help_text,
                                         epilog=plain(module.__doc__ or ""),
                                         formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(cmd_parser)
    cmd_parser.add_argument("--all-problems", action="store_true",
                            help=f"list every problem of unusable input (default: the first {SHOWN_PROBLEMS})")
    args = cmd_parser.parse_args(argv[1:])
    try:
        return module.run(args)
    except InputError as exc:
        print(report(exc, args.all_problems), file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2


def console() -> None:
    """The ``parseval`` console script."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main(prog="python -m parseval"))
