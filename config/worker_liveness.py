"""A worker's sign of life that only a *consuming* worker gives, and the health check that reads it.

``celery inspect ping`` is answered by a worker process that may no longer take
tasks (its consumer stuck reconnecting, or crashed while the process lives on).
This bootstep touches a file from the consumer's own event loop every few seconds,
from the moment the consumer is connected until it stops; the health check fails
when the file is missing or stale and, given ``--kill-pidfile``, ends the worker so
that compose's ``restart:`` policy starts a fresh one.

    celery -A config worker --pidfile /tmp/celery-worker.pid ...
    python -m config.worker_liveness --max-age 90 --kill-pidfile /tmp/celery-worker.pid
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from celery import bootsteps

LIVENESS_FILE = Path(os.environ.get("PARSEVAL_WORKER_LIVENESS_FILE", "/tmp/celery-worker-alive"))
TOUCH_SECONDS = 10.0


class ConsumingLivenessFile(bootsteps.StartStopStep):
    """Consumer step: started once the consumer is connected and consuming; stopped when it stops."""

    requires = {"celery.worker.consumer.tasks:Tasks"}

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        self.tref = None

    def start(self, c):
        touch()
        self.tref = c.timer.call_repeatedly(TOUCH_SECONDS, touch)

    def stop(self, c):
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None
        LIVENESS_FILE.unlink(missing_ok=True)

    shutdown = stop


def touch() -> None:
    LIVENESS_FILE.touch()


def age() -> float | None:
    try:
        return time.time() - LIVENESS_FILE.stat().st_mtime
    except FileNotFoundError:
        return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Health check: is the Celery worker consuming?")
    parser.add_argument("--max-age", type=float, default=90.0)
    parser.add_argument("--kill-pidfile", type=Path, help="end this worker (SIGTERM, then SIGKILL) when not consuming")
    args = parser.parse_args(argv)
    seconds = age()
    if seconds is not None and seconds <= args.max_age:
        return 0
    print("worker not consuming: " + ("no liveness file" if seconds is None else f"last sign {seconds:.0f}s ago"))
    if args.kill_pidfile and args.kill_pidfile.exists():
        pid = int(args.kill_pidfile.read_text().strip())
        os.kill(pid, signal.SIGTERM)
        time.sleep(10)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return 1


if __name__ == "__main__":
    sys.exit(main())
