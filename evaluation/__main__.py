"""``python -m evaluation``: the library's command line (:mod:`parseval.__main__`) under its first name, so that
the commands of the README and the docs work as they always have in the platform's checkout."""
import sys

from parseval.__main__ import main as _main


def main(argv: list[str] | None = None) -> int:
    return _main(argv, prog="python -m evaluation")


if __name__ == "__main__":
    sys.exit(main())
