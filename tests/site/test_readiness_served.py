"""Readiness of a real served process (`tideline_kit.serving`, as `tideline serve` starts it): it follows a
real django-q2 worker's heartbeat, and a PostgreSQL connection cut and restored (through a TCP proxy
the test stops and starts) turns it unready within 5 s and ready again."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import pytest
from django.db import connection

from tideline_kit.serving import start_web

ROOT = Path(__file__).resolve().parents[2]
PORT = 18231  # this area's test port range: 18200-18299
PROXY_PORT = 18232


def _migrated_env(root: Path, **extra: str) -> dict:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{root / 'tideline.sqlite3'}", "TIDELINE_VAR_DIR": str(root),
           "TIDELINE_KEYSTORE_DIR": str(root / "keystore"), "TIDELINE_Q_SYNC": "0", **extra}  # fmt: skip
    done = subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return env


def _ready(url: str) -> tuple[int, dict]:
    try:
        response = httpx2.get(url + "/readyz", timeout=10)
    except httpx2.HTTPError:
        return 0, {}
    return response.status_code, response.json()


def _until(url: str, wanted, seconds: float) -> tuple[float, tuple[int, dict]]:
    """Poll /readyz until `wanted(status, body)`; (seconds it took, the last answer)."""
    started = time.monotonic()
    seen = _ready(url)
    while not wanted(*seen) and time.monotonic() - started < seconds:
        time.sleep(0.2)
        seen = _ready(url)
    return time.monotonic() - started, seen


def _serve(env: dict) -> tuple[str, list[subprocess.Popen]]:
    processes = start_web(port=PORT, workers=1, env=env)
    url = f"http://127.0.0.1:{PORT}"
    took, (status, _) = _until(url, lambda status, body: status in (200, 503), 60)
    assert status in (200, 503), "the server did not start"
    return url, processes


def _stop(processes) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=20)


def test_readiness_follows_a_real_workers_heartbeat(tmp_path):
    env = _migrated_env(tmp_path, TIDELINE_READY_WORKER_STALE_SECONDS="4")
    url, processes = _serve(env)
    cluster = None
    try:
        status, body = _ready(url)
        assert status == 503 and body["failing"] == ["worker"], body
        cluster = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        _, (status, body) = _until(url, lambda status, body: status == 200, 90)
        assert status == 200, body
        assert body["checks"]["worker"]["detail"].startswith("the worker reported")
        os.killpg(cluster.pid, signal.SIGKILL)  # the whole cluster, at once: no orderly goodbye
        cluster.wait(timeout=20)
        took, (status, body) = _until(url, lambda status, body: status == 503, 30)
        assert status == 503 and body["failing"] == ["worker"] and took < 4 + 5, (took, body)
        assert "last reported" in body["checks"]["worker"]["detail"]
    finally:
        if cluster is not None and cluster.poll() is None:
            os.killpg(cluster.pid, signal.SIGKILL)
        _stop(processes)


class _Proxy:
    """A TCP proxy to PostgreSQL that can be cut (every connection closed, nothing accepted) and restored."""

    def __init__(self, port: int, upstream: tuple[str, int]) -> None:
        self.port, self.upstream = port, upstream
        self.sockets: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        if self.listener is not None:
            # Shut down, not only closed: a close leaves the accepting thread blocked in accept() on
            # the still-listening socket, which then lets one more connection through to PostgreSQL.
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
            self.listener = None
        with self.lock:
            ends, self.sockets = self.sockets, []
        for end in ends:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()


def test_readiness_turns_unready_within_5_s_of_postgresql_going_away_and_ready_when_it_returns(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: this run of the suite is on SQLite")
    database = connection.settings_dict
    host, port = database["HOST"] or "127.0.0.1", int(database["PORT"] or 5432)
    proxy = _Proxy(PROXY_PORT, (host, port))
    proxy.start()
    env = {**os.environ, "DATABASE_URL": f"postgres://{database['USER']}@127.0.0.1:{PROXY_PORT}/{database['NAME']}",
           "TIDELINE_VAR_DIR": str(tmp_path), "TIDELINE_READY_WORKER": "optional"}  # fmt: skip
    url, processes = _serve(env)
    try:
        _, (status, body) = _until(url, lambda status, body: status == 200, 30)
        assert status == 200, body
        proxy.cut()
        took, (status, body) = _until(url, lambda status, body: status == 503, 30)
        assert status == 503 and body["failing"][0] == "database", body
        assert took <= 5, took
        assert body["checks"]["migrations"]["detail"] == "not checked: the database does not answer"
        proxy.start()
        took, (status, body) = _until(url, lambda status, body: status == 200, 30)
        assert status == 200 and took <= 5, (took, body)
    finally:
        _stop(processes)
        proxy.cut()
