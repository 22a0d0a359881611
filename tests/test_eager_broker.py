"""With no broker configured, tasks run in process and kombu has nothing to warn about."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

PROBE = """
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from config.celery import app
print(app.conf.task_always_eager, app.connection_for_write().as_uri())
"""


def test_no_broker_means_eager_and_no_kombu_hostname_warning(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_")}
    env.update(PARSEVAL_VAR_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "memory://:**@localhost//"]
    # before: Celery fell back to amqp:// and kombu logged "No hostname was supplied. Reverting to default 'localhost'"
    assert "hostname" not in proc.stderr, proc.stderr
