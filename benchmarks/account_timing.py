"""Whether the time of a sign-up or password-reset answer says that an address has an account.

Issue 34 measured reset answers of 6.8 ms for an address with an account against 4.4 ms for one
without: the reset mail (a token, two templates, the mail itself) was sent inside the request. Now
the request enqueues one task with the same arguments on both paths (:mod:`campaign.account_tasks`),
and sign-up hashes the password on both paths (before, a known address was refused by the form
before any hashing: an answer hundreds of times faster than a new account's).

On a dedicated PostgreSQL database (``parseval_bench_accounts`` on ``BENCH_POSTGRES``, default
``postgres://postgres@127.0.0.1:5432``), with the production settings (Django's default password
hasher) and a Redis broker (``BENCH_BROKER``, default ``redis://127.0.0.1:6379/3``, on a queue of
its own that nothing consumes and that is emptied at the end; no worker runs, so the request's time
is the enqueueing), it times with Django's test Client, in rounds that alternate the two paths:

* ``POST /accounts/password_reset/`` for the address of an account and for an unknown address,
* ``POST /signup/`` with the address of an account and with a new address (a new name each time),

and prints per path the median and quartiles (ms), the difference of the medians with its 95 %
bootstrap interval (2,000 resamples of the rounds), and as the noise to compare it with, the
difference of the medians of the two halves (odd and even rounds) of the unknown path. Mail goes to Django's in-memory backend, so the figures leave out an SMTP relay's time
(which, before, made the known path slower still). Throttle rates are raised for the run. The
database is dropped at the end.

    .venv/bin/python benchmarks/account_timing.py [--resets 300] [--signups 30]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SERVER = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432")
BROKER = os.environ.get("BENCH_BROKER", "redis://127.0.0.1:6379/3")
DB_NAME = "parseval_bench_accounts"
QUEUE = "bench-account-timing"
OWNER = "owner@example.org"


def _admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(statement)


def _setup_django(var_dir: str) -> None:
    os.environ.update({
        "DATABASE_URL": f"{SERVER}/{DB_NAME}", "PARSEVAL_VAR_DIR": var_dir, "DJANGO_DEBUG": "0",
        "DJANGO_LOG_LEVEL": "ERROR", "CELERY_BROKER_URL": BROKER, "CELERY_TASK_DEFAULT_QUEUE": QUEUE,
        "DJANGO_SETTINGS_MODULE": "config.settings"})
    os.environ.setdefault("PARSEVAL_DEVELOPMENT", "1")  # a throw-away database on this machine
    for scope in ("SIGNUP", "PASSWORD_RESET", "PASSWORD_RESET_ADDRESS", "PASSWORD_RESET_ACCOUNT", "ANON"):
        os.environ[f"PARSEVAL_THROTTLE_{scope}"] = "1000000/hour"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    call_command("migrate", verbosity=0, interactive=False)


def _time(post) -> float:
    start = time.perf_counter()
    response = post()
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code in (200, 302), response.status_code
    return elapsed


def _alternating(rounds: int, known, unknown) -> tuple[list[float], list[float]]:
    """``rounds`` timings of each path, alternating which goes first, after a few unrecorded warm-up rounds."""
    for n in range(3):
        known(-1 - n)
        unknown(-1 - n)
    a, b = [], []
    for n in range(rounds):
        if n % 2:
            a.append(_time(lambda: known(n)))
            b.append(_time(lambda: unknown(n)))
        else:
            b.append(_time(lambda: unknown(n)))
            a.append(_time(lambda: known(n)))
    return a, b


def _report(what: str, known: list[float], unknown: list[float]) -> None:
    def quartiles(xs):
        q = statistics.quantiles(xs, n=4)
        return f"median {statistics.median(xs):8.2f} ms (quartiles {q[0]:.2f} to {q[2]:.2f})"

    noise = abs(statistics.median(unknown[0::2]) - statistics.median(unknown[1::2]))
    rng = random.Random(34)
    diffs = sorted(statistics.median(rng.choices(known, k=len(known))) -
                   statistics.median(rng.choices(unknown, k=len(unknown))) for _ in range(2000))
    print(f"{what}, {len(known)} rounds")
    print(f"  address with an account:    {quartiles(known)}")
    print(f"  address without an account: {quartiles(unknown)}")
    print(f"  difference of the medians {statistics.median(known) - statistics.median(unknown):+.2f} ms "
          f"(95 % interval {diffs[50]:+.2f} to {diffs[1949]:+.2f}); "
          f"between two halves of the unknown path {noise:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resets", type=int, default=300, help="rounds of reset requests (each path once a round)")
    parser.add_argument("--signups", type=int, default=30, help="rounds of sign-ups (hashing: slow)")
    args = parser.parse_args()
    _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")
    _admin_sql(f"CREATE DATABASE {DB_NAME}")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-accounts-") as var_dir:
            _setup_django(var_dir)
            from django.contrib.auth import get_user_model
            from django.test import Client

            get_user_model().objects.create_user("owner", OWNER, "owners-own-pass-phrase")
            client = Client(REMOTE_ADDR="198.51.100.7")

            def reset(address):
                return lambda n: client.post("/accounts/password_reset/", {"email": address})

            _report("Password reset", *_alternating(args.resets, reset(OWNER), reset("nobody@example.org")))

            def signup_post(address_of, tag):
                def post(n):
                    return Client(REMOTE_ADDR="198.51.100.8").post("/signup/", {
                        "username": f"prober-{tag}{n}", "email": address_of(n),
                        "password1": "a-long-pass-phrase-34", "password2": "a-long-pass-phrase-34"})
                return post

            _report("Sign-up", *_alternating(args.signups, signup_post(lambda n: OWNER, "k"),
                                             signup_post(lambda n: f"new{n}@example.org", "u")))
    finally:
        from django.db import connections

        connections.close_all()
        _admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME}")
        import redis

        redis.Redis.from_url(BROKER).delete(QUEUE)


if __name__ == "__main__":
    main()
