"""Compile the hottest scoring modules with Cython, in place (see ``parseval/annotations/compiled.py``).

Run by ``make install``; does nothing for a module whose extension was built
from its current source. The source is compiled as it is: its annotations
are not read as C types (``annotation_typing=False``), so the compiled module
behaves as the Python one, name for name. Without Cython or a C compiler it
says so and leaves the modules plain Python (exit status 0: scoring works
either way, about a tenth slower).

    .venv/bin/python scripts/build_compiled.py [--force]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parseval.annotations.compiled import MANIFEST, built_from, is_fresh, source_sha256  # noqa: E402

# run once per sentence of a corpus (evalb_scan: over every byte of the evalb preset's files, with C types
# declared by Cython's pure-Python names); each package's guard finds whatever was built beside its sources
MODULES = ("parseval.annotations.easy.canonical", "parseval.annotations.easy.bytescan",
           "parseval.evaluation.easy.ranges", "parseval.evaluation.easy.matching",
           "parseval.evaluation.easy.counting", "parseval.evaluation.trees.evalb_scan")


def source_of(name: str) -> Path:
    return ROOT / (name.replace(".", "/") + ".py")


DIRECTIVES = {"language_level": 3, "binding": True, "annotation_typing": False}


def build(names: list[str]) -> None:
    from Cython.Build import cythonize
    from setuptools import Extension, setup

    with tempfile.TemporaryDirectory() as tmp:
        extensions = [Extension(name, [str(source_of(name))]) for name in names]
        setup(name="parseval-compiled", script_args=["--quiet", "build_ext", "--inplace", "--parallel", "2",
                                                    "--build-temp", tmp],
              ext_modules=cythonize(extensions, build_dir=tmp, compiler_directives=DIRECTIVES, nthreads=2,
                                    quiet=True, force=True))


def record(names: list[str]) -> None:
    """Each package's manifest: the SHA-256 of the source each extension was built from."""
    for name in names:
        source = source_of(name)
        built = built_from(source.parent)
        built[source.stem] = source_sha256(source)
        (source.parent / MANIFEST).write_text(json.dumps(built, indent=1, sort_keys=True) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", action="store_true", help="rebuild every module")
    args = ap.parse_args(argv)
    stale = [n for n in MODULES if args.force or not is_fresh(source_of(n))]
    if not stale:
        print("compiled modules: up to date")
        return 0
    print("compiling " + ", ".join(stale) + " ...", flush=True)
    try:
        build(stale)
    except (SystemExit, Exception) as exc:  # no Cython, no compiler: plain Python still scores
        print(f"compiled modules not built ({exc}); scoring runs as plain Python", file=sys.stderr)
        return 0
    record(stale)
    print("compiled modules: built " + ", ".join(stale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
