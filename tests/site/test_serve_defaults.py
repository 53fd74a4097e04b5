"""`tideline serve` allows plain HTTP only for the embedded console: with a server database it runs
with the production defaults docs/SECURITY.md promises, and `check --deploy` is clean under them."""

from __future__ import annotations

import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memory.cli import serve
from memory.services.errors import RequestError
from tideline_kit.serving import PortInUse

ROOT = Path(__file__).resolve().parents[2]


def _serve_env(monkeypatch, settings, *, embedded: bool) -> dict[str, str]:
    """The environment `tideline serve` gives its web processes, as it would start them."""
    settings.EMBEDDED = embedded
    monkeypatch.setattr(serve.key_binding, "binding_table_ready", lambda: False)
    captured: dict[str, str] = {}

    def start_web(**kwargs):
        captured.update(kwargs["env"])
        raise PortInUse("stopped here by the test")

    monkeypatch.setattr(serve, "start_web", start_web)
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(RequestError, match="stopped here"):
            serve.run({"host": "127.0.0.1", "port": 18200, "workers": 1, "no_worker": True})
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
    return captured


def _check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)  # fmt: skip


def test_with_a_server_database_serve_keeps_the_production_defaults_and_check_deploy_is_clean(monkeypatch, settings,
                                                                                              tmp_path):  # fmt: skip
    monkeypatch.delenv("TIDELINE_INSECURE_HTTP", raising=False)  # the test suite's own opt-out
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)  # the browser tests' (never a deployment's)
    env = _serve_env(monkeypatch, settings, embedded=False)
    assert "TIDELINE_INSECURE_HTTP" not in env
    # The README's multi-host recipe: a server database behind a TLS proxy (no connection is made).
    env.update({"DATABASE_URL": "postgres://tideline@db.invalid:5432/tideline", "SECRET_KEY": secrets.token_urlsafe(50),
                "TIDELINE_MASTER_KEY": "dGlkZWxpbmUtdGVzdC1vbmx5LW1hc3Rlci1rZXktMDE=", "TIDELINE_BEHIND_PROXY": "1",
                "TIDELINE_VAR_DIR": str(tmp_path), "DEBUG": "", "ALLOWED_HOSTS": "tideline.example"})  # fmt: skip
    done = _check_deploy(env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout

    script = ("import django; django.setup(); from django.conf import settings as s; "
              "print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0)")  # fmt: skip
    shown = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={**env, "DJANGO_SETTINGS_MODULE": "tideline_site.settings"})  # fmt: skip
    assert shown.stdout.split() == ["True"] * 4, shown.stderr


def test_the_embedded_console_is_served_over_plain_http(monkeypatch, settings):
    monkeypatch.delenv("TIDELINE_INSECURE_HTTP", raising=False)
    assert _serve_env(monkeypatch, settings, embedded=True)["TIDELINE_INSECURE_HTTP"] == "1"


def test_an_explicit_choice_is_kept_either_way(monkeypatch, settings):
    monkeypatch.setenv("TIDELINE_INSECURE_HTTP", "1")
    assert _serve_env(monkeypatch, settings, embedded=False)["TIDELINE_INSECURE_HTTP"] == "1"
    monkeypatch.setenv("TIDELINE_INSECURE_HTTP", "0")
    assert _serve_env(monkeypatch, settings, embedded=True)["TIDELINE_INSECURE_HTTP"] == "0"
