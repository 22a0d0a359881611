"""Worker processes keep numpy's BLAS to one thread each (config/celery.py): the process is the unit of
parallelism, and a thread per core in every process would contend for the cores."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBE = "import sys, os, config; print('numpy' in sys.modules, os.environ.get('OPENBLAS_NUM_THREADS'), " \
        "os.environ.get('OMP_NUM_THREADS'))"


def _probe(**extra) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.update(extra)
    return subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_loading_the_celery_app_sets_one_blas_thread_before_numpy_is_imported():
    assert _probe() == "False 1 1"


def test_a_deployment_s_own_thread_count_stands():
    assert _probe(OPENBLAS_NUM_THREADS="4") == "False 4 1"


CLI_PROBE = ("import os, sys; from parseval.__main__ import main; main(sys.argv[1:]); "
             "print(os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('OMP_NUM_THREADS'))")


def _cli(*argv: str, **extra) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.update(extra)
    return subprocess.run([sys.executable, "-c", CLI_PROBE, *argv], cwd=REPO, env=env, capture_output=True,
                          text=True).stdout.strip().splitlines()[-1]


def test_the_scoring_commands_start_numpy_with_one_blas_thread_unless_asked_for_intervals(tmp_path):
    """``trees`` and ``deps`` make no matrix product without --bootstrap: the thread pool would be start-up
    time for nothing (parseval/__main__.py)."""
    missing = str(tmp_path / "missing")
    assert _cli("trees", "--gold", missing, "--test", missing, "--metric", "evalb") == "1 1"
    assert _cli("deps", "--gold", missing, "--test", missing, "--preset", "conll18") == "1 1"
    assert _cli("deps", "--gold", missing, "--test", missing, "--bootstrap", "10") == "None None"
    assert _cli("trees", "--gold", missing, "--test", missing, "--metric", "evalb", "--bootstrap=10") == "None None"
    assert _cli("easy", "--gold", missing, "--run", missing) == "None None"
    assert _cli("deps", "--gold", missing, "--test", missing, OPENBLAS_NUM_THREADS="3") == "3 1"
