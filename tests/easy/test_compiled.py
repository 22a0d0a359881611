"""The compiled scoring modules (parseval/annotations/compiled.py): built, never stale, and the same results as Python.

``make install`` compiles them where a C compiler is (16 % less CPU for EASY scoring, docs/architecture.md);
these tests run on what it built, and check that without a compiler the install still succeeds. A module
compiled from an older source must not be imported, and the command's JSON
document must be the same bytes compiled and as plain Python.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import textwrap

from parseval.annotations import compiled
from parseval.annotations.easy.reader import read_document
from benchmarks.easy_corpus import other_writer, perturb
from tests.conftest import REPO_ROOT

FILES = ("general_elda.xml", "mail_10.xml", "oral_delic_1.xml")


def _built_modules() -> tuple[str, ...]:
    spec = importlib.util.spec_from_file_location("build_compiled", REPO_ROOT / "scripts" / "build_compiled.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script.MODULES


def _compiler() -> str | None:
    """The C compiler Python's build would call (``CC``, else the one Python was built with), if installed."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "").split()
    return shutil.which(cc[0]) if cc else None


def test_the_scoring_modules_run_compiled_where_a_compiler_is():
    """What the tests score with is what a deployment runs: where a C compiler is, ``make install`` built
    every module from its current source (a stale one would run as Python, see the tests below); where none
    is, every module runs as plain Python (the install does not fail: the last test)."""
    running = {name: compiled.is_compiled(importlib.import_module(name)) for name in _built_modules()}
    expected = {_compiler() is not None}
    assert running and set(running.values()) == expected, (
        "compiled modules missing or older than their source: run `make install` "
        f"(scripts/build_compiled.py): {running}")


def test_the_install_does_not_fail_without_a_compiler(tmp_path):
    """``make install`` on a machine without a C compiler: the build says so, exits 0, and the modules
    stay plain Python (tried on a copy of the sources, with a compiler that does not exist)."""
    shutil.copytree(REPO_ROOT / "parseval", tmp_path / "parseval",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "compiled.json"))
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO_ROOT / "scripts" / "build_compiled.py", tmp_path / "scripts")
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc"), "LDSHARED": str(tmp_path / "no-such-cc")}
    proc = subprocess.run([sys.executable, str(tmp_path / "scripts" / "build_compiled.py"), "--force"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "compiled modules not built" in proc.stderr and "plain Python" in proc.stderr
    assert not list((tmp_path / "parseval").rglob("*.so")) and not list((tmp_path / "parseval").rglob("compiled.json"))


def _package(tmp_path, manifest: dict | None):
    """A package ``pkg`` whose module ``mod`` has a source and, beside it, an 'extension module' that is not
    one (loading it fails): importing ``pkg.mod`` works only if the source is imported."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "mod.py").write_text("WHERE = 'source'\n")
    from importlib.machinery import EXTENSION_SUFFIXES
    (pkg / ("mod" + EXTENSION_SUFFIXES[0])).write_bytes(b"not a shared object")
    if manifest is not None:
        (pkg / compiled.MANIFEST).write_text(json.dumps(manifest))
    return pkg


def _import_in_child(tmp_path, env=None) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(tmp_path)!r}, {str(REPO_ROOT)!r}]
        from parseval.annotations import compiled
        compiled.guard("pkg", {str(tmp_path / "pkg")!r})
        import pkg.mod
        print(pkg.mod.WHERE)
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, **(env or {})})


def test_a_module_compiled_from_another_source_is_imported_from_its_source(tmp_path):
    pkg = _package(tmp_path, {"mod": "0" * 64})
    proc = _import_in_child(tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "source", proc.stderr
    assert not compiled.is_fresh(pkg / "mod.py")


def test_without_a_manifest_the_extension_counts_as_stale(tmp_path):
    pkg = _package(tmp_path, None)
    assert not compiled.is_fresh(pkg / "mod.py")
    proc = _import_in_child(tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "source", proc.stderr


def test_a_fresh_extension_is_the_one_imported(tmp_path):
    """The guard leaves a fresh extension to Python's own import, which takes it before the source: here
    the fake one, which fails to load (so the guard really did step aside)."""
    pkg = _package(tmp_path, None)
    (pkg / compiled.MANIFEST).write_text(json.dumps({"mod": compiled.source_sha256(pkg / "mod.py")}))
    assert compiled.is_fresh(pkg / "mod.py")
    proc = _import_in_child(tmp_path)
    assert proc.returncode != 0 and "ImportError" in proc.stderr
    # and PARSEVAL_PURE_PYTHON sends even a fresh one to its source
    proc = _import_in_child(tmp_path, {compiled.PURE_ENV: "1"})
    assert proc.returncode == 0 and proc.stdout.strip() == "source", proc.stderr


def test_pure_python_and_compiled_give_the_same_document(easy_ref, tmp_path):
    """The command on real gold and a realistic run (perturbed, written by lxml in other shapes), compiled
    and as plain Python: the same JSON bytes, and the child processes ran what they claim."""
    gold, run = tmp_path / "gold", tmp_path / "run"
    gold.mkdir()
    run.mkdir()
    rnd = random.Random(11)
    for k, name in enumerate(FILES):
        shutil.copy(easy_ref / name, gold / name)
        doc = read_document(easy_ref / name, gold=True)
        (run / name).write_bytes(other_writer([perturb(s, rnd) for s in doc.sentences], name,
                                              single_quotes=k == 1))
    out = {}
    for label, env in (("compiled", {}), ("python", {compiled.PURE_ENV: "1"})):
        proc = subprocess.run(
            [sys.executable, "-c", "import sys, runpy, importlib; from parseval.annotations.compiled import is_compiled; "
             f"print(sorted({{is_compiled(importlib.import_module(m)) for m in {_built_modules()!r}}})); "
             "sys.argv = ['evaluation'] + sys.argv[1:]; runpy.run_module('evaluation', run_name='__main__')",
             "easy", "--gold", str(gold), "--run", str(run), "--json", str(tmp_path / f"{label}.json"),
             "--bootstrap", "50"],
            capture_output=True, text=True, cwd=REPO_ROOT, env={**os.environ, **env})
        assert proc.returncode == 0, proc.stderr
        out[label] = (proc.stdout.splitlines()[0], (tmp_path / f"{label}.json").read_bytes())
    assert out["compiled"][0] == "[True]" and out["python"][0] == "[False]"
    assert out["compiled"][1] == out["python"][1]
    assert json.loads(out["python"][1])["cells"]  # a real document, not two empty ones
