"""Console imports run by a real `tideline serve` and its django-q2 worker on PostgreSQL.

The worker's processes are forked: they once shared their parent's pooled connection, and a
3,000-line import failed half-way with its facts stored without their links. Here an import of a
few thousand linked lines completes even though every connection of the worker is killed in the
middle of it (pg_terminate_backend), and a kill -9 of the whole worker in the middle of an import is
said on stderr by `tideline serve`, which starts the worker again, and the new worker resumes the
interrupted import within a minute (it said "running" for the broker's hour before)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django_q.conf import Conf

from governance.models import ImportJob
from governance.services import imports
from memory.models import Fact
from memory.services.workspaces import create_workspace
from memory.services.writes.interchange import export_facts
from tests.factories import linked_records

ROOT = Path(__file__).resolve().parents[3]
TIDELINE = Path(sys.executable).parent / "tideline"
COUNT = 3000
T0 = 1_750_000_000_000

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker's connections are PostgreSQL's"),
]




def _queue_import(name: str, count: int, monkeypatch) -> tuple[ImportJob, list[dict]]:
    """Upload and confirm as the console does; the task goes to the broker for the real worker."""
    records = linked_records(count, T0)
    upload = SimpleUploadedFile("facts.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode())
    job = imports.receive(create_workspace(name), upload, actor="user:admin")
    monkeypatch.setattr(Conf, "SYNC", False)
    return imports.confirm(job, gated=False), records


def _wait(job: ImportJob, until, seconds: float, serve: subprocess.Popen) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if until(job):
            return
        assert serve.poll() is None, "tideline serve stopped"
        time.sleep(0.05)
    raise AssertionError(f"import #{job.pk} is {job.status} at {job.done}/{job.lines} after {seconds} s ({job.error})")


def _assert_complete(job: ImportJob, records: list[dict]) -> None:
    job.refresh_from_db()
    assert job.status == "done" and job.error == "", job.error
    assert job.report["imported"] + job.report["skipped"] == len(records) and job.report["refused_count"] == 0
    # Every fact with every link (dangling ones with their reasons too): what a clean import stores.
    assert list(export_facts(workspace=job.workspace)) == records


@pytest.fixture
def serve(tmp_path):
    """`tideline serve` on the test database with its worker; yields (process, stderr file)."""
    db = connection.settings_dict
    url = f"postgres://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "TIDELINE_Q_SYNC": "", "TIDELINE_INSECURE_HTTP": "1"}
    stderr = tmp_path / "serve.err"
    with stderr.open("wb") as err:
        process = subprocess.Popen([str(TIDELINE), "serve", "--port", str(18100 + os.getpid() % 90), "--workers", "1"],
                                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err,
                                   start_new_session=True)  # fmt: skip
    try:
        yield process, stderr
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        _kill_workers(process.pid)


def _worker_pids(serve_pid: int) -> list[int]:
    """The qcluster processes `tideline serve` (serve_pid) started: the session its worker leads."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"qcluster" in command and stat[0] != "Z" and _session_leader_parent(int(stat[3])) == serve_pid:
                found.append(int(entry.name))
    return found


def _session_leader_parent(session: int) -> int | None:
    try:
        return int(Path(f"/proc/{session}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return None


def _kill_workers(serve_pid: int) -> None:
    for pid in _worker_pids(serve_pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _terminate_other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")  # fmt: skip
        return cursor.fetchone()[0]


def test_an_import_completes_though_the_workers_connections_are_killed(serve, monkeypatch):
    process, _ = serve
    job, records = _queue_import("w", COUNT, monkeypatch)
    _wait(job, lambda j: j.status == "running" and j.done >= 500, 120, process)
    assert _terminate_other_sessions() >= 1
    _wait(job, lambda j: j.status in ("done", "failed"), 120, process)
    _assert_complete(job, records)
    # And the worker takes the next one: its pusher and monitor reconnected too.
    again, small = _queue_import("w2", 30, monkeypatch)
    _wait(again, lambda j: j.status in ("done", "failed"), 30, process)
    _assert_complete(again, small)


def test_a_worker_killed_mid_import_is_restarted_and_resumes_it(serve, monkeypatch):
    process, stderr = serve
    job, records = _queue_import("w", COUNT, monkeypatch)
    _wait(job, lambda j: j.status == "running" and j.done >= 500, 120, process)
    _kill_workers(process.pid)  # kill -9 of the cluster and every process it forked
    job.refresh_from_db()
    assert job.status == "running" and job.done < COUNT and Fact.objects.filter(workspace=job.workspace).count() < COUNT
    killed = time.monotonic()
    _wait(job, lambda j: j.status in ("done", "failed"), 60, process)
    assert time.monotonic() - killed < 60
    _assert_complete(job, records)
    said = stderr.read_text()
    assert "worker: stopped (exit code" in said and "starting it again" in said, said
    assert job.starts == 2  # started once, resumed once
