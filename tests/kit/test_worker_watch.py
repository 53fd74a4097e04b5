"""`tideline serve` says when its worker is down and starts it again (tideline_kit.worker_watch).

The real cluster is covered by tests/governance/faults/test_import_worker.py (kill -9 mid-import); here a
stand-in process and a stand-in status show the watch's decisions one by one, in a second or two."""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace

import pytest

from tideline_kit import worker_watch
from tideline_kit.worker_watch import WorkerWatch

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(worker_watch, "STARTUP_GRACE", 0.3)
    monkeypatch.setattr(worker_watch, "STALE_AFTER", 0.3)
    monkeypatch.setattr(worker_watch, "CHECK_EVERY", 0.0)
    monkeypatch.setattr(WorkerWatch, "_backoff", lambda self: 0.2)


def _run(watch: WorkerWatch, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        watch.check()
        time.sleep(0.02)


def test_a_worker_that_exits_is_said_and_started_again(quick):
    said: list[str] = []
    watch = WorkerWatch([sys.executable, "-c", "raise SystemExit(3)"], {}, say=said.append, status=lambda pid: None)
    watch.start()
    first = watch.process.pid
    try:
        _run(watch, 1.0)
    finally:
        watch.stop(timeout=5)
    assert said and said[0] == "stopped (exit code 3); starting it again in 0 s (queued tasks wait until then)"
    assert watch.process.pid != first  # started again


def test_a_cluster_that_stops_reporting_is_stopped_and_started_again(quick):
    said: list[str] = []
    reporting = {"on": True}
    watch = WorkerWatch(SLEEPER, {}, say=said.append,
                        status=lambda pid: SimpleNamespace(reincarnations=0) if reporting["on"] else None)  # fmt: skip
    watch.start()
    first = watch.process
    try:
        _run(watch, 0.5)
        assert said == []  # it reports: nothing to say
        reporting["on"] = False
        _run(watch, 1.0)
    finally:
        watch.stop(timeout=5)
    assert said and said[0].startswith("not running (no status for") and "starting it again" in said[0]
    assert first.poll() is not None and watch.process is not first


def test_worker_processes_dying_over_and_over_are_said_once(quick):
    said: list[str] = []
    count = iter(range(1000))
    watch = WorkerWatch(SLEEPER, {}, say=said.append, status=lambda pid: SimpleNamespace(reincarnations=next(count)))
    watch.start()
    try:
        _run(watch, 0.5)
    finally:
        watch.stop(timeout=5)
    assert len(said) == 1 and "keep dying" in said[0] and "is the database reachable?" in said[0]


def test_an_unreadable_status_is_said_once_and_the_worker_left_running(quick):
    said: list[str] = []

    def unreadable(pid):
        raise OSError("the cache is gone")

    watch = WorkerWatch(SLEEPER, {}, say=said.append, status=unreadable)
    watch.start()
    try:
        _run(watch, 0.5)
        assert watch.process.poll() is None
    finally:
        watch.stop(timeout=5)
    assert said == ["cannot read the worker's status (the cache is gone)"]
