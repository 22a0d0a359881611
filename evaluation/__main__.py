"""``python -m evaluation``: the library's command line (``parseval``, :mod:`parseval.__main__`) under its old name."""
import sys

from parseval.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
