"""Command-line entry point: ``python -m evaluation <command> ...``.

Each command lives in its own module under ``evaluation.cli`` exposing
``add_arguments(parser)`` and ``run(args) -> int``; they are imported lazily so
that ``python -m evaluation easy`` never pays for the tree code and vice versa.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from annotations.errors import InputError

COMMANDS = {
    "easy": ("evaluation.cli.easy", "score an EASY run against gold"),
    "trees": ("evaluation.cli.trees", "score constituency trees (evalb, geig1991, conformance, leaf-ancestor)"),
    "flatten": ("evaluation.cli.flatten", "flatten trees with flat-key rules"),
    "deps": ("evaluation.cli.deps", "score dependency parses (CoNLL-U / CoNLL-X)"),
    "convert": ("evaluation.cli.convert", "convert constituency trees to dependencies with head rules"),
    "transform": ("evaluation.cli.transform", "apply named treebank transformations"),
    "errors": ("evaluation.cli.errors", "the error-insertion lab"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m evaluation", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    if not argv or argv[0] not in COMMANDS:
        parser.parse_args(argv or ["--help"])
        return 2
    module_name, help_text = COMMANDS[argv[0]]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            print(f"python -m evaluation: command {argv[0]!r} is not available in this build", file=sys.stderr)
            return 2
        raise
    cmd_parser = argparse.ArgumentParser(prog=f"python -m evaluation {argv[0]}", description=help_text)
    module.add_arguments(cmd_parser)
    args = cmd_parser.parse_args(argv[1:])
    try:
        return module.run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
