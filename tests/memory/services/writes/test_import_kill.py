"""A real `kill -9` in the middle of `tideline import`: the re-run finishes it, every link included."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memory.models import Fact, Link
from tests.factories import linked_records

ROOT = Path(__file__).resolve().parents[4]
COUNT = 3000
T0 = 1_750_000_000_000




def _run(env: dict, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tideline_site.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False, **kwargs)  # fmt: skip


def _kill_import_midway(env: dict, source: Path, counts) -> None:
    """Start an import, SIGKILL it once some batches are committed and before its links are written."""
    process = subprocess.Popen([sys.executable, "-m", "tideline_site.cli", "import", str(source), "--workspace", "w",
                                "--create", "--json"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and process.poll() is None and counts()[0] < 1000:
            time.sleep(0.01)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    facts, links = counts()
    assert process.returncode == -signal.SIGKILL, "the import finished before it could be killed"
    assert 1000 <= facts < COUNT and links == 0  # cut off: facts half-written, no link yet


def _check_rerun_completes(env: dict, tmp_path: Path, source: Path) -> None:
    again = _run(env, "import", str(source), "--workspace", "w", "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    report = json.loads(again.stdout)
    assert report["refused_count"] == 0 and report["skipped"] >= 1000
    assert report["imported"] + report["skipped"] == COUNT
    out = tmp_path / "out.jsonl"
    exported = _run(env, "export", "--workspace", "w", "--format", "jsonl", "--output", str(out), "--json")
    assert exported.returncode == 0, exported.stderr
    # Every record (every link with its reason, dangling ones too) is exactly what a clean import stores.
    assert [json.loads(line) for line in out.read_text().splitlines()] == linked_records(COUNT, T0)


def _write_source(tmp_path: Path) -> Path:
    source = tmp_path / "facts.jsonl"
    source.write_text("\n".join(json.dumps(record) for record in linked_records(COUNT, T0)) + "\n")
    return source


def test_kill_9_midway_then_rerun_on_sqlite(tmp_path):
    database = tmp_path / "tideline.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "TIDELINE_KEYSTORE_DIR": str(tmp_path / "keystore")}
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr
    source = _write_source(tmp_path)

    def counts() -> tuple[int, int]:
        with sqlite3.connect(database, timeout=30) as db:
            return (db.execute("SELECT count(*) FROM memory_fact").fetchone()[0],
                    db.execute("SELECT count(*) FROM memory_link").fetchone()[0])  # fmt: skip

    _kill_import_midway(env, source, counts)
    _check_rerun_completes(env, tmp_path, source)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="runs against the PostgreSQL test database")
def test_kill_9_midway_then_rerun_on_postgresql(tmp_path):
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
    }
    source = _write_source(tmp_path)

    def counts() -> tuple[int, int]:
        return Fact.objects.filter(workspace__name="w").count(), Link.objects.filter(workspace__name="w").count()

    _kill_import_midway(env, source, counts)
    _check_rerun_completes(env, tmp_path, source)
