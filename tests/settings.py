"""The test suite's settings: the project's, in explicit development mode.

Set in the environment before ``config.settings`` is read, so that the worker
processes the integration tests start (which inherit this environment) agree.
"""
import os

os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")

from config.settings import *  # noqa: E402,F401,F403
