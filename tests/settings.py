"""The test suite's settings: the project's, in explicit development mode.

Set in the environment before ``config.settings`` is read, so that the worker
processes the integration tests start (which inherit this environment) agree.
"""
import os
from pathlib import Path

os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")

# Test processes running side by side (pytest -n) each get their own var folder:
# their databases are apart, so two of them number their first run 1 and would
# otherwise store its files under the same path.
_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    _var = Path(os.environ.get("PARSEVAL_VAR_DIR") or Path(__file__).resolve().parent.parent / "var")
    if _var.name != _worker:
        os.environ["PARSEVAL_VAR_DIR"] = str(_var / _worker)

from config.settings import *  # noqa: E402,F401,F403
