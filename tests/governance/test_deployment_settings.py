"""The settings refuse unsafe defaults, and the compose configuration passes Django's deployment checks."""
from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
STRONG_KEY = secrets.token_urlsafe(50)


def _django(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """manage.py in a clean environment: nothing inherited from the test session but PATH."""
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PARSEVAL_VAR_DIR": str(tmp_path), "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env={**base, **env},
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("env, says", [
    ({}, "DJANGO_SECRET_KEY is missing or is a published default"),
    ({"DJANGO_SECRET_KEY": ""}, "DJANGO_SECRET_KEY is missing or is a published default"),
    # The key this project's settings and compose file used to ship with.
    ({"DJANGO_SECRET_KEY": "insecure-dev-key-change-me-in-production"}, "published default"),
    ({"DJANGO_SECRET_KEY": "change-me-in-production"}, "published default"),
    ({"DJANGO_SECRET_KEY": STRONG_KEY, "DJANGO_DEBUG": "1"}, "DJANGO_DEBUG is on outside development"),
])
def test_settings_refuse_to_start_without_development_mode(env, says, tmp_path):
    proc = _django(["check"], env, tmp_path)
    assert proc.returncode != 0
    assert says in proc.stderr


def test_development_mode_starts_with_the_development_key_and_debug(tmp_path):
    proc = _django(["shell", "-c", "from django.conf import settings; print(settings.DEBUG, settings.SECRET_KEY)"],
                   {"PARSEVAL_DEVELOPMENT": "1"}, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1].split() == ["True", "insecure-dev-key-change-me-in-production"]


def test_a_strong_key_without_debug_starts_without_development_mode(tmp_path):
    proc = _django(["check"], {"DJANGO_SECRET_KEY": STRONG_KEY}, tmp_path)
    assert proc.returncode == 0, proc.stderr


def _compose():
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def _resolve(value: str, given: dict[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default} and ${VAR:?error} with ``given`` as the shell environment."""
    def one(m):
        name, op, arg = m.group(1), m.group(2) or "", m.group(3) or ""
        if given.get(name):
            return given[name]
        if op == ":?":
            raise KeyError(f"compose requires {name}: {arg}")
        return arg if op == ":-" else ""
    return re.sub(r"\$\{(\w+)(:-|:\?)?([^}]*)\}", one, value)


def test_compose_requires_a_secret_key_from_the_environment():
    env = _compose()["services"]["web"]["environment"]
    assert "DJANGO_SECRET_KEY" in env
    with pytest.raises(KeyError, match="DJANGO_SECRET_KEY"):
        _resolve(env["DJANGO_SECRET_KEY"], {})
    assert _resolve(env["DJANGO_SECRET_KEY"], {"DJANGO_SECRET_KEY": STRONG_KEY}) == STRONG_KEY


# What compose requires from the shell besides the key: the object store's credentials.
COMPOSE_GIVEN = {"DJANGO_SECRET_KEY": STRONG_KEY, "PARSEVAL_S3_ACCESS_KEY_ID": "parseval",
                 "PARSEVAL_S3_SECRET_ACCESS_KEY": "a-long-random-object-store-secret"}


def test_check_deploy_passes_with_the_compose_environment(tmp_path):
    compose = _compose()
    env = {k: _resolve(str(v), COMPOSE_GIVEN) for k, v in compose["services"]["web"]["environment"].items()}
    assert env["DJANGO_DEBUG"] == "0" and env["DJANGO_HTTPS"] == "1"
    proc = _django(["check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues" in proc.stdout
    # The same environment over plain HTTP would not pass: the check above is not vacuous.
    plain = _django(["check", "--deploy", "--fail-level", "WARNING"], {**env, "DJANGO_HTTPS": "0"}, tmp_path)
    assert plain.returncode != 0 and "security.W004" in plain.stderr + plain.stdout


def test_compose_keeps_stored_files_in_the_object_store_and_shares_no_volume_between_app_containers():
    services = _compose()["services"]
    store = services["objectstore"]
    assert store["image"].startswith("chrislusf/seaweedfs:") and "-s3" in store["command"]
    app = {name: s for name, s in services.items() if s.get("image") == "parseval-app"}
    assert {"web", "worker-validation", "worker-scoring", "worker-significance", "beat"} <= set(app)
    for name, service in app.items():
        env = {k: _resolve(str(v), COMPOSE_GIVEN) for k, v in service["environment"].items()}
        assert env["PARSEVAL_STORAGE"] == "s3" and env["PARSEVAL_S3_ENDPOINT_URL"] == "http://objectstore:8333", name
        assert not service.get("volumes"), f"{name} mounts {service.get('volumes')}: hosts would have to share it"
        assert "objectstore" in service["depends_on"], name
    # the store's credentials come from the environment, as the secret key does: no default to publish
    for where in (services["web"]["environment"]["PARSEVAL_S3_SECRET_ACCESS_KEY"],
                  store["environment"]["AWS_SECRET_ACCESS_KEY"]):
        with pytest.raises(KeyError, match="PARSEVAL_S3_SECRET_ACCESS_KEY"):
            _resolve(where, {"DJANGO_SECRET_KEY": STRONG_KEY})


def test_compose_web_runs_gunicorn_with_its_limits_and_trusted_proxies():
    command = " ".join(_compose()["services"]["web"]["command"])
    assert "--config config/gunicorn.conf.py" in command and "forwarded-allow-ips='*'" not in command
    conf: dict = {}
    exec((REPO / "config" / "gunicorn.conf.py").read_text(), conf)
    assert conf["forwarded_allow_ips"] == "127.0.0.1"
    assert conf["limit_request_line"] <= 8190 and conf["limit_request_fields"] <= 100


def test_https_settings_turn_on_secure_cookies_hsts_and_redirect(tmp_path):
    code = ("from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
            "s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS > 0)")
    on = _django(["shell", "-c", code], {"DJANGO_SECRET_KEY": STRONG_KEY, "DJANGO_HTTPS": "1"}, tmp_path)
    assert on.stdout.strip().splitlines()[-1].split() == ["True", "True", "True", "True"], on.stderr


@pytest.mark.django_db
def test_every_page_carries_a_content_security_policy(client):
    response = client.get("/accounts/login/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]


def test_no_template_relies_on_inline_script_the_policy_refuses():
    # script-src 'self' refuses inline <script> blocks and on* attributes: they would silently do nothing.
    offenders = []
    for path in (REPO / "templates").rglob("*.html"):
        text = path.read_text()
        if re.search(r"\son[a-z]+\s*=", text) or re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text):
            offenders.append(str(path.relative_to(REPO)))
    assert offenders == []
