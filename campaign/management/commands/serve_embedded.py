"""``python manage.py serve_embedded [addrport]``: the web app with real Celery workers beside it, on one machine.

What ``make demo`` serves. The server is Django's ``runserver``; beside it run the
workers of every queue of :mod:`config.queues`, split as the compose file splits
them where it matters: one worker for validation, the default queue and scoring
(``--concurrency`` processes, 2 by default), carrying beat (``-B``) so that the
recovery sweep and the scheduled campaign dates run as in production; and one
process for significance, alone on its queue as in production, so that one
computation at a time covers every request that came while it ran (one
computation per wave of scored runs, not one per run) and a slow table never
holds up a run. The broker is kombu's filesystem transport
(``CELERY_BROKER_URL=filesystem://localhost/``, named by this command when no
broker is; messages are files under ``var/broker/``, no server to install or
start), or the broker configured. An upload therefore answers as soon as its file
is stored and its task written, and the run then moves through its states in the
workers: the production path, on SQLite and files. The workers run at a lower CPU
priority than the server: on one machine, the pages and uploads come first and
the scoring takes what is left.

With no broker named it names the filesystem transport and starts again (the
settings are read once per process); with ``CELERY_TASK_ALWAYS_EAGER`` on it
refuses: there would be nothing for the workers to consume. The workers are
started once, beside the autoreloader (not in each server process it restarts),
and stopped when the server stops (Ctrl-C, or the server's process ending in any
other way): asked for a warm shutdown, then a cold one after ``--stop-timeout``
seconds. A run being scored then is taken back by the next sweep, as in
production. The workers do not reload on code changes.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import autoreload

from config import queues

# kombu's filesystem transport (its folders: config/settings.py). A host named, or kombu warns that none was;
# Celery reads CELERY_BROKER_URL from the environment itself, so the settings cannot add it.
FILESYSTEM = "filesystem://localhost/"
PR_SET_PDEATHSIG = 1
WORKER_NICENESS = 10


def worker_commands(concurrency: int) -> dict[str, list[str]]:
    """The workers of the embedded default, by name: between them every queue the app uses, and beat."""
    def worker(name: str, roles: tuple[str, ...], *options: str) -> list[str]:
        return [sys.executable, "-m", "celery", "-A", "config", "worker", *options,
                "-Q", ",".join(queues.worker_queues(role) for role in roles), "-n", f"{name}-{os.getpid()}@%h",
                # Broadcasts between workers: not needed on one machine, and each would be more files to poll.
                "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "INFO"]

    return {
        "worker": worker("embedded", (queues.VALIDATION, queues.SCORING), "--concurrency", str(concurrency),
                         "-B", "--schedule", str(settings.VAR_DIR / "celerybeat-schedule")),
        "significance worker": worker("embedded-significance", (queues.SIGNIFICANCE,), "--pool", "solo"),
    }


def _worker_process_setup() -> None:
    """In a worker, before exec: a lower CPU priority than the server's, and a SIGTERM (a warm shutdown) when the
    server's process dies, however it dies."""
    os.nice(WORKER_NICENESS)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the server's normal stop still stops them
        pass


class Command(BaseCommand):
    help = "Serve the web app (runserver) with Celery workers of every queue, and beat, beside it."

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000", help="as runserver's (127.0.0.1:8000)")
        parser.add_argument("--noreload", action="store_false", dest="use_reloader",
                            help="do not restart the server on code changes (the workers never do)")
        parser.add_argument("--concurrency", type=int, default=os.environ.get("PARSEVAL_EMBEDDED_CONCURRENCY", "2"),
                            help="validation and scoring processes (2; PARSEVAL_EMBEDDED_CONCURRENCY)")
        parser.add_argument("--stop-timeout", type=float, default=10.0,
                            help="seconds the workers have to finish their tasks when the server stops (10)")

    def handle(self, *args, addrport, use_reloader, concurrency, stop_timeout, **options):
        if not os.environ.get("CELERY_BROKER_URL"):
            # No broker named: the embedded default's. The settings are read once per process, so this one
            # starts again with it (the server and its workers then agree on the transport).
            os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "CELERY_BROKER_URL": FILESYSTEM})
        if settings.CELERY_TASK_ALWAYS_EAGER:
            raise CommandError("tasks run in process here (CELERY_TASK_ALWAYS_EAGER is on): a worker would have "
                               "nothing to consume. Unset it, or name a broker with CELERY_BROKER_URL.")
        if concurrency < 1:
            raise CommandError(f"--concurrency must be at least 1, not {concurrency}")
        # The autoreloader runs this command again in a child process that serves; the workers belong to the parent.
        serving_child = os.environ.get(autoreload.DJANGO_AUTORELOAD_ENV) == "true"
        workers = {} if serving_child else self.start_workers(concurrency)
        try:
            call_command("runserver", addrport, use_reloader=use_reloader)
        except KeyboardInterrupt:
            pass
        finally:
            self.stopping = True
            self.stop_workers(workers, stop_timeout)

    def start_workers(self, concurrency: int) -> dict[str, subprocess.Popen]:
        self.stopping = False
        workers = {}
        for name, command in worker_commands(concurrency).items():
            self.stdout.write(f"Starting the {name}: {' '.join(command[2:])}")
            # A session of their own: a Ctrl-C in the terminal reaches the server only, which then stops them in
            # order (a warm shutdown), instead of racing it.
            workers[name] = subprocess.Popen(command, cwd=settings.BASE_DIR, preexec_fn=_worker_process_setup,
                                             start_new_session=True)
            threading.Thread(target=self.watch, args=(name, workers[name]), daemon=True).start()
        return workers

    def watch(self, name: str, worker: subprocess.Popen) -> None:
        code = worker.wait()
        if not self.stopping:
            self.stderr.write(f"The {name} stopped (exit code {code}) while the server runs: uploads are kept, and "
                              "their runs are scored once it runs again (restart this command).")

    def stop_workers(self, workers: dict[str, subprocess.Popen], timeout: float) -> None:
        """A warm shutdown (running tasks finish), then a cold one, then the worker's whole process group killed."""
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0)):
            running = {name: w for name, w in workers.items() if w.poll() is None}
            for worker in running.values():
                with contextlib.suppress(ProcessLookupError):
                    if sig == signal.SIGKILL:
                        os.killpg(worker.pid, sig)  # its pool and beat too
                    else:
                        worker.send_signal(sig)
            deadline = time.monotonic() + wait
            for name, worker in running.items():
                try:
                    worker.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.stderr.write(f"The {name} did not stop within {wait:.0f} s of {sig.name}.")
