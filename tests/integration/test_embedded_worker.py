"""The embedded default scores in a worker beside the server, not inside the upload request.

``make demo`` serves ``manage.py serve_embedded``: Django's server with Celery workers
beside it, on kombu's filesystem transport and SQLite (docs/deployment.md). This test
runs that command as the Makefile does, on a var folder of its own, with its workers
frozen (SIGSTOP) while a team uploads: the upload must still be answered, with the run
not yet scored and its task waiting as a file of the broker. Once the workers go on,
the run reaches its final state, scored once. Scoring inside the request (the eager
mode the embedded default had) answers only after scoring, so the run would already
be final when the answer comes.

No PostgreSQL or Redis here: the server, its workers and this test share the SQLite
file, which the test reads directly.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration

FINAL = {"scored", "invalid", "failed"}
WAIT_SECONDS = 180

SETUP = """
import json
from rest_framework.authtoken.models import Token
from tests import factories
campaign = factories.make_easy_campaign(slug="embedded")
user = factories.make_user("team-embedded")
factories.make_team(campaign, user, name="Embedded team")
open({run_zip!r}, "wb").write(factories.gold_run_zip())  # the gold itself: a valid run
print("JSON:" + json.dumps({{"slug": campaign.slug, "token": Token.objects.create(user=user).key}}))
"""


def embedded_env(var: Path) -> dict:
    """``make demo``'s environment: development mode, nothing else named (SQLite in the var folder)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CELERY_", "PARSEVAL_")) and k not in ("DATABASE_URL", "CACHE_URL")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", PARSEVAL_DEVELOPMENT="1", PARSEVAL_VAR_DIR=str(var))
    return env


def manage(env: dict, *args: str) -> str:
    proc = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> list[int]:
    out = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        out += [int(child), *descendants(int(child))]
    return out


def run_status(var: Path, run_id: int) -> tuple[str, int]:
    with sqlite3.connect(var / "db.sqlite3", timeout=20) as db:
        status, = db.execute("SELECT status FROM campaign_run WHERE id = ?", (run_id,)).fetchone()
        results, = db.execute("SELECT count(*) FROM evaluation_result WHERE run_id = ?", (run_id,)).fetchone()
    return status, results


def wait_until(condition, seconds: float, what: str, log: Path):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"{what} within {seconds:.0f} s; the server's and workers' log:\n{log.read_text()[-4000:]}")


@pytest.fixture
def embedded(tmp_path):
    """``manage.py serve_embedded`` as ``make demo`` runs it, on a migrated var folder with a campaign, a team and
    its token."""
    var = tmp_path / "var"
    env = embedded_env(var)
    manage(env, "migrate", "--noinput", "-v0")
    out = manage(env, "shell", "-c", SETUP.format(run_zip=str(tmp_path / "run.zip")))
    fixtures = json.loads([line for line in out.splitlines() if line.startswith("JSON:")][-1][5:])
    port, log = free_port(), tmp_path / "server.log"
    with open(log, "wb") as out_file:
        server = subprocess.Popen([sys.executable, "manage.py", "serve_embedded", f"127.0.0.1:{port}", "--noreload"],
                                  cwd=REPO_ROOT, env=env, stdout=out_file, stderr=subprocess.STDOUT)
    try:
        yield {"server": server, "var": var, "log": log, "base": f"http://127.0.0.1:{port}",
               "run_zip": (tmp_path / "run.zip").read_bytes(), **fixtures}
    finally:
        if server.poll() is None:  # a failed assertion: the workers may be frozen, the server still up
            for pid in descendants(server.pid):
                os.kill(pid, signal.SIGCONT)
            server.send_signal(signal.SIGINT)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def test_the_upload_answers_before_a_worker_beside_the_server_scores_its_run(embedded):
    import requests

    base, log = embedded["base"], embedded["log"]

    def serving():
        try:
            return requests.get(base + "/accounts/login/", timeout=5).status_code == 200
        except requests.ConnectionError:
            assert embedded["server"].poll() is None, log.read_text()
            return False

    wait_until(serving, 90, "the embedded server did not answer", log)
    workers = descendants(embedded["server"].pid)
    assert workers, "no worker runs beside the server"
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)

    answer = requests.post(f"{base}/api/campaigns/{embedded['slug']}/runs/",
                           headers={"Authorization": f"Token {embedded['token']}"},
                           data={"name": "gold itself", "scope": "test"},
                           files={"file": ("run.zip", embedded["run_zip"], "application/zip")}, timeout=60)
    assert answer.status_code == 201, answer.text
    run_id = answer.json()["id"]
    # Answered while no worker could move: the run waits, its task written to the broker's folder.
    assert run_status(embedded["var"], run_id) == ("uploaded", 0)
    assert [p.name for p in (embedded["var"] / "broker" / "messages").iterdir()], "no task waits in the broker"

    for pid in workers:
        os.kill(pid, signal.SIGCONT)
    status, results = wait_until(lambda: (lambda s: s if s[0] in FINAL else None)(run_status(embedded["var"], run_id)),
                                 WAIT_SECONDS, f"run {run_id} did not reach a final state", log)
    assert (status, results) == ("scored", 1), log.read_text()[-4000:]

    # Ctrl-C stops the server, and the workers with it.
    embedded["server"].send_signal(signal.SIGINT)
    embedded["server"].wait(60)
    wait_until(lambda: not [pid for pid in workers if Path(f"/proc/{pid}").exists() and not zombie(pid)], 30,
               "the workers outlived the server", log)


def zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
