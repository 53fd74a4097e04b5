"""A real `kill -9` in the middle of `tideline retention apply`: the run is one transaction, so the
kill leaves nothing half done (no fact archived, no run event); the re-run then takes exactly what
a clean run takes, and a third run takes nothing."""

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
from django.db import OperationalError, connection, transaction

from memory.models import Fact, MemoryEvent

ROOT = Path(__file__).resolve().parents[3]
COUNT = 8000
T0 = 1_700_000_000_000  # November 2023: every fact is far older than the policy's 30 days


def _records() -> list[dict]:
    return [{"memoryId": f"mem_{k:05d}", "content": f"Retention fact number {k} about topic {k % 41}.",
             "segment": "context", "tier": "short", "importance": 0.5, "decayRate": 0.03, "accessCount": 0,
             "lastAccessedAt": T0 + k, "createdAt": T0 + k, "lifecycle": "active", "createdBy": {"kind": "owner"}}
            for k in range(COUNT)]  # fmt: skip


def _run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tideline_site.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip


def _prepare(env: dict, tmp_path: Path) -> None:
    source = tmp_path / "facts.jsonl"
    source.write_text("\n".join(json.dumps(record) for record in _records()) + "\n")
    imported = _run(env, "import", str(source), "--workspace", "w", "--create", "--json")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    added = _run(env, "retention", "add", "--workspace", "w", "--name", "old", "--segments", "context",
                 "--older-than", "30d", "--json")  # fmt: skip
    assert added.returncode == 0, added.stdout + added.stderr


def _kill_apply_midway(env: dict, locked, state) -> None:
    """Start a run; SIGKILL it once its transaction holds the workspace (and a moment of work later)."""
    process = subprocess.Popen([sys.executable, "-m", "tideline_site.cli", "retention", "apply", "--workspace", "w",
                                "--yes", "--json"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and process.poll() is None and not locked():
            time.sleep(0.005)
        time.sleep(0.15)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert state() == (0, 0)  # nothing archived, no run recorded: the transaction never committed


def _check_rerun(env: dict, state) -> None:
    again = _run(env, "retention", "apply", "--workspace", "w", "--yes", "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    (run,) = json.loads(again.stdout)["runs"]
    assert (run["archived"], run["examined"]) == (COUNT, COUNT)
    assert state() == (COUNT, 1)
    third = _run(env, "retention", "apply", "--workspace", "w", "--yes", "--json")
    assert json.loads(third.stdout)["runs"][0]["archived"] == 0 and state() == (COUNT, 2)


def test_kill_9_midway_then_rerun_on_sqlite(tmp_path):
    database = tmp_path / "tideline.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "TIDELINE_KEYSTORE_DIR": str(tmp_path / "keystore")}
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
    assert migrated.returncode == 0, migrated.stderr
    _prepare(env, tmp_path)

    def locked() -> bool:
        # A write transaction holds SQLite's reserved lock: a second writer is refused at once.
        db = sqlite3.connect(database, timeout=0, isolation_level=None)
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
            return False
        except sqlite3.OperationalError:
            return True
        finally:
            db.close()

    def state() -> tuple[int, int]:
        with sqlite3.connect(database, timeout=30) as db:
            return (db.execute("SELECT count(*) FROM memory_fact WHERE lifecycle = 'archived'").fetchone()[0],
                    db.execute("SELECT count(*) FROM memory_memoryevent WHERE kind = 'retention_run'").fetchone()[0])  # fmt: skip

    _kill_apply_midway(env, locked, state)
    _check_rerun(env, state)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="runs against the PostgreSQL test database")
def test_kill_9_midway_then_rerun_on_postgresql(tmp_path):
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "TIDELINE_KEYSTORE_DIR": str(settings.TIDELINE_KEYSTORE_DIR),
    }
    _prepare(env, tmp_path)

    def locked() -> bool:
        # The run's mutation holds the workspace row: taking it without waiting fails.
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT id FROM memory_workspace WHERE name = 'w' FOR UPDATE NOWAIT")
            return False
        except OperationalError:
            return True

    def state() -> tuple[int, int]:
        return (Fact.objects.filter(workspace__name="w", lifecycle="archived").count(),
                MemoryEvent.objects.filter(workspace__name="w", kind="retention_run").count())  # fmt: skip

    _kill_apply_midway(env, locked, state)
    _check_rerun(env, state)
