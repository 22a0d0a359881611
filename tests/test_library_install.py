"""The scorers as a library: ``pip install`` of the ``parseval/`` folder into a fresh virtual environment
without Django, then its command line on the shipped data, gives what ``python -m evaluation`` gives in
the checkout, byte for byte, for the EASY, trees and dependency examples of the README and docs.

Offline: the library's wheel is built from a copy of the folder with this environment's setuptools, and
its dependencies (lxml, numpy, rapidfuzz, networkx) are wheels repacked from this environment's installed
files; pip installs with ``--no-index`` from those alone. The environment is built once per test process,
under the test ``var/`` folder.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LIBRARY = REPO / "parseval"
CORE = ("lxml", "numpy", "rapidfuzz", "networkx")

# (arguments, what the docs call them): the README's and docs/metrics/easy.md's examples on shipped data
EXAMPLES = [
    (["easy", "--gold", "data/easy-ref/ref", "--run", "data/easy-ref/ref"], "EASY: the gold scored as a run"),
    (["easy", "--gold", "data/easy-ref/ref", "--run", "data/easy-ref/ref", "--bootstrap", "200", "--json", "-"],
     "EASY: the JSON document"),
    (["trees", "--gold", "data/evalb-sample/sample.gld", "--test", "data/evalb-sample/sample.tst", "--metric", "evalb"],
     "trees: evalb's own sample"),
    (["trees", "--gold", "data/evalb-sample/sample.gld", "--test", "data/evalb-sample/sample.tst",
      "--metric", "leaf-ancestor", "--on-error", "skip", "--bootstrap", "200", "--json", "-"],
     "trees: leaf-ancestor with intervals"),
    (["deps", "--gold", "data/ud-french/fr_sequoia-ud-dev.conllu", "--test", "data/ud-french/fr_sequoia-ud-dev.conllu"],
     "deps: Sequoia dev against itself"),
    (["deps", "--gold", "data/ud-french/fr_sequoia-ud-dev.conllu", "--test", "data/ud-french/fr_sequoia-ud-dev.conllu",
      "--preset", "conll18", "--json", "-"], "deps: the CoNLL 2018 figures"),
]


def _repacked_wheel(name: str, out: Path) -> Path:
    """An installed distribution of this environment as a wheel (its files as installed, a fresh RECORD)."""
    dist = importlib.metadata.distribution(name)
    tag = next(line.split(":", 1)[1].strip() for line in dist.read_text("WHEEL").splitlines()
               if line.startswith("Tag:"))
    stem = f"{dist.metadata['Name'].replace('-', '_')}-{dist.version}"
    info = f"{stem}.dist-info"
    target = out / f"{stem}-{tag}.whl"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as whl:
        for file in dist.files:
            path = str(file)
            if path.startswith("..") or "__pycache__" in path or path.endswith((".pyc", "/RECORD", "/INSTALLER",
                                                                                 "/direct_url.json", "/REQUESTED")):
                continue  # scripts outside site-packages, caches and what the installer wrote are not shipped
            data = Path(file.locate()).read_bytes()
            arcname = info + path[path.index("/"):] if path.split("/")[0].endswith(".dist-info") else path
            whl.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            writer.writerow([arcname, f"sha256={digest}", len(data)])
        writer.writerow([f"{info}/RECORD", "", ""])
        whl.writestr(f"{info}/RECORD", record.getvalue())
    return target


# Neither environment sees the other: no PYTHONPATH, no virtual environment or pip settings passed down.
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV"))}


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, timeout=900, env=CLEAN_ENV, **kw)


@pytest.fixture(scope="module")
def library_venv(tmp_path_factory) -> Path:
    base = Path(os.environ.get("PARSEVAL_VAR_DIR") or REPO / "var") / "library-venv"
    shutil.rmtree(base, ignore_errors=True)
    wheels = base / "wheels"
    wheels.mkdir(parents=True)
    # a copy of the folder: building writes build/ and *.egg-info beside the sources
    source = base / "source"
    shutil.copytree(LIBRARY, source, ignore=shutil.ignore_patterns("__pycache__", "*.so", "compiled.json",
                                                                     "build", "*.egg-info"))
    built = _run([sys.executable, "-m", "pip", "wheel", "--isolated", "--no-deps", "--no-build-isolation",
                  "--no-index", "-w", str(wheels), str(source)])
    assert built.returncode == 0, built.stderr.decode()
    for name in CORE:
        _repacked_wheel(name, wheels)
    venv = base / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)])
    assert made.returncode == 0, made.stderr.decode()
    installed = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--isolated", "--no-index",
                      "--find-links", str(wheels), "parseval"])
    assert installed.returncode == 0, installed.stderr.decode()
    return venv


def test_the_library_installs_alone_without_django(library_venv):
    python = str(library_venv / "bin" / "python")
    probe = _run([python, "-c", "import importlib.util, importlib.metadata as m, parseval; "
                                "print(parseval.__file__); print(parseval.__version__, m.version('parseval')); "
                                "print([n for n in ('django', 'celery', 'spacy', 'udtools', 'evaluation', 'campaign') "
                                "if importlib.util.find_spec(n)])"], cwd=library_venv)
    assert probe.returncode == 0, probe.stderr.decode()
    where, versions, absent = probe.stdout.decode().splitlines()
    assert where.startswith(str(library_venv))  # the installed copy, not the checkout's folder
    from parseval.evaluation.version import SCORER_VERSION

    assert versions == f"{SCORER_VERSION} {SCORER_VERSION}"  # the package's version is the scorer's
    assert absent == "[]"
    # an optional part without its extra raises an InputError that says how to get it
    spacy = _run([python, "-c", "from parseval.annotations.spacy_conllu import load_pipeline; "
                                "load_pipeline('fr_core_news_sm')"], cwd=library_venv)
    assert spacy.returncode == 1 and b"pip install 'parseval[spacy]'" in spacy.stderr


@pytest.mark.parametrize("args, what", EXAMPLES, ids=[what for _, what in EXAMPLES])
def test_the_installed_command_line_gives_what_python_m_evaluation_gives(library_venv, args, what):
    checkout = _run([sys.executable, "-m", "evaluation", *args], cwd=REPO)
    library = _run([str(library_venv / "bin" / "parseval"), *args], cwd=REPO)
    assert checkout.returncode == 0, checkout.stderr.decode()
    assert library.returncode == checkout.returncode, library.stderr.decode()
    assert len(checkout.stdout) > 200, what
    assert library.stdout == checkout.stdout, what
    assert library.stderr == checkout.stderr, what


def test_the_api_gives_the_command_lines_figures(library_venv):
    gold, test = (str(REPO / "data/evalb-sample" / name) for name in ("sample.gld", "sample.tst"))
    code = (f"import json, parseval; r = parseval.score_trees({gold!r}, {test!r}, 'leaf-ancestor', on_error='skip', "
            "bootstrap=200); print(json.dumps([parseval.__file__, r.figures, "
            "{k: list(v) for k, v in r.intervals.items()}, r.signature, list(r.rows.shape)]))")
    api = _run([str(library_venv / "bin" / "python"), "-c", code], cwd=library_venv)  # not the checkout's folder
    assert api.returncode == 0, api.stderr.decode()
    where, figures, intervals, signature, shape = json.loads(api.stdout)
    assert where.startswith(str(library_venv))
    doc = json.loads(_run([sys.executable, "-m", "evaluation", "trees", "--gold", gold, "--test", test, "--metric",
                           "leaf-ancestor", "--on-error", "skip", "--bootstrap", "200", "--json", "-"], cwd=REPO).stdout)
    assert signature == doc["signature"]
    assert figures and all(doc["summary"][k.split(".", 1)[1]] == v for k, v in figures.items())
    assert intervals and all(doc["summary"][k.split(".", 1)[1] + "_ci"] == v for k, v in intervals.items())
    assert shape[0] == len(doc["sentences"])


def test_the_package_list_and_the_licence_are_whole():
    config = tomllib.loads((LIBRARY / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    present = {"parseval" + ("." + ".".join(p.parent.relative_to(LIBRARY).parts) if p.parent != LIBRARY else "")
               for p in LIBRARY.rglob("__init__.py")}
    assert listed == present
    assert (LIBRARY / "LICENSE").read_bytes() == (REPO / "LICENSE").read_bytes()
    assert not set(config["project"]["dependencies"]) & {"Django", "celery", "spacy", "udtools"}
