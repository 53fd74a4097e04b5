"""Settings are safe by default and read the database from DATABASE_URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from tideline_site.settings import database_from_url

ROOT = Path(__file__).resolve().parents[2]
KEY = "dGlkZWxpbmUtdGVzdC1vbmx5LW1hc3Rlci1rZXktMDE="


def test_postgres_urls_become_a_postgresql_database():
    db = database_from_url("postgres://ann:s%40cret@db.internal:5433/memory?sslmode=require")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == ("memory", "ann", "s@cret", "db.internal", "5433")
    # Statements are bound by the server and prepared on their connection after five uses.
    assert db["OPTIONS"] == {"sslmode": "require", "server_side_binding": True, "prepare_threshold": 5}


def test_prepared_statements_can_be_turned_off_for_a_transaction_pooler(monkeypatch):
    monkeypatch.setenv("TIDELINE_DB_PREPARE_THRESHOLD", "0")
    db = database_from_url("postgres://ann@db.internal/memory?prepare_threshold=3&server_side_binding=true")
    assert db["OPTIONS"] == {}


def test_sqlite_urls_accept_relative_and_absolute_paths():
    assert database_from_url("sqlite:////srv/t.sqlite3")["NAME"] == "/srv/t.sqlite3"
    assert database_from_url("sqlite:///var/t.sqlite3")["NAME"].endswith("var/t.sqlite3")


def test_other_database_schemes_are_refused():
    with pytest.raises(ImproperlyConfigured):
        database_from_url("mysql://root@localhost/x")


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "TIDELINE_MASTER_KEY", "DEBUG", "TIDELINE_INSECURE_HTTP", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True, text=True)


def test_a_server_deployment_requires_a_secret_key_and_a_master_key(tmp_path):
    probe = "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='tideline_site.settings'; django.setup()"
    url = "postgres://postgres@127.0.0.1:5432/unused"
    missing_secret = _run(probe, DATABASE_URL=url, TIDELINE_VAR_DIR=str(tmp_path))
    assert missing_secret.returncode != 0 and "SECRET_KEY is required" in missing_secret.stderr
    missing_master = _run(probe, DATABASE_URL=url, SECRET_KEY="s" * 60, TIDELINE_VAR_DIR=str(tmp_path))
    assert missing_master.returncode != 0 and "TIDELINE_MASTER_KEY is required" in missing_master.stderr


def test_a_read_replica_is_refused_beside_sqlite(tmp_path):
    probe = "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='tideline_site.settings'; django.setup()"
    result = _run(probe, DATABASE_URL="", TIDELINE_VAR_DIR=str(tmp_path),
                  TIDELINE_REPLICA_URL="postgres://postgres@127.0.0.1:5432/unused")  # fmt: skip
    assert result.returncode != 0 and "TIDELINE_REPLICA_URL needs DATABASE_URL at PostgreSQL" in result.stderr


def test_debug_is_off_unless_asked_for_and_embedded_secrets_are_generated_privately(tmp_path):
    probe = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE']='tideline_site.settings';"
        "from django.conf import settings; print(settings.DEBUG, len(settings.SECRET_KEY) > 40)"
    )
    result = _run(probe, DATABASE_URL="", TIDELINE_VAR_DIR=str(tmp_path))
    assert result.stdout.split() == ["False", "True"], result.stderr
    assert oct((tmp_path / "secret_key").stat().st_mode & 0o777) == "0o600"
    assert oct((tmp_path / "master.key").stat().st_mode & 0o777) == "0o600"


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    env = {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused",
        "SECRET_KEY": "p" * 20 + "Q7#kz" * 10,
        "TIDELINE_MASTER_KEY": KEY,
        "TIDELINE_VAR_DIR": str(tmp_path),
        "ALLOWED_HOSTS": "tideline.example.com",
    }
    result = _run("import sys; from django.core.management import execute_from_command_line as e;"
                  "sys.argv=['manage.py','check','--deploy','--fail-level','WARNING']; "
                  "import os; os.environ['DJANGO_SETTINGS_MODULE']='tideline_site.settings'; e(sys.argv)", **env)  # fmt: skip
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout
